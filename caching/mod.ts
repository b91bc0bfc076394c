/**
 * Caching package of Kit. Under construction: its public API lands with issue
 * 7, and nothing is exported yet.
 *
 * @example Usage
 * ```ts
 * import * as caching from "@vendor/kit/caching";
 * console.log(Object.keys(caching));
 * ```
 *
 * @module
 */
export {};
