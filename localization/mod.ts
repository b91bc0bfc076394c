/**
 * The localization package of Kit (`@vendor/kit-platform-localization`):
 * the {@linkcode LocalizationManager} translates keys for the
 * current culture, with translations from a {@linkcode MapLocalizationProvider}
 * or a {@linkcode LoaderLocalizationProvider} (over HTTP with
 * {@linkcode HttpLocalizationLoader}, from files with
 * {@linkcode JsonFileLocalizationLoader}), a fallback chain
 * (`fr-CA` → `fr` → `fallbackCulture`), value parsers for `{0}` arguments
 * ({@linkcode FormatLocalizationValueParser}) and `{@group.key}` references
 * ({@linkcode RefLocalizationValueParser}), key resolvers and a
 * {@linkcode LocalizationCache}. Culture changes are announced by the culture
 * provider's `cultureChanged` signal.
 *
 * @example Usage
 * ```ts
 * import {
 *   DefaultCultureProvider,
 *   LoaderLocalizationProvider,
 *   LocalizationCache,
 *   LocalizationManager,
 * } from "@vendor/kit/localization";
 *
 * const resources: Record<string, unknown> = {
 *   en: { common: { app: "Kit" }, home: { title: "Welcome to {@common.app}, {0}" } },
 *   fr: { home: { title: "Bienvenue dans {@common.app}, {0}" } },
 * };
 * const manager = new LocalizationManager(
 *   new LoaderLocalizationProvider({ load: (culture) => Promise.resolve(resources[culture]) }),
 *   new DefaultCultureProvider("en"),
 *   (key) => `[${key}]`,
 *   new LocalizationCache({ maxSize: 1000, ttl: 3600000 }),
 *   undefined,
 *   { fallbackCulture: "en" },
 * );
 * const remove = manager.cultureChanged.add((culture) => console.log(culture));
 * await manager.setCulture("fr");
 * manager.t("home.title", "Ada"); // "Bienvenue dans Kit, Ada"
 * remove();
 * ```
 *
 * @module
 */
export * from "./localization_manager.ts";
export type * from "./translator.ts";
export * from "./negotiate_culture.ts";
export * from "./culture_name.ts";
export type * from "./culture_provider.ts";
export * from "./default_culture_provider.ts";
export * from "./navigator_culture_provider.ts";
export type * from "./localization_provider.ts";
export * from "./map_localization_provider.ts";
export type * from "./localization_loader.ts";
export * from "./loader_localization_provider.ts";
export * from "./http_localization_loader.ts";
export * from "./json_file_localization_loader.ts";
export type * from "./value_parser.ts";
export * from "./icu_localization_value_parser.ts";
export * from "./format_localization_value_parser.ts";
export * from "./ref_localization_value_parser.ts";
export type * from "./key_resolver.ts";
export * from "./identity_key_resolver.ts";
export * from "./camel_case_key_resolver.ts";
export * from "./localization_cache.ts";
export * from "./invalid_culture_error.ts";
export * from "./localization_load_error.ts";
export * from "./localization_configuration_error.ts";
export * from "./localization_resource_error.ts";
export * from "./localization_reference_error.ts";
export * from "./localization_message_error.ts";
// The signal type of `cultureChanged`, from the platform package, so the
// public types of this package are complete on their own.
export type { Signal, SignalHandler, SignalOptions } from "../platform/mod.ts";
