// Core's own copy of the setting error mark (core imports nothing else of
// Kit): the mark is a registered symbol, so internal/setting_error_brand.ts,
// which marks a setting error that keeps another Kit base
// (`DatabaseConfigurationError` is a `DatabaseError`), sets the very same one.
/**
 * The mark every setting error carries on its prototype: a registered
 * symbol (`Symbol.for`), so another copy of Kit recognises it too.
 */
export const SETTING_ERROR_BRAND: unique symbol = Symbol.for(
  "@vendor/kit.SettingError",
);

/**
 * Marks a class as a setting error, so that `instanceof SettingError`
 * accepts its instances although it extends another base.
 *
 * @param errorClass The class whose instances are setting errors.
 *
 * @example Usage
 * ```ts
 * import { markSettingError } from "./_setting_error_brand.ts";
 *
 * class PortError extends RangeError {
 *   readonly key = "server:port";
 *   readonly source = "PORT";
 * }
 * markSettingError(PortError);
 * ```
 */
export function markSettingError(
  errorClass: abstract new (...args: never[]) => Error,
): void {
  Object.defineProperty(errorClass.prototype, SETTING_ERROR_BRAND, {
    value: true,
  });
}
