/**
 * Kit, a Deno-first application framework: a service locator and event
 * aggregator, layered configuration, logging, an HTTP client, localization,
 * caching and analytics. This entry point re-exports every public name of
 * the eight modules; import a module's own entry (`@vendor/kit/platform`,
 * `@vendor/kit/config`, …) to load less.
 *
 * @example Usage
 * ```ts
 * import { format, ServiceLocator } from "@vendor/kit";
 *
 * ServiceLocator.register("greeter", () => (name: string) => format("Hello {0}", name));
 * const greet = ServiceLocator.get<(name: string) => string>("greeter");
 * console.log(greet("Kit"));
 * ServiceLocator.reset();
 * ```
 *
 * @module
 */
export * from "./core/mod.ts";
export * from "./platform/mod.ts";
export * from "./config/mod.ts";
export * from "./logging/mod.ts";
export * from "./http/mod.ts";
export * from "./localization/mod.ts";
export * from "./caching/mod.ts";
export * from "./analytics/mod.ts";
