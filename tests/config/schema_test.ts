import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  type AppConfig,
  appConfigSchema,
  ConfigurationManager,
  type ConfigurationSchema,
  ConfigurationValidationError,
  MemoryProvider,
  validateConfiguration,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

async function fromMemory(
  values: Record<string, string>,
): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  config.addProvider(new MemoryProvider(values));
  await config.loadConfiguration();
  return config;
}

function failuresOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigurationValidationError);
    assert.equal(
      error.message,
      ["Configuration validation failed:", ...error.failures].join("\n"),
    );
    return [...error.failures];
  }
  assert.fail("expected a ConfigurationValidationError");
}

const MINIMAL = {
  "database:connectionString": "postgres://db/app",
  "api:baseUrl": "https://api.example.com",
  "logging:providers:0:type": "console",
};

test("ConfigurationManager.bind(appConfigSchema) returns the typed configuration with the documented defaults", async () => {
  const config = await fromMemory(MINIMAL);
  const app: AppConfig = config.bind(appConfigSchema);
  assert.deepEqual(app, {
    database: {
      connectionString: "postgres://db/app",
      timeout: 30000,
      poolSize: 10,
    },
    api: {
      baseUrl: "https://api.example.com",
      timeout: 5000,
      retryAttempts: 3,
    },
    logging: { level: "info", providers: [{ type: "console", options: {} }] },
  });
  // The options default is a fresh object each time.
  const again = config.bind(appConfigSchema);
  assert.notEqual(
    again.logging.providers[0].options,
    app.logging.providers[0].options,
  );
});

test("ConfigurationManager.bind() coerces strings by the schema's type", async () => {
  const config = await fromMemory({
    ...MINIMAL,
    "database:timeout": "5000",
    "database:poolSize": " 42 ",
    "database:enableLogging": "false",
    "api:timeout": "1e3",
    "api:retryAttempts": "0",
    "api:enableCaching": "1",
    "features:enableAnalytics": "TRUE",
    "features:enableInternationalization": "0",
    "features:maxFileUploadSize": "",
    "logging:providers:0:options": '{"colorize": true}',
  });
  const app = config.bind(appConfigSchema);
  assert.equal(app.database.timeout, 5000);
  assert.equal(app.database.poolSize, 42);
  assert.equal(app.database.enableLogging, false); // never Boolean("false")
  assert.equal(app.api.timeout, 1000);
  assert.equal(app.api.retryAttempts, 0);
  assert.equal(app.api.enableCaching, true);
  assert.equal(app.features?.enableAnalytics, true);
  assert.equal(app.features?.enableInternationalization, false);
  // "" counts as not set for a number: the optional key stays absent.
  assert.equal(app.features?.maxFileUploadSize, undefined);
  assert.deepEqual(app.logging.providers[0].options, { colorize: true });
  // Without a schema, getValue returns the strings as the source holds them.
  assert.equal(config.getValue("database:enableLogging"), "false");
  assert.equal(config.getValue("database:poolSize"), " 42 ");
});

test("ConfigurationManager.bind(): an empty string for a number with a default takes the default", async () => {
  const config = await fromMemory({ ...MINIMAL, "api:timeout": "" });
  assert.equal(config.bind(appConfigSchema).api.timeout, 5000);
});

test("ConfigurationManager.bind(): JSON text in a value becomes an array or object", async () => {
  const p = uniquePrefix();
  await withEnv({
    [`${p}_LOGGING__PROVIDERS`]: '[{"type":"file","options":{"maxFiles":5}}]',
  }, async () => {
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({
        "database:connectionString": "x",
        "api:baseUrl": "https://api.example.com",
      }),
    );
    config.addEnvironmentVariables(p);
    await config.loadConfiguration();
    assert.deepEqual(config.bind(appConfigSchema).logging.providers, [
      { type: "file", options: { maxFiles: 5 } },
    ]);
  });
});

test("ConfigurationManager.bind() matches object keys ignoring case", async () => {
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", {
      Database: { ConnectionString: "x", PoolSize: 3 },
      API: { BaseUrl: "https://api.example.com" },
      Logging: { Providers: [{ Type: "console" }] },
    });
    const config = new ConfigurationManager();
    await config.addJsonFile(file);
    await config.loadConfiguration();
    const app = config.bind(appConfigSchema);
    assert.equal(app.database.poolSize, 3);
    assert.equal(app.api.baseUrl, "https://api.example.com");
    assert.equal(app.logging.providers[0].type, "console");
  });
});

test("ConfigurationManager.bind() collects every failure, each naming the key and the source", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const file = await dir.write("appsettings.json", {
      api: { baseUrl: "not a url", retryAttempts: 11 },
      logging: { level: "verbose", providers: [] },
    });
    await withEnv({
      [`${p}_API__TIMEOUT`]: "70000",
      [`${p}_DATABASE__POOL_SIZE`]: "many",
      [`${p}_DATABASE__ENABLE_LOGGING`]: "yes",
    }, async () => {
      const config = new ConfigurationManager();
      await config.addJsonFile(file);
      config.addEnvironmentVariables(p);
      config.addProvider(new MemoryProvider({ "database:timeout": "10" }));
      await config.loadConfiguration();
      assert.deepEqual(failuresOf(() => config.bind(appConfigSchema)), [
        `database:connectionString: is required (not set by any source; set ${p}_DATABASE__CONNECTION_STRING, or "database": { "connectionString": … } in ${file})`,
        "database:timeout: must be at least 1000 (from memory)",
        `database:poolSize: must be a number, got "many" (from env ${p}_DATABASE__POOL_SIZE)`,
        `database:enableLogging: must be a boolean, got "yes" (from env ${p}_DATABASE__ENABLE_LOGGING)`,
        `api:baseUrl: must be a URL, got "not a url" (from ${file})`,
        `api:timeout: must be at most 60000 (from env ${p}_API__TIMEOUT)`,
        `api:retryAttempts: must be at most 10 (from ${file})`,
        `Invalid log level: verbose (allowed: debug, info, warning, error; from ${file})`,
        `logging:providers: must have at least 1 item (from ${file})`,
      ]);
    });
  });
});

test("ConfigurationManager.bind() refuses a number too large to be finite, naming the key and the source", async () => {
  const p = uniquePrefix();
  await withEnv({
    [`${p}_LIMITS__RATE`]: "1e999",
    [`${p}_LIMITS__FLOOR`]: " -1E400 ",
    [`${p}_LIMITS__SMALL`]: "1e-999",
  }, async () => {
    const config = new ConfigurationManager();
    config.addEnvironmentVariables(p);
    await config.loadConfiguration();
    const schema = v.object({
      limits: v.object({
        rate: v.number(),
        floor: v.optional(v.number()),
        small: v.number(),
      }),
    });
    assert.deepEqual(failuresOf(() => config.bind(schema)), [
      `limits:rate: must be a number, got "1e999" (from env ${p}_LIMITS__RATE)`,
      `limits:floor: must be a number, got " -1E400 " (from env ${p}_LIMITS__FLOOR)`,
    ]);
  });
  // Kit's own number keys are read the same way: the analytics provider's
  // interval is refused when the configuration is checked, not later.
  const config = await fromMemory({
    ...MINIMAL,
    "analytics:flushInterval": "1e999",
  });
  assert.deepEqual(failuresOf(() => config.bind(appConfigSchema)), [
    'analytics:flushInterval: must be a number, got "1e999" (from memory)',
  ]);
  const ok = await fromMemory({ ...MINIMAL, "analytics:flushInterval": "1e3" });
  assert.equal(ok.bind(appConfigSchema).analytics?.flushInterval, 1000);
});

test("ConfigurationManager.bind(): a missing required object is reported as the required keys inside it", async () => {
  const config = await fromMemory({ "api:baseUrl": "https://x.example" });
  // Memory is the only source: there is no variable or file to name.
  assert.deepEqual(failuresOf(() => config.bind(appConfigSchema)), [
    "database:connectionString: is required (not set by any source)",
    "logging:providers: is required (not set by any source)",
  ]);
});

test("ConfigurationManager.bind(schema, section) binds one section and prefixes failure keys", async () => {
  const config = await fromMemory({
    "cache:redis:host": "localhost",
    "cache:redis:port": "6379",
    "cache:redis:database": "x",
  });
  const redis = config.bind(
    v.object({
      host: v.string(),
      port: v.number(),
      keyPrefix: v.optional(v.string(), "kit:"),
    }),
    "Cache:Redis",
  );
  assert.deepEqual(redis, { host: "localhost", port: 6379, keyPrefix: "kit:" });
  assert.deepEqual(
    failuresOf(() =>
      config.bind(v.object({ database: v.number() }), "cache:redis")
    ),
    ['cache:redis:database: must be a number, got "x" (from memory)'],
  );
});

test("ConfigurationManager.bind() coerces inside unions, picklists of numbers, tuples and records", async () => {
  const config = await fromMemory({
    "a:port": "8080",
    "a:mode": "2",
    "a:pair": '["1", "true"]',
    "a:limits:x": "5",
    "a:either": "false",
  });
  const result = config.bind(
    v.object({
      port: v.union([v.number(), v.literal("auto")]),
      mode: v.picklist([1, 2, 3]),
      pair: v.tuple([v.number(), v.boolean()]),
      limits: v.record(v.string(), v.number()),
      either: v.nullable(v.boolean()),
    }),
    "a",
  );
  assert.deepEqual(result, {
    port: 8080,
    mode: 2,
    pair: [1, true],
    limits: { x: 5 },
    either: false,
  });
});

test("ConfigurationManager.bind() accepts any Standard Schema (validation without coercion)", async () => {
  const config = await fromMemory({ "a:b": "text" });
  const schema: ConfigurationSchema<unknown, { b: string }> = {
    "~standard": {
      version: 1,
      vendor: "hand-made",
      validate(value: unknown) {
        const b = (value as { b?: unknown })?.b;
        return typeof b === "string" && b.length > 10
          ? { value: { b } }
          : { issues: [{ message: "too short", path: [{ key: "b" }] }] };
      },
    },
  };
  assert.deepEqual(failuresOf(() => config.bind(schema, "a")), [
    "a:b: too short (from memory)",
  ]);
});

test("ConfigurationManager({ schema }) validates on load and getValue returns typed values", async () => {
  const config = new ConfigurationManager({ schema: appConfigSchema });
  config.addProvider(
    new MemoryProvider({
      ...MINIMAL,
      "database:poolSize": "20",
      "custom:thing": "kept",
    }),
  );
  await config.loadConfiguration();
  assert.equal(config.getValue("database:poolSize"), 20);
  assert.equal(config.getValue("api:retryAttempts"), 3);
  assert.equal(config.getSource("api:retryAttempts"), "schema default");
  assert.equal(config.getValue<string>("custom:thing"), "kept");
  assert.equal(config.getSource("database:poolSize"), "memory");

  const invalid = new ConfigurationManager({ schema: appConfigSchema });
  invalid.addProvider(new MemoryProvider({ ...MINIMAL, "api:timeout": "1" }));
  await assert.rejects(invalid.loadConfiguration(), {
    name: "ConfigurationValidationError",
    message:
      "Configuration validation failed:\napi:timeout: must be at least 1000 (from memory)",
  });
  assert.equal(invalid.loaded, false);
});

test("validateConfiguration() passes a valid configuration and applies the default timeout of 5000", async () => {
  const config = await fromMemory({
    "database:connectionString": "x",
    "api:baseUrl": "https://api.example.com",
    "logging:level": "warning",
  });
  assert.doesNotThrow(() => validateConfiguration(config));
});

test("validateConfiguration() reports every startup rule (required keys, log level, API timeout) with its exact text, all in one error", async () => {
  const config = await fromMemory({
    "logging:level": "loud",
    "api:timeout": "999",
  });
  assert.deepEqual(failuresOf(() => validateConfiguration(config)), [
    "Missing required configuration: database:connectionString",
    "Missing required configuration: api:baseUrl",
    "Invalid log level: loud (allowed: debug, info, warning, error; from memory)",
    "API timeout must be between 1000 and 60000ms: 999",
  ]);
});

test("validateConfiguration(): the timeout bounds are inclusive and non-numbers fail", async () => {
  const base = {
    "database:connectionString": "x",
    "api:baseUrl": "https://api.example.com",
    "logging:level": "debug",
  };
  for (const ok of ["1000", "60000", " 30000 "]) {
    const config = await fromMemory({ ...base, "api:timeout": ok });
    assert.doesNotThrow(() => validateConfiguration(config), ok);
  }
  for (const bad of ["60001", "abc", ""]) {
    const config = await fromMemory({ ...base, "api:timeout": bad });
    assert.deepEqual(failuresOf(() => validateConfiguration(config)), [
      `API timeout must be between 1000 and 60000ms: ${bad}`,
    ]);
  }
});

test("validateConfiguration(): a missing logging:level is reported as missing, not as invalid", async () => {
  const config = await fromMemory({
    "database:connectionString": "x",
    "api:baseUrl": "https://api.example.com",
  });
  assert.deepEqual(failuresOf(() => validateConfiguration(config)), [
    "Missing required configuration: logging:level",
  ]);
});

test("validateConfiguration() works on any IConfiguration", () => {
  const values = new Map<string, unknown>([
    ["database:connectionString", "x"],
    ["api:baseUrl", "https://api.example.com"],
    ["logging:level", "info"],
    ["api:timeout", 70000],
  ]);
  const config = {
    hasValue: (key: string) => values.has(key),
    getValue: <T>(key: string, fallback?: T): T =>
      (values.has(key) ? values.get(key) : fallback) as T,
  };
  assert.deepEqual(failuresOf(() => validateConfiguration(config)), [
    "API timeout must be between 1000 and 60000ms: 70000",
  ]);
});
