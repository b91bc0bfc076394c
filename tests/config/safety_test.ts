import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  ConfigurationManager,
  DotEnvProvider,
  MemoryProvider,
  UnsafeConfigurationKeyError,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

function assertNotPolluted(): void {
  const probe: Record<string, unknown> = {};
  assert.equal(probe.polluted, undefined);
  assert.equal(probe.isAdmin, undefined);
  assert.equal(
    Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"),
    false,
  );
  assert.equal(
    Object.prototype.hasOwnProperty.call(Object.prototype, "isAdmin"),
    false,
  );
}

function isUnsafe(key: string, source: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UnsafeConfigurationKeyError);
    assert.equal(error.key, key);
    assert.equal(error.source, source);
    assert.equal(
      error.message,
      `Unsafe configuration key "${key}" from ${source}: the segments __proto__, prototype and constructor are not allowed`,
    );
    return true;
  };
}

test("JsonFileProvider rejects __proto__, prototype and constructor keys (prototype pollution through JSON)", async () => {
  await withTempDir(async (dir) => {
    const proto = await dir.write(
      "proto.json",
      '{ "safe": 1, "__proto__": { "polluted": true } }',
    );
    const nested = await dir.write(
      "nested.json",
      '{ "a": { "constructor": { "prototype": { "isAdmin": true } } } }',
    );
    const colon = await dir.write(
      "colon.json",
      '{ "a:Prototype:isAdmin": true }',
    );
    const config = new ConfigurationManager();
    await assert.rejects(
      config.addJsonFile(proto),
      isUnsafe("__proto__", proto),
    );
    await assert.rejects(
      config.addJsonFile(nested),
      isUnsafe("a:constructor", nested),
    );
    await assert.rejects(
      config.addJsonFile(colon),
      isUnsafe("a:Prototype:isAdmin", colon),
    );
    await config.loadConfiguration();
    assert.deepEqual(config.toJSON(), {});
    assertNotPolluted();
  });
});

test("EnvironmentVariableProvider rejects variables that map to unsafe segments (prototype pollution through env)", async () => {
  const p = uniquePrefix();
  await withEnv({ [`${p}_PROTOTYPE__IS_ADMIN`]: "true" }, () => {
    const config = new ConfigurationManager();
    assert.throws(
      () => config.addEnvironmentVariables(p),
      isUnsafe("prototype:isAdmin", `env ${p}_PROTOTYPE__IS_ADMIN`),
    );
  });
  await withEnv({ [`${p}___PROTO____POLLUTED`]: "true" }, () => {
    const config = new ConfigurationManager();
    assert.throws(
      () => config.addEnvironmentVariables(p),
      isUnsafe("__PROTO____POLLUTED", `env ${p}___PROTO____POLLUTED`),
    );
  });
  assertNotPolluted();
});

test("ConfigurationManager.loadConfiguration() rejects an unsafe variable that appeared after the source was added", async () => {
  const p = uniquePrefix();
  const config = new ConfigurationManager();
  config.addEnvironmentVariables(p);
  await withEnv({ [`${p}_CONSTRUCTOR`]: "x" }, async () => {
    await assert.rejects(
      config.loadConfiguration(),
      isUnsafe("constructor", `env ${p}_CONSTRUCTOR`),
    );
  });
  assert.equal(config.loaded, false);
});

test("MemoryProvider rejects unsafe keys (prototype pollution through memory)", () => {
  const config = new ConfigurationManager();
  for (
    const key of [
      "__proto__:polluted",
      "a:constructor:prototype:isAdmin",
      "PROTOTYPE",
    ]
  ) {
    assert.throws(
      () => config.addProvider(new MemoryProvider(new Map([[key, "true"]]))),
      isUnsafe(key, "memory"),
    );
  }
  assertNotPolluted();
});

test("DotEnvProvider rejects unsafe names (prototype pollution through .env)", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write(".env", "__proto__:polluted=true\n");
    const config = new ConfigurationManager();
    await assert.rejects(
      async () => await config.addProvider(new DotEnvProvider(file)),
      isUnsafe("__proto__:polluted", `${file} __proto__:polluted`),
    );
    assertNotPolluted();
  });
});

test("ConfigurationManager.bind() rejects unsafe keys inside JSON text of a value", async () => {
  const config = new ConfigurationManager();
  config.addProvider(
    new MemoryProvider({ "a:list": '[{"__proto__": {"polluted": true}}]' }),
  );
  await config.loadConfiguration();
  assert.throws(
    () =>
      config.bind(
        v.object({ list: v.array(v.record(v.string(), v.unknown())) }),
        "a",
      ),
    UnsafeConfigurationKeyError,
  );
  assertNotPolluted();
});

test("ConfigurationManager rejects empty key segments", () => {
  const config = new ConfigurationManager();
  assert.throws(
    () => config.addProvider(new MemoryProvider({ "a::b": "1" })),
    {
      name: "ConfigurationSourceError",
      message:
        'Invalid configuration key "a::b" from memory: a segment is empty',
    },
  );
});
