/**
 * Analytics package of Kit. Under construction: its public API lands with issue
 * 8, and nothing is exported yet.
 *
 * @example Usage
 * ```ts
 * import * as analytics from "@vendor/kit/analytics";
 * console.log(Object.keys(analytics));
 * ```
 *
 * @module
 */
export {};
