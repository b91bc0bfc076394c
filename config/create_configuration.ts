import { ConfigurationManager } from "./configuration_manager.ts";
import type { ConfigurationSchema } from "./configuration_schema.ts";
import { DotEnvProvider } from "./dot_env_provider.ts";
import { validateConfiguration } from "./validate_configuration.ts";
import { getEnvironmentVariable } from "./_environment_deno.ts";

/** Options of {@linkcode createConfiguration}. */
export interface CreateConfigurationOptions {
  /**
   * The application root the files are read from. Default: the
   * `KIT_CONFIG_PATH` environment variable when set, else the working
   * directory.
   */
  basePath?: string;
  /**
   * The environment name that selects `appsettings.<environment>.json`.
   * Default: the `RUNTIME_ENV` environment variable; no override file when
   * neither is set.
   */
  environment?: string;
  /** The prefix of the application's environment variables. Default `APP`. */
  envPrefix?: string;
  /**
   * A valibot schema (for example {@linkcode appConfigSchema}) the
   * configuration is coerced to and validated against on every load; see
   * {@linkcode ConfigurationManagerOptions.schema}. Without one, the startup
   * rules of {@linkcode validateConfiguration} apply.
   */
  schema?: ConfigurationSchema;
  /** Run the validation. Default `true`. */
  validate?: boolean;
  /** Watch the JSON files and reload when they change. Default `false`. */
  watch?: boolean;
  /** More secret words; see {@linkcode ConfigurationManagerOptions.secretKeys}. */
  secretKeys?: readonly (string | RegExp)[];
}

/**
 * Builds the standard configuration stack — step 1 of the application
 * startup order (spec §1) — then loads and validates it. Sources, lowest
 * precedence first:
 *
 * 1. `appsettings.json` (required),
 * 2. `appsettings.<environment>.json` (optional; only when an environment is
 *    chosen),
 * 3. `.env` (optional; never written to the process environment),
 * 4. the standard variables (`DB_CONNECTION_STRING`, `LOG_LEVEL`…),
 * 5. the prefixed variables (`APP_DATABASE__TIMEOUT`…).
 *
 * @param options Root, environment, prefix, schema.
 * @returns The loaded manager, ready to register as `config`.
 * @throws {ConfigurationSourceError} when `appsettings.json` is missing or a
 * file is malformed.
 * @throws {ConfigurationValidationError} when validation fails (all failures).
 *
 * @example Usage
 * ```ts
 * import { ServiceLocator } from "@vendor/kit/platform";
 * import {
 *   appConfigSchema,
 *   type ConfigurationManager,
 *   createConfiguration,
 * } from "@vendor/kit/config";
 *
 * const config = await createConfiguration({ schema: appConfigSchema });
 * const locator = new ServiceLocator();
 * locator.register("config", () => config);
 * locator.get<ConfigurationManager>("config").getValue<number>("api:timeout");
 * ```
 */
export async function createConfiguration(
  options: CreateConfigurationOptions = {},
): Promise<ConfigurationManager> {
  const environment = nonEmpty(options.environment) ??
    nonEmpty(getEnvironmentVariable("RUNTIME_ENV"));
  const prefix = options.envPrefix ?? "APP";
  const watch = options.watch === true;
  const config = new ConfigurationManager({
    basePath: options.basePath,
    schema: options.validate === false ? undefined : options.schema,
    environment,
    secretKeys: options.secretKeys,
  });
  try {
    await config.addJsonFile("appsettings.json", { watch });
    if (environment !== undefined) {
      await config.addJsonFile(`appsettings.${environment}.json`, {
        optional: true,
        watch,
      });
    }
    await config.addProvider(
      new DotEnvProvider(".env", {
        optional: true,
        prefix,
        basePath: options.basePath,
      }),
    );
    config.addStandardVariables();
    config.addEnvironmentVariables(prefix);
    await config.loadConfiguration();
    if (options.schema === undefined && options.validate !== false) {
      validateConfiguration(config);
    }
    return config;
  } catch (error) {
    await config.close();
    throw error;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
