// The setting error mark for modules other than core (core keeps its own
// copy in core/_setting_error_brand.ts): a registered symbol, so both set the
// same mark.
/**
 * The mark every setting error carries on its prototype: a registered
 * symbol (`Symbol.for`), so another copy of Kit recognises it too.
 */
export const SETTING_ERROR_BRAND: unique symbol = Symbol.for(
  "@vendor/kit.SettingError",
);

/**
 * Marks a class as a setting error, so that `instanceof SettingError`
 * accepts its instances although it extends another base
 * (`DatabaseConfigurationError` is a `DatabaseError`). The class still
 * carries `key` and `source` itself.
 *
 * @param errorClass The class whose instances are setting errors.
 *
 * @example Usage
 * ```ts
 * import { markSettingError } from "./setting_error_brand.ts";
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
