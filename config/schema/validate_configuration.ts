import { maskSecretText } from "../../core/mod.ts";
import type { IConfiguration } from "../configuration.ts";
import { ConfigurationValidationError } from "./configuration_validation_error.ts";
import { invalidLogLevelMessage, normalizeLogLevel } from "./log_level_rule.ts";
import { annotateFailures, hintsOf, whereToSetOf } from "./_hints.ts";
import { kitConfigurationSections } from "./kit_configuration_keys.ts";

/** The keys {@linkcode validateConfiguration} requires. */
export const requiredConfigurationKeys: readonly string[] = Object.freeze([
  "database:connectionString",
  "api:baseUrl",
  "logging:level",
]);

/**
 * The log levels {@linkcode validateConfiguration} accepts, in any letter
 * case (`warn` counts as `warning`; see {@linkcode normalizeLogLevel}).
 */
export const validLogLevels: readonly string[] = Object.freeze([
  "debug",
  "info",
  "warning",
  "error",
]);

/**
 * The startup validator, run after loading. It applies exactly
 * three rules and collects every failure before throwing one error:
 *
 * 1. `database:connectionString`, `api:baseUrl` and `logging:level` must
 *    exist, else `Missing required configuration: <key>`, followed, for a
 *    `ConfigurationManager`, by where the key could be set given
 *    the sources it has: `(set DB_CONNECTION_STRING or
 *    APP_DATABASE__CONNECTION_STRING, or "database": { "connectionString":
 *    … } in appsettings.json)`, with the prefix of its environment source;
 * 2. `logging:level` must be `debug`, `info`, `warning` or `error` (any
 *    letter case; `warn` means `warning`), else `Invalid log level: <value>
 *    (allowed: debug, info, warning, error; from <source>)`;
 * 3. `api:timeout` (5000 when absent) must be from 1000 to 60000 inclusive,
 *    else `API timeout must be between 1000 and 60000ms: <value>`. A numeric
 *    string (from the environment) counts as its number.
 *
 * A failure line ends with what the configuration knows about its key,
 * after `; `: an environment variable written with `_` where `__` would name
 * it (`APP_DATABASE_CONNECTION_STRING is set; did you mean
 * APP_DATABASE__CONNECTION_STRING?`).
 *
 * @param config The loaded configuration.
 * @throws {ConfigurationValidationError} whose message is
 * `Configuration validation failed:` followed by one line per failure.
 *
 * @example Usage
 * ```ts
 * import {
 *   ConfigurationManager,
 *   MemoryProvider,
 *   validateConfiguration,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * config.addProvider(new MemoryProvider({
 *   "database:connectionString": "postgres://db/app",
 *   "api:baseUrl": "https://api.example.com",
 *   "logging:level": "info",
 * }));
 * await config.loadConfiguration();
 * validateConfiguration(config); // passes: api:timeout defaults to 5000
 * ```
 */
export function validateConfiguration(config: IConfiguration): void {
  const failures: string[] = [];
  const keys: string[] = [];
  const fail = (key: string, line: string): void => {
    failures.push(line);
    keys.push(key);
  };
  const where = whereToSetOf(config);
  for (const key of requiredConfigurationKeys) {
    if (!config.hasValue(key)) {
      const place = where?.(key);
      fail(
        key,
        `Missing required configuration: ${key}${
          place === undefined ? "" : ` (${place})`
        }`,
      );
    }
  }
  if (config.hasValue("logging:level")) {
    const level = config.getValue<unknown>("logging:level");
    if (normalizeLogLevel(level) === undefined) {
      fail(
        "logging:level",
        invalidLogLevelMessage(level, sourceOf(config, "logging:level")),
      );
    }
  }
  const bounds = kitConfigurationSections.api.timeout;
  const timeout = config.getValue<unknown>("api:timeout", bounds.default);
  const milliseconds = typeof timeout === "number"
    ? timeout
    : typeof timeout === "string" && timeout.trim() !== ""
    ? Number(timeout)
    : Number.NaN;
  if (!(milliseconds >= bounds.min && milliseconds <= bounds.max)) {
    fail(
      "api:timeout",
      `API timeout must be between ${bounds.min} and ${bounds.max}ms: ${
        describe(timeout)
      }`,
    );
  }
  if (failures.length === 0) return;
  const hints = hintsOf(config);
  throw new ConfigurationValidationError(
    hints === undefined
      ? failures
      : annotateFailures(failures, hints, (_line, index) => keys[index]),
  );
}

// The source label of a key, when the configuration can tell.
function sourceOf(config: IConfiguration, key: string): string | undefined {
  const getSource = (config as { getSource?: unknown }).getSource;
  if (typeof getSource !== "function") return undefined;
  const source: unknown = getSource.call(config, key);
  return typeof source === "string" ? source : undefined;
}

// Quotes a value with its secrets masked by shape (a URL's password…).
function describe(value: unknown): string {
  return maskSecretText(
    typeof value === "object" && value !== null
      ? JSON.stringify(value)
      : String(value),
  );
}
