// CacheSettingError: the remote store's settings that cannot be used are
// SettingErrors naming the key and the variable that set the value, with the
// value masked, and still RangeErrors as they always were.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CacheSettingError,
  RemoteStoreCacheProvider,
} from "../../caching/mod.ts";
import { ConfigurationManager } from "../../config/mod.ts";
import { isKitError, KitError, SettingError } from "../../core/mod.ts";
import { configFrom } from "./_support.ts";
import { withVariables } from "../_support/variables.ts";

function caught(run: () => unknown): CacheSettingError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof CacheSettingError, String(error));
    assert.ok(error instanceof RangeError, "callers catching RangeError");
    assert.ok(error instanceof SettingError);
    assert.ok(error instanceof KitError);
    assert.ok(isKitError(error, "cache_setting"));
    assert.equal(error.name, "CacheSettingError");
    return error;
  }
  assert.fail("expected a CacheSettingError");
}

/** A ConfigurationManager over the standard variables, `values` set. */
async function fromVariables(
  values: Record<string, string>,
): Promise<ConfigurationManager> {
  return await withVariables(values, async () => {
    const config = new ConfigurationManager();
    config.addStandardVariables();
    await config.loadConfiguration();
    return config;
  });
}

describe("CacheSettingError", () => {
  it("names the key and the variable of a value that is no number, its password masked", async () => {
    const config = await fromVariables({
      REDIS_PORT: "redis://app:hunter2@cache:6379",
    });
    const error = caught(() =>
      RemoteStoreCacheProvider.fromConfiguration(config)
    );
    assert.equal(error.key, "cache:redis:port");
    assert.equal(error.source, "REDIS_PORT");
    assert.equal(
      error.message,
      "cache:redis:port must be a number: redis://app:***@cache:6379",
    );
    assert.ok(!error.message.includes("hunter2"));
  });

  it("shows an ordinary value as before, and bounds a long one", () => {
    assert.equal(
      caught(() =>
        RemoteStoreCacheProvider.fromConfiguration(
          configFrom({ "cache:redis:required": "maybe" }),
        )
      ).message,
      "cache:redis:required must be true or false: maybe",
    );
    const long = caught(() =>
      RemoteStoreCacheProvider.fromConfiguration(
        configFrom({ "cache:redis:database": "x".repeat(10_000) }),
      )
    );
    assert.equal(
      long.message,
      `cache:redis:database must be a number: ${"x".repeat(57)}...`,
    );
    assert.equal(long.source, "the configuration");
  });

  it("names the variable of a number out of range, though the constructor checks it", async () => {
    const config = await fromVariables({ REDIS_PORT: "70000" });
    const error = caught(() =>
      RemoteStoreCacheProvider.fromConfiguration(config)
    );
    assert.equal(error.key, "cache:redis:port");
    assert.equal(error.source, "REDIS_PORT");
    assert.equal(
      error.message,
      "RemoteStoreCacheProvider port must be an integer from 1 to 65535: 70000",
    );
  });

  it("has no source for an option passed in code, and no key for one no key sets", () => {
    const port = caught(() => new RemoteStoreCacheProvider({ port: 70000 }));
    assert.equal(port.key, "cache:redis:port");
    assert.equal(port.source, undefined);
    const timeout = caught(() =>
      new RemoteStoreCacheProvider({ commandTimeout: 0 })
    );
    assert.equal(timeout.key, undefined);
    assert.equal(timeout.source, undefined);
  });

  it("names the key and variable of a bad cluster node, its password masked", async () => {
    const config = await fromVariables({
      REDIS_CLUSTER_NODES: "127.0.0.1:7000,redis://app:hunter2@cache-1:6379",
    });
    const error = caught(() =>
      RemoteStoreCacheProvider.fromConfiguration(config)
    );
    assert.equal(error.key, "cache:redis:cluster:nodes");
    assert.equal(error.source, "REDIS_CLUSTER_NODES");
    assert.equal(
      error.message,
      'RemoteStoreCacheProvider cluster.nodes must be a list of host:port (an array, or comma-separated): bad entry "redis://app:***@cache-1:6379"',
    );
  });

  it("names the key of a bad sentinel node list and bounds a long entry", async () => {
    const config = await fromVariables({
      REDIS_SENTINEL_NAME: "kitprimary",
      REDIS_SENTINELS: "x".repeat(10_000),
    });
    const error = caught(() =>
      RemoteStoreCacheProvider.fromConfiguration(config)
    );
    assert.equal(error.key, "cache:redis:sentinel:nodes");
    assert.equal(error.source, "REDIS_SENTINELS");
    assert.ok(error.message.endsWith(`bad entry "${"x".repeat(57)}..."`));
  });

  it("names the key of a cluster's database and key prefix passed in code", () => {
    const database = caught(() =>
      new RemoteStoreCacheProvider({
        database: 2,
        cluster: { nodes: "127.0.0.1:7000" },
      })
    );
    assert.equal(database.key, "cache:redis:database");
    assert.equal(database.source, undefined);
    const prefix = caught(() =>
      new RemoteStoreCacheProvider({
        keyPrefix: "app:{users:",
        cluster: { nodes: "127.0.0.1:7000" },
      })
    );
    assert.equal(prefix.key, "cache:redis:keyPrefix");
    assert.ok(prefix.message.endsWith(": app:{users:"), prefix.message);
  });

  it("shows a constructor value that is no number masked", () => {
    const error = caught(() =>
      new RemoteStoreCacheProvider({
        port: "redis://app:hunter2@cache:6379" as unknown as number,
      })
    );
    assert.equal(
      error.message,
      "RemoteStoreCacheProvider port must be an integer from 1 to 65535: redis://app:***@cache:6379",
    );
  });

  it("names the missing half of a sentinel setting", () => {
    const error = caught(() =>
      RemoteStoreCacheProvider.fromConfiguration(
        configFrom({ "cache:redis:sentinel:name": "kitprimary" }),
      )
    );
    assert.equal(error.key, "cache:redis:sentinel:nodes");
    assert.equal(error.source, undefined);
  });
});
