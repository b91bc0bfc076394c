import { SettingError } from "../core/mod.ts";

/**
 * Thrown by {@linkcode HttpClient.fromConfiguration} when a configuration
 * value is missing or out of range. The message names the key and the value
 * (an address without credentials or query) and says what is expected, for
 * example `api:timeout must be a whole number of milliseconds from 1000 to
 * 60000: "90000"`.
 *
 * @example Usage
 * ```ts
 * import { HttpClient, HttpConfigurationError } from "@vendor/kit/http";
 *
 * try {
 *   HttpClient.fromConfiguration({
 *     hasValue: () => false,
 *     getValue: <T>(_key: string, fallback?: T) => fallback as T,
 *   });
 * } catch (error) {
 *   if (error instanceof HttpConfigurationError) console.log(error.key); // "api:baseUrl"
 * }
 * ```
 */
export class HttpConfigurationError extends SettingError {
  /** What went wrong, as a stable string: `http_configuration`. */
  readonly code = "http_configuration";

  /** The configuration key at fault, such as `api:timeout`. */
  declare readonly key: string;

  /**
   * Creates the error.
   *
   * @param key The configuration key at fault.
   * @param message The full message.
   * @param source Where the value came from (a variable's name, a file),
   * when there is one.
   */
  constructor(key: string, message: string, source?: string) {
    super(message, { key, source });
    this.name = "HttpConfigurationError";
  }
}
