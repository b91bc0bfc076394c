import { KitError } from "../core/mod.ts";

/**
 * Thrown by {@linkcode ConfigurationManager.prototype.getValue} and
 * {@linkcode ConfigurationManager.prototype.getSection} when a key has no
 * value and no default was given. The message's first line is exactly
 * `Configuration value not found: <key>`; when the manager knows why (the
 * value was read before `loadConfiguration()` finished), a second line says
 * so and what to do.
 *
 * Common causes: the file is missing or not well-formed, the value
 * was read before `loadConfiguration()` finished, or a relative path did not
 * resolve against the application root. `config.diagnose()` names them.
 *
 * @example Usage
 * ```ts
 * import {
 *   ConfigurationManager,
 *   ConfigurationValueNotFoundError,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * await config.loadConfiguration();
 * try {
 *   config.getValue("database:connectionString");
 * } catch (error) {
 *   if (error instanceof ConfigurationValueNotFoundError) {
 *     console.log(error.key); // "database:connectionString"
 *   }
 * }
 * ```
 */
export class ConfigurationValueNotFoundError extends KitError {
  /** What went wrong, as a stable string: `configuration_value_not_found`. */
  readonly code = "configuration_value_not_found";

  /** The key that was asked for, as the caller spelled it. */
  readonly key: string;
  /**
   * Why the value is missing, when Kit knows (for example a read before
   * `loadConfiguration()` finished); it is the message's second line.
   */
  readonly reason: string | undefined;

  /**
   * Creates the error.
   *
   * @param key The key that has no value.
   * @param reason Why, when known: added as the message's second line.
   */
  constructor(key: string, reason?: string) {
    super(
      `Configuration value not found: ${key}${
        reason === undefined ? "" : `\n${reason}`
      }`,
    );
    this.name = "ConfigurationValueNotFoundError";
    this.key = key;
    this.reason = reason;
  }
}
