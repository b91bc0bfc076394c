import { maskSecretText } from "../core/mod.ts";
import type { IConfiguration } from "./configuration.ts";
import { ConfigurationValidationError } from "./configuration_validation_error.ts";

/** The keys {@linkcode validateConfiguration} requires (spec §4.3 rule 1). */
export const requiredConfigurationKeys: readonly string[] = Object.freeze([
  "database:connectionString",
  "api:baseUrl",
  "logging:level",
]);

/** The log levels {@linkcode validateConfiguration} accepts (spec §4.3 rule 2). */
export const validLogLevels: readonly string[] = Object.freeze([
  "debug",
  "info",
  "warning",
  "error",
]);

/**
 * The startup validator of spec §4.3, run after loading. It applies exactly
 * three rules and collects every failure before throwing one error:
 *
 * 1. `database:connectionString`, `api:baseUrl` and `logging:level` must
 *    exist, else `Missing required configuration: <key>`;
 * 2. `logging:level` must be `debug`, `info`, `warning` or `error`, else
 *    `Invalid log level: <value>`;
 * 3. `api:timeout` (5000 when absent) must be from 1000 to 60000 inclusive,
 *    else `API timeout must be between 1000 and 60000ms: <value>`. A numeric
 *    string (from the environment) counts as its number.
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
  for (const key of requiredConfigurationKeys) {
    if (!config.hasValue(key)) {
      failures.push(`Missing required configuration: ${key}`);
    }
  }
  if (config.hasValue("logging:level")) {
    const level = config.getValue<unknown>("logging:level");
    if (!validLogLevels.includes(level as string)) {
      failures.push(`Invalid log level: ${describe(level)}`);
    }
  }
  const timeout = config.getValue<unknown>("api:timeout", 5000);
  const milliseconds = typeof timeout === "number"
    ? timeout
    : typeof timeout === "string" && timeout.trim() !== ""
    ? Number(timeout)
    : Number.NaN;
  if (!(milliseconds >= 1000 && milliseconds <= 60000)) {
    failures.push(
      `API timeout must be between 1000 and 60000ms: ${describe(timeout)}`,
    );
  }
  if (failures.length > 0) throw new ConfigurationValidationError(failures);
}

// Quotes a value with its secrets masked by shape (a URL's password…).
function describe(value: unknown): string {
  return maskSecretText(
    typeof value === "object" && value !== null
      ? JSON.stringify(value)
      : String(value),
  );
}
