/**
 * The configuration package of Kit (`@vendor/kit-platform-configuration`):
 * layered configuration from JSON files, environment variables, `.env`
 * files, memory and JSON over HTTP, like .NET's configuration system.
 *
 * - {@linkcode ConfigurationManager}: `addJsonFile`, `addProvider`,
 *   `addEnvironmentVariables`, `addStandardVariables`, `loadConfiguration`,
 *   `hasValue`, `getValue`, `getSection`, `bind`, `explain`, `getSource`,
 *   `diagnose`, `reload`, `checkHealth` and the `changed` signal.
 * - Providers: {@linkcode JsonFileProvider}, {@linkcode EnvironmentVariableProvider},
 *   {@linkcode StandardVariableProvider}, {@linkcode MemoryProvider} (always
 *   wins), {@linkcode DotEnvProvider}, {@linkcode JsonUrlProvider}.
 * - {@linkcode createConfiguration}: the standard stack, loaded and validated.
 * - {@linkcode appConfigSchema} / {@linkcode AppConfig}: the schema of an
 *   application's configuration (`database`, `api`, `logging`, …);
 *   {@linkcode extendSection} adds the application's keys to one of its
 *   sections.
 * - {@linkcode validateConfiguration}: the start-up checks of the
 *   required keys and their bounds.
 *
 * Keys are colon paths (`database:connectionString`), case-insensitive per
 * segment. Environment variables follow `<PREFIX>_<SECTION>__<PROPERTY>`
 * (`APP_DATABASE__CONNECTION_STRING` → `database:connectionString`). Values
 * of secret keys (password, secret, apiKey, token, connectionString, dsn…)
 * and URL passwords print as `***` everywhere the configuration is shown, by
 * the kit's one secret rule (`isSecretKey` in `@vendor/kit/core`).
 *
 * @example Usage
 * ```ts
 * import {
 *   ConfigurationManager,
 *   MemoryProvider,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * await config.addJsonFile("appsettings.json", { optional: true });
 * config.addEnvironmentVariables("APP");
 * config.addProvider(new MemoryProvider(new Map([["feature:beta", "true"]])));
 * await config.loadConfiguration();
 *
 * config.getValue<string>("feature:beta"); // "true"
 * config.getValue<number>("api:timeout", 5000);
 * console.log(config.toString()); // key = value (source), secrets masked
 * ```
 *
 * @module
 */
export type * from "./configuration.ts";
export * from "./providers/configuration_provider.ts";
export type * from "./schema/configuration_schema.ts";
export type * from "./configuration_path.ts";
export * from "./configuration_manager.ts";
export * from "./configuration_manager_options.ts";
export * from "./configuration_change.ts";
export * from "./explained_value.ts";
export * from "./create_configuration.ts";
export * from "./providers/json_file_provider.ts";
export * from "./providers/environment_variable_provider.ts";
export * from "./providers/standard_variable_provider.ts";
export * from "./providers/memory_provider.ts";
export * from "./providers/dot_env_provider.ts";
export * from "./providers/json_url_provider.ts";
export * from "./schema/app_config_schema.ts";
export * from "./schema/extend_section.ts";
export * from "./schema/kit_configuration_keys.ts";
export * from "./schema/validate_configuration.ts";
export * from "./schema/log_level_rule.ts";
export * from "./secret_keys.ts";
export * from "./configuration_value_not_found_error.ts";
export * from "./schema/configuration_validation_error.ts";
export * from "./providers/configuration_source_error.ts";
export * from "./unsafe_configuration_key_error.ts";
export type {
  HealthCheckable,
  HealthCheckResult,
  HealthStatus,
  Signal,
  SignalHandler,
  SignalOptions,
} from "../platform/mod.ts";
