/**
 * Checks whether a value is a string (primitive).
 *
 * @param value The value to check.
 * @returns `true` for a string primitive.
 *
 * @example Usage
 * ```ts
 * import { isString } from "@vendor/kit/core";
 *
 * isString("kit"); // true
 * isString(42); // false
 * ```
 */
export function isString(value: unknown): value is string {
  return typeof value === "string";
}

/**
 * Checks whether a value is a finite number. `NaN` and the infinities are not.
 *
 * @param value The value to check.
 * @returns `true` for a finite number primitive.
 *
 * @example Usage
 * ```ts
 * import { isNumber } from "@vendor/kit/core";
 *
 * isNumber(3.5); // true
 * isNumber(NaN); // false
 * isNumber("3"); // false
 * ```
 */
export function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/**
 * Checks whether a value is a boolean primitive.
 *
 * @param value The value to check.
 * @returns `true` for `true` and `false`.
 *
 * @example Usage
 * ```ts
 * import { isBoolean } from "@vendor/kit/core";
 *
 * isBoolean(false); // true
 * isBoolean("false"); // false
 * ```
 */
export function isBoolean(value: unknown): value is boolean {
  return typeof value === "boolean";
}

/**
 * Checks whether a value is a function (including classes and async
 * functions).
 *
 * @param value The value to check.
 * @returns `true` for anything callable.
 *
 * @example Usage
 * ```ts
 * import { isFunction } from "@vendor/kit/core";
 *
 * isFunction(() => 1); // true
 * isFunction({}); // false
 * ```
 */
export function isFunction(
  value: unknown,
): value is (...args: never[]) => unknown {
  return typeof value === "function";
}

/**
 * Checks whether a value is a non-null object. Arrays, dates and class
 * instances are objects; functions and `null` are not.
 *
 * @param value The value to check.
 * @returns `true` when `typeof value === "object"` and it is not `null`.
 *
 * @example Usage
 * ```ts
 * import { isObject } from "@vendor/kit/core";
 *
 * isObject({}); // true
 * isObject([]); // true
 * isObject(null); // false
 * ```
 */
export function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/**
 * Checks whether a value is a plain object: one made by an object literal,
 * `Object.create(null)` or `new Object()`, not an array or class instance.
 *
 * @param value The value to check.
 * @returns `true` when the prototype is `Object.prototype` or `null`.
 *
 * @example Usage
 * ```ts
 * import { isPlainObject } from "@vendor/kit/core";
 *
 * isPlainObject({ a: 1 }); // true
 * isPlainObject(new Date()); // false
 * isPlainObject([]); // false
 * ```
 */
export function isPlainObject(
  value: unknown,
): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Checks whether a value is an array.
 *
 * @typeParam T The element type the caller expects.
 * @param value The value to check.
 * @returns `true` for arrays.
 *
 * @example Usage
 * ```ts
 * import { isArray } from "@vendor/kit/core";
 *
 * isArray([1, 2]); // true
 * isArray("12"); // false
 * ```
 */
export function isArray<T = unknown>(value: unknown): value is T[] {
  return Array.isArray(value);
}

/**
 * Checks whether a value is neither `null` nor `undefined`; handy in
 * `array.filter(isDefined)`.
 *
 * @typeParam T The type of the value.
 * @param value The value to check.
 * @returns `true` unless the value is `null` or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { isDefined } from "@vendor/kit/core";
 *
 * [1, null, 2, undefined].filter(isDefined); // [1, 2]
 * ```
 */
export function isDefined<T>(value: T): value is NonNullable<T> {
  return value !== null && value !== undefined;
}

/**
 * Checks whether a value is `null` or `undefined`.
 *
 * @param value The value to check.
 * @returns `true` for `null` and `undefined` only (not for `0` or `""`).
 *
 * @example Usage
 * ```ts
 * import { isNullish } from "@vendor/kit/core";
 *
 * isNullish(undefined); // true
 * isNullish(0); // false
 * ```
 */
export function isNullish(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * Checks whether a value is a promise or any other "thenable" (an object or
 * function with a `then` method).
 *
 * @param value The value to check.
 * @returns `true` when `value.then` is a function.
 *
 * @example Usage
 * ```ts
 * import { isPromiseLike } from "@vendor/kit/core";
 *
 * isPromiseLike(Promise.resolve(1)); // true
 * isPromiseLike({ then() {} }); // true
 * isPromiseLike(1); // false
 * ```
 */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
