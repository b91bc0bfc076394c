/**
 * Logging package of Kit. Under construction: its public API lands with issue
 * 4, and nothing is exported yet.
 *
 * @example Usage
 * ```ts
 * import * as logging from "@vendor/kit/logging";
 * console.log(Object.keys(logging));
 * ```
 *
 * @module
 */
export {};
