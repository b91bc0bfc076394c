// Core's own copy of the error marks (core imports nothing else of Kit):
// each mark is a registered symbol, so internal/error_marks.ts, which the
// other modules use for errors that keep another base, sets the very same
// ones.

/**
 * The mark every Kit error carries on its prototype. It is a registered
 * symbol (`Symbol.for`), so an error thrown by one copy of a Kit package is
 * recognised by another (two bundles, or an npm package beside the JSR one).
 */
export const KIT_ERROR_BRAND: unique symbol = Symbol.for(
  "@vendor/kit.KitError",
);

/**
 * The mark every setting error carries on its prototype: a registered
 * symbol (`Symbol.for`), so another copy of Kit recognises it too.
 */
export const SETTING_ERROR_BRAND: unique symbol = Symbol.for(
  "@vendor/kit.SettingError",
);

/** Sets one mark on a class's prototype. */
export type MarkError = (
  errorClass: abstract new (...args: never[]) => Error,
) => void;

/**
 * A function that sets `symbol` on a class's prototype, so that every
 * instance carries it (the mark is not enumerable and cannot be changed).
 *
 * @param symbol The mark.
 * @returns The function that marks a class.
 *
 * @example Usage
 * ```ts
 * import { mark } from "./_error_marks.ts";
 *
 * const markQuota = mark(Symbol.for("example.QuotaError"));
 * class QuotaError extends RangeError {}
 * markQuota(QuotaError);
 * ```
 */
export function mark(symbol: symbol): MarkError {
  return (errorClass) => {
    Object.defineProperty(errorClass.prototype, symbol, { value: true });
  };
}

/**
 * Marks a class as a Kit error. `KitError` marks itself and so every class
 * extending it; an error that must keep another built-in base
 * (`CircularDependencyError` stays a `RangeError`) is marked with this, so
 * that `isKitError` and `instanceof KitError` accept it.
 *
 * @param errorClass The class whose instances are Kit errors.
 *
 * @example Usage
 * ```ts
 * import { markKitError } from "./_error_marks.ts";
 *
 * class OutOfRange extends RangeError {
 *   readonly code = "out_of_range";
 * }
 * markKitError(OutOfRange);
 * ```
 */
export const markKitError: MarkError = mark(KIT_ERROR_BRAND);

/**
 * Marks a class as a setting error, so that `instanceof SettingError`
 * accepts its instances although it extends another base. The class still
 * carries `key` and `source` itself.
 *
 * @param errorClass The class whose instances are setting errors.
 *
 * @example Usage
 * ```ts
 * import { markSettingError } from "./_error_marks.ts";
 *
 * class PortError extends RangeError {
 *   readonly key = "server:port";
 *   readonly source = "PORT";
 * }
 * markSettingError(PortError);
 * ```
 */
export const markSettingError: MarkError = mark(SETTING_ERROR_BRAND);
