// The Kit error mark for modules other than core (core keeps its own copy in
// core/_kit_error_brand.ts): a registered symbol, so both set the same mark.
/**
 * The mark every Kit error carries on its prototype. It is a registered
 * symbol (`Symbol.for`), so an error thrown by one copy of a Kit package is
 * recognised by another (two bundles, or an npm package beside the JSR one).
 */
export const KIT_ERROR_BRAND: unique symbol = Symbol.for(
  "@vendor/kit.KitError",
);

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
 * import { markKitError } from "./kit_error_brand.ts";
 *
 * class OutOfRange extends RangeError {
 *   readonly code = "out_of_range";
 * }
 * markKitError(OutOfRange);
 * ```
 */
export function markKitError(
  errorClass: abstract new (...args: never[]) => Error,
): void {
  Object.defineProperty(errorClass.prototype, KIT_ERROR_BRAND, { value: true });
}
