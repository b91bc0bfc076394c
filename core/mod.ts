/**
 * Core utilities of Kit (`@vendor/kit-core`): string helpers, case
 * conversion, type guards, the clock Kit's time-driven parts run on, the
 * options every bounded `flush()`/`dispose()` takes (with the signal that
 * enforces them), the one secret rule and log level rule every module
 * applies, and {@linkcode KitError}, the base of every error Kit throws or
 * reports. Nothing here patches a global prototype.
 *
 * @example Usage
 * ```ts
 * import { format, isPlainObject, toUpperSnakeCase } from "@vendor/kit/core";
 *
 * format("Hello {0}", "world"); // "Hello world"
 * toUpperSnakeCase("connectionString"); // "CONNECTION_STRING"
 * isPlainObject({ a: 1 }); // true
 * ```
 *
 * @module
 */
export * from "./strings.ts";
export * from "./casing.ts";
export * from "./type_guards.ts";
export * from "./clock.ts";
export * from "./dispose_options.ts";
export * from "./secrets.ts";
export * from "./log_level_rule.ts";
export * from "./dependency_load_error.ts";
export * from "./kit_error.ts";
export * from "./setting_error.ts";
