/**
 * Configuration package of Kit (`@vendor/kit-platform-configuration`).
 * Under construction (issue 3): only the {@linkcode IConfiguration} read
 * interface is here so far.
 *
 * @example Usage
 * ```ts
 * import type { IConfiguration } from "@vendor/kit/config";
 *
 * function port(config: IConfiguration): number {
 *   return config.getValue<number>("app:port", 3000);
 * }
 * ```
 *
 * @module
 */
export * from "./configuration.ts";
