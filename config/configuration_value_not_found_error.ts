/**
 * Thrown by {@linkcode ConfigurationManager.prototype.getValue} and
 * {@linkcode ConfigurationManager.prototype.getSection} when a key has no
 * value and no default was given. The message is exactly
 * `Configuration value not found: <key>` (spec §4.2, §7).
 *
 * Common causes (spec §7): the file is missing or not well-formed, the value
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
export class ConfigurationValueNotFoundError extends Error {
  /** The key that was asked for, as the caller spelled it. */
  readonly key: string;

  /**
   * Creates the error.
   *
   * @param key The key that has no value.
   */
  constructor(key: string) {
    super(`Configuration value not found: ${key}`);
    this.name = "ConfigurationValueNotFoundError";
    this.key = key;
  }
}
