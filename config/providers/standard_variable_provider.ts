import type {
  ConfigurationEntry,
  ConfigurationProvider,
} from "./configuration_provider.ts";
import { readEnvironment } from "#config/providers/environment";
import { warnEnvironmentUnavailable } from "./_environment_warning.ts";
import {
  bothSetFailure,
  FILE_SUFFIX,
  type FileVariable,
  SecretFileSet,
} from "./_secret_files.ts";
import type { EnvironmentVariableOptions } from "./environment_variable_provider.ts";

/**
 * The standard variables (`DB_CONNECTION_STRING`, `LOG_LEVEL`, …) and the
 * keys they map to. They keep
 * their conventional names (no prefix, no `__`).
 *
 * | Variable | Key |
 * |---|---|
 * | `DB_CONNECTION_STRING` | `database:connectionString` |
 * | `DB_TIMEOUT` | `database:timeout` |
 * | `DB_POOL_SIZE` | `database:poolSize` |
 * | `API_BASE_URL` | `api:baseUrl` |
 * | `API_TIMEOUT` | `api:timeout` |
 * | `API_RETRY_ATTEMPTS` | `api:retryAttempts` |
 * | `LOG_LEVEL` | `logging:level` |
 * | `LOG_FILE_PATH` | `logging:filePath` |
 * | `LOG_REMOTE_ENDPOINT` | `logging:remoteEndpoint` |
 * | `LOGGING_API_KEY` | `logging:apiKey` |
 * | `REDIS_HOST` | `cache:redis:host` |
 * | `REDIS_PORT` | `cache:redis:port` |
 * | `REDIS_PASSWORD` | `cache:redis:password` |
 * | `REDIS_CLUSTER_NODES` | `cache:redis:cluster:nodes` (`host:port,host:port`) |
 * | `REDIS_SENTINELS` | `cache:redis:sentinel:nodes` (`host:port,host:port`) |
 * | `REDIS_SENTINEL_NAME` | `cache:redis:sentinel:name` |
 * | `REDIS_SENTINEL_PASSWORD` | `cache:redis:sentinel:password` |
 * | `JWT_SECRET` | `auth:jwtSecret` |
 * | `AUTH_TOKEN_EXPIRY` | `auth:tokenExpiry` |
 * | `FEATURE_ANALYTICS` | `features:enableAnalytics` |
 * | `FEATURE_INTERNATIONALIZATION` | `features:enableInternationalization` |
 * | `FEATURE_CACHING` | `api:enableCaching` |
 * | `GOOGLE_ANALYTICS_ID` | `analytics:trackingId` |
 * | `ANALYTICS_API_KEY` | `analytics:apiKey` |
 * | `OPENAI_API_KEY` | `openai:apiKey` |
 * | `APP_ENV` | `app:environment` |
 * | `RUNTIME_ENV` | `app:runtimeEnvironment` |
 *
 * @example Usage
 * ```ts
 * import { standardVariables } from "@vendor/kit/config";
 *
 * standardVariables.DB_TIMEOUT; // "database:timeout"
 * ```
 */
export const standardVariables: Readonly<Record<string, string>> = Object
  .freeze({
    DB_CONNECTION_STRING: "database:connectionString",
    DB_TIMEOUT: "database:timeout",
    DB_POOL_SIZE: "database:poolSize",
    API_BASE_URL: "api:baseUrl",
    API_TIMEOUT: "api:timeout",
    API_RETRY_ATTEMPTS: "api:retryAttempts",
    LOG_LEVEL: "logging:level",
    LOG_FILE_PATH: "logging:filePath",
    LOG_REMOTE_ENDPOINT: "logging:remoteEndpoint",
    LOGGING_API_KEY: "logging:apiKey",
    REDIS_HOST: "cache:redis:host",
    REDIS_PORT: "cache:redis:port",
    REDIS_PASSWORD: "cache:redis:password",
    REDIS_CLUSTER_NODES: "cache:redis:cluster:nodes",
    REDIS_SENTINELS: "cache:redis:sentinel:nodes",
    REDIS_SENTINEL_NAME: "cache:redis:sentinel:name",
    REDIS_SENTINEL_PASSWORD: "cache:redis:sentinel:password",
    JWT_SECRET: "auth:jwtSecret",
    AUTH_TOKEN_EXPIRY: "auth:tokenExpiry",
    FEATURE_ANALYTICS: "features:enableAnalytics",
    FEATURE_INTERNATIONALIZATION: "features:enableInternationalization",
    FEATURE_CACHING: "api:enableCaching",
    GOOGLE_ANALYTICS_ID: "analytics:trackingId",
    ANALYTICS_API_KEY: "analytics:apiKey",
    OPENAI_API_KEY: "openai:apiKey",
    APP_ENV: "app:environment",
    RUNTIME_ENV: "app:runtimeEnvironment",
  });

/**
 * The standard variables (see {@linkcode standardVariables}) as
 * a configuration source; `addStandardVariables()` adds one. Each value's
 * source is `env <NAME>`.
 *
 * `<NAME>_FILE` (`DB_CONNECTION_STRING_FILE=/run/secrets/db`) reads the
 * value from that file instead (one trailing newline dropped, at most
 * 64 KiB, read again on every load and reload); its source is `env
 * <NAME>_FILE` and its value is masked. A missing or unreadable file, or
 * both `<NAME>` and `<NAME>_FILE` set, fails the load naming the variable.
 *
 * @example Usage
 * ```ts
 * import {
 *   ConfigurationManager,
 *   StandardVariableProvider,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * config.addProvider(new StandardVariableProvider());
 * await config.loadConfiguration();
 * config.getValue("logging:level", "info"); // LOG_LEVEL when set
 * ```
 */
export class StandardVariableProvider implements ConfigurationProvider {
  /** Always `env (standard variables)`. */
  readonly name: string = "env (standard variables)";
  readonly #files: SecretFileSet;

  /**
   * Creates the provider.
   *
   * @param options Whether to watch the files `<NAME>_FILE` variables name.
   */
  constructor(options: EnvironmentVariableOptions = {}) {
    this.#files = new SecretFileSet(options);
  }

  /**
   * Reads the standard variables that are set.
   *
   * @returns One entry per variable set, its source `env <NAME>`; a
   * promise of them when `<NAME>_FILE` variables name files to read.
   * @throws {ConfigurationValidationError} (the promise rejects) listing
   * every file that is missing or unreadable and every variable set both
   * directly and through a file.
   */
  load(): ConfigurationEntry[] | Promise<ConfigurationEntry[]> {
    const { variables, error } = readEnvironment();
    if (error !== undefined) warnEnvironmentUnavailable(this.name, error);
    const entries: ConfigurationEntry[] = [];
    const files: FileVariable[] = [];
    const failures: string[] = [];
    for (const [name, key] of Object.entries(standardVariables)) {
      const value = variables[name];
      const fileVariable = name + FILE_SUFFIX;
      const path = variables[fileVariable];
      if (path !== undefined) {
        if (value !== undefined) {
          failures.push(bothSetFailure(name, fileVariable));
        } else files.push({ variable: fileVariable, key, path });
      } else if (value !== undefined) {
        entries.push({ key, value, source: `env ${name}` });
      }
    }
    return this.#files.load(entries, files, failures);
  }

  /**
   * Polls the files the last load read for `<NAME>_FILE` variables, when
   * the provider was created with `watch: true`.
   *
   * @param onChange Called when a file changes.
   * @returns A function that stops polling, or `undefined` when not asked
   * to watch or no file was read.
   */
  watch(
    onChange: () => void,
  ): Promise<(() => Promise<void>) | undefined> {
    return this.#files.watch(onChange);
  }
}
