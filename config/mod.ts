/**
 * Configuration package of Kit. Under construction: its public API lands with issue
 * 3, and nothing is exported yet.
 *
 * @example Usage
 * ```ts
 * import * as config from "@vendor/kit/config";
 * console.log(Object.keys(config));
 * ```
 *
 * @module
 */
export {};
