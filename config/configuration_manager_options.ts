// The options a ConfigurationManager is created with.
import type { ConfigurationSchema } from "./schema/configuration_schema.ts";

/**
 * Options of {@linkcode ConfigurationManager}.
 *
 * @typeParam Config What the schema produces (`unknown` without one).
 */
export interface ConfigurationManagerOptions<Config = unknown> {
  /**
   * The application root that relative file paths of `addJsonFile` resolve
   * against. Default: the `KIT_CONFIG_PATH` environment variable when set,
   * else the working directory.
   */
  basePath?: string;
  /**
   * A valibot schema the configuration must satisfy. When given, every
   * `loadConfiguration()` and `reload()` coerces and validates the merged
   * values (throwing {@linkcode ConfigurationValidationError} with every
   * failure), `getValue` returns the typed values, and the schema's
   * defaults apply (their source is `schema default`). Keys the schema does
   * not describe are kept as the sources supplied them. The manager is then
   * typed by the schema: `getValue("database:timeout")` is a `number`.
   */
  schema?: ConfigurationSchema<unknown, Config>;
  /**
   * More words (or patterns tested against each key segment) that mark a
   * key as secret, added to {@linkcode defaultSecretKeys}.
   */
  secretKeys?: readonly (string | RegExp)[];
  /**
   * The environment name (`development`, `production`…), used by
   * `diagnose()` to report a missing `appsettings.<environment>.json`.
   */
  environment?: string;
  /**
   * What chose {@linkcode ConfigurationManagerOptions.environment}, as
   * `diagnose()` names it: a variable (`RUNTIME_ENV`, `NODE_ENV`,
   * `APP_ENV`), `"the environment option"` or `"the default"`.
   * `createConfiguration()` sets it.
   */
  environmentSource?: string;
  /**
   * Milliseconds a watched file must stay quiet before the configuration
   * reloads (debounce). Default `100`.
   */
  reloadDelay?: number;
}
