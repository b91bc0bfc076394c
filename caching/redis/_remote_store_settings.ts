// RemoteStoreCacheProvider's options checked and completed with their
// defaults, in the order the constructor has always checked them (so that,
// of two bad options, the same one is named).
import { type Clock, systemClock } from "../../core/mod.ts";
import { clockOption } from "../_clock.ts";
import { diagnosticsFromEnv } from "../_diagnostics.ts";
import type { RedisLinkOptions } from "./_redis_link.ts";
import {
  checkTopology,
  describeTopology,
  type RedisTopology,
} from "./_redis_topology.ts";
import type { RemoteStoreCacheProviderOptions } from "./remote_store_cache_provider.ts";
import { CacheSettingError } from "../cache_setting_error.ts";
import { shownValue } from "./_shown_value.ts";

/**
 * Where `fromConfiguration` found the options it filled in, by option name
 * (`REDIS_PORT` for `port`), for the options object it built: a value out of
 * range then names its key and source, though the constructor checks it.
 */
export const configuredSources: WeakMap<
  RemoteStoreCacheProviderOptions,
  ReadonlyMap<string, string>
> = new WeakMap();

// The options a `cache:redis:*` key sets, by option name: a bad one is named
// by its key.
const CONFIGURED = new Map([
  ["port", "cache:redis:port"],
  ["database", "cache:redis:database"],
  ["keyPrefix", "cache:redis:keyPrefix"],
  ["hashTag", "cache:redis:hashTag"],
  ["required", "cache:redis:required"],
  ["cluster.nodes", "cache:redis:cluster:nodes"],
  ["sentinel.name", "cache:redis:sentinel:name"],
  ["sentinel.nodes", "cache:redis:sentinel:nodes"],
  ["sentinel.password", "cache:redis:sentinel:password"],
]);

function settingError(
  options: RemoteStoreCacheProviderOptions,
  name: string,
  message: string,
): CacheSettingError {
  return new CacheSettingError(
    CONFIGURED.get(name),
    message,
    configuredSources.get(options)?.get(name),
  );
}

/** The provider's options, checked, with every default filled in. */
export interface RemoteStoreSettings {
  readonly keyPrefix: string;
  readonly defaultTtl: number;
  readonly topology: RedisTopology;
  /** How messages and health checks name the store. */
  readonly address: string;
  readonly hashTag: boolean;
  readonly tagRetention: number;
  readonly required: boolean;
  readonly outageJournalSize: number;
  /** The clock of the entries' `storedAt`. */
  readonly clock: Clock;
  readonly invalidationChannel: string;
  readonly connectionOptions: RedisLinkOptions;
  readonly commandTimeout: number;
}

function checkNumber(
  options: RemoteStoreCacheProviderOptions,
  name: string,
  value: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  integer = true,
): number {
  if (
    typeof value !== "number" || !(value >= min) || !(value <= max) ||
    (integer && !Number.isInteger(value))
  ) {
    throw settingError(
      options,
      name,
      `RemoteStoreCacheProvider ${name} must be ${
        integer ? "an integer" : "a number"
      } from ${min} to ${max}: ${shownValue(value)}`,
    );
  }
  return value;
}

function checkBoolean(
  options: RemoteStoreCacheProviderOptions,
  name: string,
  value: boolean,
): boolean {
  if (typeof value !== "boolean") {
    throw settingError(
      options,
      name,
      `RemoteStoreCacheProvider ${name} must be a boolean: ${
        shownValue(value)
      }`,
    );
  }
  return value;
}

/**
 * Checks `options` and fills in the defaults.
 *
 * @throws {CacheSettingError} As the provider's constructor documents (a
 * `RangeError`).
 */
export function remoteStoreSettings(
  options: RemoteStoreCacheProviderOptions,
): RemoteStoreSettings {
  const host = options.host ?? "localhost";
  const port = checkNumber(options, "port", options.port ?? 6379, 1, 65535);
  const database = checkNumber(options, "database", options.database ?? 0, 0);
  const keyPrefix = options.keyPrefix ?? "kit:cache:";
  const defaultTtl = checkNumber(
    options,
    "defaultTtl",
    options.defaultTtl ?? 300_000,
    1,
    Number.MAX_SAFE_INTEGER,
    false,
  );
  const topology = checkTopology({
    host,
    port,
    database,
    keyPrefix,
    cluster: options.cluster,
    sentinel: options.sentinel,
  }, (option, message) => settingError(options, option, message));
  const address = describeTopology(topology);
  const hashTag = checkBoolean(options, "hashTag", options.hashTag ?? false);
  const tagRetention = checkNumber(
    options,
    "tagRetention",
    options.tagRetention ?? 604_800_000,
    1,
  );
  const required = checkBoolean(options, "required", options.required ?? false);
  const outageJournalSize = checkNumber(
    options,
    "outageJournalSize",
    options.outageJournalSize ?? 1000,
    0,
  );
  const clock = clockOption("RemoteStoreCacheProvider", options.clock) ??
    systemClock;
  const invalidationChannel = options.invalidationChannel ??
    `kit:cache:invalidation:${database}:${keyPrefix}`;
  const connectionOptions: RedisLinkOptions = {
    username: options.username,
    password: options.password,
    database,
    connectTimeout: checkNumber(
      options,
      "connectTimeout",
      options.connectTimeout ?? 5000,
      1,
    ),
    reconnectDelay: checkNumber(
      options,
      "reconnectDelay",
      options.reconnectDelay ?? 100,
      1,
    ),
    maxReconnectDelay: checkNumber(
      options,
      "maxReconnectDelay",
      options.maxReconnectDelay ?? 2000,
      1,
    ),
    offlineQueue: false,
    // Read once here, never per command.
    diagnostics: diagnosticsFromEnv(),
    name: "cache",
  };
  const commandTimeout = checkNumber(
    options,
    "commandTimeout",
    options.commandTimeout ?? 1000,
    1,
  );
  return {
    keyPrefix,
    defaultTtl,
    topology,
    address,
    hashTag,
    tagRetention,
    required,
    outageJournalSize,
    clock,
    invalidationChannel,
    connectionOptions,
    commandTimeout,
  };
}
