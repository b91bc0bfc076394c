import { KitError } from "../../core/mod.ts";

/**
 * Thrown when configuration fails validation: by
 * {@linkcode validateConfiguration} (the three startup rules), by
 * {@linkcode ConfigurationManager.prototype.bind} and by a manager created with
 * a schema. Every failure is collected, never only the first.
 *
 * The message is `Configuration validation failed:` followed by one line per
 * failure, and by a `hint` line when there is general advice (how to turn
 * `createConfiguration()`'s default rules off). Values of secret keys never
 * appear in it.
 *
 * @example Usage
 * ```ts
 * import {
 *   ConfigurationValidationError,
 *   MemoryProvider,
 *   ConfigurationManager,
 *   validateConfiguration,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * config.addProvider(new MemoryProvider(new Map([["logging:level", "loud"]])));
 * await config.loadConfiguration();
 * try {
 *   validateConfiguration(config);
 * } catch (error) {
 *   if (error instanceof ConfigurationValidationError) {
 *     console.log(error.failures);
 *     // ["Missing required configuration: database:connectionString", …]
 *   }
 * }
 * ```
 */
export class ConfigurationValidationError extends KitError {
  /** What went wrong, as a stable string: `configuration_validation`. */
  readonly code = "configuration_validation";

  /** One line per failure, in the order they were found. */
  readonly failures: string[];
  /**
   * What to do about it in general (for example how to turn the default
   * rules off), when there is something to say: the message's last line.
   */
  readonly hint: string | undefined;

  /**
   * Creates the error.
   *
   * @param failures One line per failure.
   * @param hint A last line saying what to do, if any.
   */
  constructor(failures: readonly string[], hint?: string) {
    super(
      [
        "Configuration validation failed:",
        ...failures,
        ...(hint === undefined ? [] : [hint]),
      ].join("\n"),
    );
    this.name = "ConfigurationValidationError";
    this.failures = [...failures];
    this.hint = hint;
  }
}
