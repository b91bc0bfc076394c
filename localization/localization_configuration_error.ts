import { SettingError } from "../core/mod.ts";

/**
 * Thrown by {@linkcode LocalizationManager.fromConfiguration} when the
 * `localization` section of a configuration is missing a value or holds one
 * that is not valid. The message names the key and the value and says what
 * is expected, for example `localization:defaultCulture must be a BCP 47
 * culture name such as "en" or "fr-CA": "en_US"`.
 *
 * @example Usage
 * ```ts
 * import {
 *   LocalizationConfigurationError,
 *   LocalizationManager,
 * } from "@vendor/kit/localization";
 *
 * try {
 *   LocalizationManager.fromConfiguration({
 *     hasValue: () => false,
 *     getValue: <T>(_key: string, fallback?: T) => fallback as T,
 *   });
 * } catch (error) {
 *   if (error instanceof LocalizationConfigurationError) console.log(error.key);
 * }
 * ```
 */
export class LocalizationConfigurationError extends SettingError {
  /** What went wrong, as a stable string: `localization_configuration`. */
  readonly code = "localization_configuration";

  /** The configuration key at fault, such as `localization:resourceUrl`. */
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
    this.name = "LocalizationConfigurationError";
  }
}
