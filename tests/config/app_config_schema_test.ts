// appConfigSchema is built on first use (so importing the package does not
// load valibot in Node.js and Bun), yet it behaves as the valibot object
// schema it always was with valibot's own functions: v.parse, v.safeParse,
// v.is, v.InferOutput, and its `.entries` read and spread into a new
// v.object. `deno check` of this file is the type half of the test: its
// public type is valibot's object type, which still satisfies the
// library-neutral ConfigurationSchema.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  type AppConfig,
  appConfigSchema,
  ConfigurationManager,
  type ConfigurationSchema,
  type InferConfiguration,
  MemoryProvider,
} from "../../config/mod.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function assertType<T extends true>(_proof?: T): void {}

// What a user writes to hand the schema to valibot's own functions.
const schema = appConfigSchema as unknown as v.ObjectSchema<
  v.ObjectEntries,
  undefined
>;
const typed = appConfigSchema as unknown as v.GenericSchema<
  unknown,
  AppConfig
>;

const MINIMAL = {
  database: { connectionString: "postgres://db/app" },
  api: { baseUrl: "https://api.example.com" },
  logging: { providers: [{ type: "console" }] },
};

const DEFAULTED: AppConfig = {
  database: {
    connectionString: "postgres://db/app",
    timeout: 30000,
    poolSize: 10,
  },
  api: { baseUrl: "https://api.example.com", timeout: 5000, retryAttempts: 3 },
  logging: { level: "info", providers: [{ type: "console", options: {} }] },
};

test("appConfigSchema keeps its public type", () => {
  const neutral: ConfigurationSchema<unknown, AppConfig> = appConfigSchema;
  assertType<Same<InferConfiguration<typeof appConfigSchema>, AppConfig>>();
  assertType<Same<v.InferOutput<typeof typed>, AppConfig>>();
  // valibot's functions take it as it is, no cast needed.
  assert.throws(() => v.parse(appConfigSchema, {}), v.ValiError);
  assert.equal(neutral, appConfigSchema);
});

test("v.parse and v.safeParse validate with appConfigSchema's defaults and rules", () => {
  const app: AppConfig = v.parse(typed, MINIMAL);
  assert.deepEqual(app, DEFAULTED);
  assert.equal(v.is(typed, app), true);
  const bad = v.safeParse(typed, {
    ...MINIMAL,
    api: { baseUrl: "https://api.example.com", timeout: 10 },
  });
  assert.equal(bad.success, false);
  assert.deepEqual(
    bad.issues?.map((issue) => [v.getDotPath(issue), issue.type]),
    [["api.timeout", "min_value"]],
  );
  assert.throws(() => v.parse(typed, {}), v.ValiError);
});

test("appConfigSchema is a valibot object schema: kind, type, in, keys, ~standard", () => {
  assert.equal(schema.kind, "schema");
  assert.equal(schema.type, "object");
  assert.equal(schema.async, false);
  assert.equal("entries" in schema, true);
  assert.equal("nope" in schema, false);
  assert.ok(Object.keys(schema).includes("entries"));
  assert.equal(
    Object.getOwnPropertyDescriptor(schema, "type")?.value,
    "object",
  );
  assert.equal(schema["~standard"].vendor, "valibot");
  const standard = appConfigSchema["~standard"].validate(MINIMAL);
  assert.ok(!(standard instanceof Promise));
  assert.deepEqual(standard.issues, undefined);
  assert.deepEqual("value" in standard ? standard.value : undefined, DEFAULTED);
});

test("appConfigSchema.entries read and spread into a new v.object extend it", async () => {
  assert.deepEqual(Object.keys(schema.entries), [
    "database",
    "api",
    "logging",
    "features",
    "telemetry",
    "cache",
    "localization",
    "analytics",
    "server",
    "host",
  ]);
  const extended = v.object({
    ...schema.entries,
    redis: v.object({ host: v.string() }),
  });
  const withRedis = { ...MINIMAL, redis: { host: "cache" } };
  assert.deepEqual(v.parse(extended, withRedis), {
    ...DEFAULTED,
    redis: { host: "cache" },
  });
  assert.equal(v.safeParse(extended, MINIMAL).success, false);
  // The same schema through the configuration's own validation.
  const config = new ConfigurationManager();
  config.addProvider(
    new MemoryProvider({
      "database:connectionString": "postgres://db/app",
      "api:baseUrl": "https://api.example.com",
      "logging:providers:0:type": "console",
      "redis:host": "cache",
      "database:timeout": "2000",
    }),
  );
  await config.loadConfiguration();
  const bound = config.bind(extended);
  assertType<Same<typeof bound.redis, { host: string }>>();
  assert.equal(bound.redis.host, "cache");
  assert.equal(config.bind(appConfigSchema).database.timeout, 2000);
  await config.close();
});
