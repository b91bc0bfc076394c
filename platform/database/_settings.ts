// The database's settings in force: the options given in code first, then
// (for fromConfiguration) the `database` section of the configuration with
// the standard variables' own names as a fallback, then the defaults. Each
// bad value fails with the key, its source and the value masked.
import { databaseKeys } from "../../internal/settings/database_keys.ts";
import {
  booleanOf,
  findSetting,
  type FoundSetting,
  quoteSetting,
  wholeNumberOf,
} from "../../internal/settings/setting.ts";
import { readEnvironmentVariable } from "../../internal/settings/environment.ts";
import {
  type ConnectionTarget,
  parseConnectionString,
} from "./_connection_target.ts";
import { DatabaseConfigurationError } from "./database_configuration_error.ts";
import type {
  DatabaseConfiguration,
  DatabaseOptions,
} from "./database_options.ts";

/** Everything a database runs by. */
export interface DatabaseSettings {
  readonly target: ConnectionTarget;
  /** The key and source of the connection string, for later messages. */
  readonly key: string;
  readonly source: string;
  readonly poolSize: number;
  readonly timeout: number;
  readonly enableLogging: boolean;
  readonly slowStatementThreshold: number;
  readonly idleTimeout: number;
  readonly options: DatabaseOptions;
}

const KEY = {
  connectionString: "database:connectionString",
  poolSize: "database:poolSize",
  timeout: "database:timeout",
  enableLogging: "database:enableLogging",
} as const;

function codeSetting(name: string, value: unknown): FoundSetting | undefined {
  return value === undefined || value === null || value === ""
    ? undefined
    : { key: name, value, source: `the Database option ${name}` };
}

function wholeNumber(
  found: FoundSetting | undefined,
  key: string,
  min: number,
  max: number,
  fallback: number,
  unit: string,
): number {
  if (found === undefined) return fallback;
  const value = wholeNumberOf(found.value);
  if (value === undefined || value < min || value > max) {
    throw new DatabaseConfigurationError(
      key,
      found.source,
      `${key} must be a whole number${unit} from ${min} to ${max}: ${
        quoteSetting(found, key)
      } (from ${found.source})`,
    );
  }
  return value;
}

/** The environment's name, as the configuration chooses it. */
function environmentOf(config: DatabaseConfiguration | undefined): string {
  const named = (config as { environment?: unknown } | undefined)
    ?.environment;
  if (typeof named === "string" && named !== "") return named;
  for (const name of ["RUNTIME_ENV", "NODE_ENV", "APP_ENV"]) {
    const value = readEnvironmentVariable(name);
    if (value !== undefined && value !== "") return value;
  }
  return "development";
}

/**
 * The settings from code options and, when given, a configuration.
 *
 * @throws {DatabaseConfigurationError} Naming the first bad setting.
 */
export function resolveSettings(
  options: Partial<DatabaseOptions>,
  config?: DatabaseConfiguration,
): DatabaseSettings {
  if (options === null || typeof options !== "object") {
    throw new TypeError("Database: options must be an object");
  }
  const read = (name: keyof typeof KEY): FoundSetting | undefined =>
    codeSetting(name, options[name]) ??
      (config === undefined ? undefined : findSetting(config, [
        KEY[name],
        ...("variable" in databaseKeys[name]
          ? [(databaseKeys[name] as { variable: string }).variable]
          : []),
      ]));
  const connection = read("connectionString");
  if (connection === undefined) {
    throw new DatabaseConfigurationError(
      KEY.connectionString,
      config === undefined ? "the Database options" : "no source",
      config === undefined
        ? "Database: options.connectionString is required (postgres://user:password@host:5432/name, or pglite:memory for the embedded engine)"
        : `${KEY.connectionString} is not set: set it in the configuration (or the DB_CONNECTION_STRING environment variable, read by addStandardVariables(), or APP_DATABASE__CONNECTION_STRING), or pass options.connectionString to Database.fromConfiguration`,
    );
  }
  const key = KEY.connectionString;
  const target = parseConnectionString(connection, key);
  if (
    target.kind === "pglite" && options.allowEmbeddedInProduction !== true &&
    environmentOf(config) === "production"
  ) {
    throw new DatabaseConfigurationError(
      key,
      connection.source,
      `${key} selects the embedded engine (${target.address}, from ${connection.source}) in production: its data lives in this process and is not shared with other instances. Set a postgres:// connection string, or pass allowEmbeddedInProduction: true to run it anyway`,
    );
  }
  const { poolSize, timeout } = databaseKeys;
  const logging = read("enableLogging");
  let enableLogging: boolean = databaseKeys.enableLogging.default;
  if (logging !== undefined) {
    const value = booleanOf(logging.value);
    if (value === undefined) {
      throw new DatabaseConfigurationError(
        KEY.enableLogging,
        logging.source,
        `${KEY.enableLogging} must be true or false: ${
          quoteSetting(logging, KEY.enableLogging)
        } (from ${logging.source})`,
      );
    }
    enableLogging = value;
  }
  const threshold = codeSetting(
    "slowStatementThreshold",
    options.slowStatementThreshold,
  );
  const idle = codeSetting("idleTimeout", options.idleTimeout);
  return {
    target,
    key,
    source: connection.source,
    poolSize: wholeNumber(
      read("poolSize"),
      KEY.poolSize,
      poolSize.min,
      poolSize.max,
      poolSize.default,
      "",
    ),
    timeout: wholeNumber(
      read("timeout"),
      KEY.timeout,
      timeout.min,
      timeout.max,
      timeout.default,
      " of milliseconds",
    ),
    enableLogging,
    slowStatementThreshold: wholeNumber(
      threshold,
      "slowStatementThreshold",
      0,
      3_600_000,
      1_000,
      " of milliseconds",
    ),
    idleTimeout: wholeNumber(
      idle,
      "idleTimeout",
      1_000,
      86_400_000,
      30_000,
      " of milliseconds",
    ),
    options: { ...options, connectionString: String(connection.value) },
  };
}
