/**
 * Thrown when configuration fails validation: by
 * {@linkcode validateConfiguration} (the startup rules of spec §4.3), by
 * {@linkcode ConfigurationManager.prototype.bind} and by a manager created with
 * a schema. Every failure is collected, never only the first.
 *
 * The message is `Configuration validation failed:` followed by one line per
 * failure. Values of secret keys never appear in it.
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
export class ConfigurationValidationError extends Error {
  /** One line per failure, in the order they were found. */
  readonly failures: string[];

  /**
   * Creates the error.
   *
   * @param failures One line per failure.
   */
  constructor(failures: readonly string[]) {
    super(
      ["Configuration validation failed:", ...failures].join("\n"),
    );
    this.name = "ConfigurationValidationError";
    this.failures = [...failures];
  }
}
