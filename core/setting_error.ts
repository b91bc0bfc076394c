import { KitError } from "./kit_error.ts";
import { markSettingError, SETTING_ERROR_BRAND } from "./_error_marks.ts";

/** What a {@linkcode SettingError} knows besides its message. */
export interface SettingErrorOptions {
  /** The error that led to this one. */
  readonly cause?: unknown;
  /** The setting at fault (`api:timeout`), if a key names it. */
  readonly key?: string;
  /**
   * Where its value came from: a variable's name (`APP_API__TIMEOUT`), a
   * file (`appsettings.json`), or "the configuration"; left out when the
   * setting is missing or was passed in code.
   */
  readonly source?: string;
}

/**
 * The base of every error about a setting that cannot be used: a value out
 * of range or of the wrong kind, or a required one that is missing. Each
 * module keeps its own class, name, `code` and messages
 * (`HttpConfigurationError`, `LocalizationConfigurationError`,
 * `DatabaseConfigurationError`, ...); catch `SettingError` for "some setting
 * is wrong" whatever the module, and read {@linkcode SettingError.key} and
 * {@linkcode SettingError.source} to say which and where. A message quotes
 * the value masked (no password or token) and bounded in length.
 *
 * `instanceof SettingError` also holds for a module's setting error that
 * keeps another Kit base (`DatabaseConfigurationError` is a
 * `DatabaseError`).
 *
 * @example Usage
 * ```ts
 * import { isKitError, SettingError } from "@vendor/kit/core";
 *
 * class QuotaSettingError extends SettingError {
 *   readonly code = "quota_setting";
 *   constructor(message: string, key: string, source?: string) {
 *     super(message, { key, source });
 *     this.name = "QuotaSettingError";
 *   }
 * }
 *
 * const error: unknown = new QuotaSettingError(
 *   'quota:files must be a whole number: "ten"',
 *   "quota:files",
 *   "APP_QUOTA__FILES",
 * );
 * if (error instanceof SettingError) {
 *   console.log(error.key, error.source); // "quota:files" "APP_QUOTA__FILES"
 * }
 * console.log(isKitError(error, "quota_setting")); // true
 * ```
 */
export abstract class SettingError extends KitError {
  /** The setting at fault (`api:timeout`), if a key names it. */
  readonly key: string | undefined;
  /**
   * Where its value came from (`APP_API__TIMEOUT`, `appsettings.json`, "the
   * configuration"); `undefined` when the setting is missing or was passed
   * in code.
   */
  readonly source: string | undefined;

  /**
   * Creates the error.
   *
   * @param message The whole message (it names the setting and says what is
   * expected).
   * @param options The key, the source and the cause, if any.
   */
  constructor(message?: string, options?: SettingErrorOptions) {
    super(message, options);
    this.name = "SettingError";
    this.key = options?.key;
    this.source = options?.source;
  }

  /**
   * `instanceof SettingError` holds for every setting error, including one
   * that keeps another Kit base and those of another copy of Kit; for a
   * subclass, `instanceof` works as usual.
   *
   * @param value The value on the left of `instanceof`.
   * @returns Whether the value is an instance.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this === SettingError) {
      return typeof value === "object" && value !== null &&
        (value as { [SETTING_ERROR_BRAND]?: unknown })[SETTING_ERROR_BRAND] ===
          true;
    }
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

markSettingError(SettingError);
