/**
 * HTTP package of Kit. Under construction: its public API lands with issue
 * 5, and nothing is exported yet.
 *
 * @example Usage
 * ```ts
 * import * as http from "@vendor/kit/http";
 * console.log(Object.keys(http));
 * ```
 *
 * @module
 */
export {};
