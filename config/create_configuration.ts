import { ConfigurationManager } from "./configuration_manager.ts";
import type { ConfigurationSchema } from "./schema/configuration_schema.ts";
import type { ConfigurationDiagnostic } from "./providers/configuration_provider.ts";
import { DotEnvProvider } from "./providers/dot_env_provider.ts";
import { validateConfiguration } from "./schema/validate_configuration.ts";
import { ConfigurationValidationError } from "./schema/configuration_validation_error.ts";
import { getEnvironmentVariable } from "#config/providers/environment";

/**
 * Options of {@linkcode createConfiguration}.
 *
 * @typeParam Config What the schema produces (`unknown` without one).
 */
export interface CreateConfigurationOptions<Config = unknown> {
  /**
   * The application root the files are read from. Default: the
   * `KIT_CONFIG_PATH` environment variable when set, else the working
   * directory.
   */
  basePath?: string;
  /**
   * The environment name that selects `appsettings.<environment>.json`.
   * Default: the first of the `RUNTIME_ENV`, `NODE_ENV` and `APP_ENV`
   * environment variables that is set, else `development`.
   * `config.environmentSource` and `diagnose()` name what chose it.
   */
  environment?: string;
  /** The prefix of the application's environment variables. Default `APP`. */
  envPrefix?: string;
  /**
   * A valibot schema (for example {@linkcode appConfigSchema}) the
   * configuration is coerced to and validated against on every load; see
   * {@linkcode ConfigurationManagerOptions.schema}. Without one, the startup
   * rules of {@linkcode validateConfiguration} apply. The manager returned
   * is typed by the schema (`getValue("api:timeout")` is a `number`).
   */
  schema?: ConfigurationSchema<unknown, Config>;
  /**
   * Run the validation. Default `true`. `false` also leaves the schema
   * unapplied, so values stay as the sources supplied them.
   */
  validate?: boolean;
  /**
   * Watch the JSON files, and the files `<NAME>_FILE` variables name, and
   * reload when they change. Default `false`.
   */
  watch?: boolean;
  /** More secret words; see {@linkcode ConfigurationManagerOptions.secretKeys}. */
  secretKeys?: readonly (string | RegExp)[];
  /**
   * Fail on near-miss variable names. Default `false`: a variable written
   * with `_` where `__` would name a known key (`APP_CACHE__REDIS_PORT` for
   * `APP_CACHE__REDIS__PORT`) is ignored, `diagnose()` reports it, and the
   * application host logs it as a warning at start-up. With `true` each one
   * is a line of the {@linkcode ConfigurationValidationError}, next to the
   * other validation failures. Applies to the first load only; a later
   * `reload()` does not check it again.
   */
  strict?: boolean;
}

/**
 * Builds the standard configuration stack — step 1 of the application
 * start-up — then loads and validates it. Sources, lowest
 * precedence first:
 *
 * 1. `appsettings.json` (required),
 * 2. `appsettings.<environment>.json` (optional), the environment being the
 *    `environment` option, else the first of `RUNTIME_ENV`, `NODE_ENV` and
 *    `APP_ENV` that is set, else `development`,
 * 3. `.env` (optional; never written to the process environment),
 * 4. the standard variables (`DB_CONNECTION_STRING`, `LOG_LEVEL`…),
 * 5. the prefixed variables (`APP_DATABASE__TIMEOUT`…).
 *
 * @typeParam Config What the schema produces; the manager is typed by it.
 * @param options Root, environment, prefix, schema.
 * @returns The loaded manager, ready to register as `config`.
 * @throws {ConfigurationSourceError} when `appsettings.json` is missing or a
 * file is malformed.
 * @throws {ConfigurationValidationError} when validation fails (all failures),
 * and with `strict: true` when a variable is a near-miss of a known key's
 * name (a line each, naming the variable and the name that would work).
 * Without a schema the default rules of {@linkcode validateConfiguration}
 * apply, and the message's last line says how to opt out (`validate: false`,
 * or a schema of your own).
 *
 * @example Usage
 * ```ts ignore
 * // Not run here: it reads the project's appsettings.json and variables.
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
// `any` as ConfigurationManager's default, for the same reason: without a
// schema the manager it returns is untyped, and must fit where a plain
// `ConfigurationManager` is expected.
// deno-lint-ignore no-explicit-any
export async function createConfiguration<Config = any>(
  options: CreateConfigurationOptions<Config> = {},
): Promise<ConfigurationManager<Config>> {
  const { environment, source } = chooseEnvironment(options.environment);
  const prefix = options.envPrefix ?? "APP";
  const watch = options.watch === true;
  const config = new ConfigurationManager<Config>({
    basePath: options.basePath,
    schema: options.validate === false ? undefined : options.schema,
    environment,
    environmentSource: source,
    secretKeys: options.secretKeys,
  });
  try {
    await config.addJsonFile("appsettings.json", { watch });
    const file = `appsettings.${environment}.json`;
    await config.addJsonFile(file, {
      optional: true,
      watch,
      label: `${file} (${
        source === "the environment option"
          ? "environment option"
          : source === "the default"
          ? "default environment"
          : `environment from ${source}`
      })`,
    });
    await config.addProvider(
      new DotEnvProvider(".env", {
        optional: true,
        prefix,
        basePath: options.basePath,
      }),
    );
    config.addStandardVariables({ watch });
    config.addEnvironmentVariables(prefix, { watch });
    try {
      await config.loadConfiguration();
      if (options.schema === undefined && options.validate !== false) {
        try {
          validateConfiguration(config);
        } catch (error) {
          if (!(error instanceof ConfigurationValidationError)) throw error;
          throw new ConfigurationValidationError(error.failures, OPT_OUT);
        }
      }
    } catch (error) {
      if (
        options.strict !== true ||
        !(error instanceof ConfigurationValidationError)
      ) throw error;
      throw new ConfigurationValidationError(
        [...error.failures, ...nearMisses(config)],
        error.hint,
      );
    }
    if (options.strict === true) {
      const lines = nearMisses(config);
      if (lines.length > 0) throw new ConfigurationValidationError(lines);
    }
    return config;
  } catch (error) {
    await config.close();
    throw error;
  }
}

// The near-miss findings of diagnose(), one failure line each.
function nearMisses(
  config: { diagnose(): readonly ConfigurationDiagnostic[] },
): string[] {
  return config.diagnose()
    .filter((finding) => finding.code === "single-underscore")
    .map((finding) => finding.message);
}

const OPT_OUT =
  "These are createConfiguration()'s default rules; for a service without them pass " +
  "{ validate: false }, or { schema } with a schema of your own.";

/** The variables that name the environment, in the order they are asked. */
const ENVIRONMENT_VARIABLES = ["RUNTIME_ENV", "NODE_ENV", "APP_ENV"] as const;

// The environment name and what chose it.
function chooseEnvironment(
  option: string | undefined,
): { environment: string; source: string } {
  const given = nonEmpty(option);
  if (given !== undefined) {
    return { environment: given, source: "the environment option" };
  }
  for (const name of ENVIRONMENT_VARIABLES) {
    const value = nonEmpty(getEnvironmentVariable(name));
    if (value !== undefined) return { environment: value, source: name };
  }
  return { environment: "development", source: "the default" };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
