/**
 * Localization package of Kit. Under construction: its public API lands with issue
 * 6, and nothing is exported yet.
 *
 * @example Usage
 * ```ts
 * import * as localization from "@vendor/kit/localization";
 * console.log(Object.keys(localization));
 * ```
 *
 * @module
 */
export {};
