// Configuration benchmarks: ConfigurationManager.getValue against a Map.get
// floor, node-config's get and convict's get, in the same run; getValue
// typed by a schema against the untyped call of the same manager (the
// types must cost nothing at run time); and loadConfiguration of two files
// plus 50 environment variables.
//
//   deno bench -A --config deno.dev.json bench/config_bench.ts
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import convict from "convict";
import * as v from "valibot";
import { appConfigSchema, ConfigurationManager } from "../config/mod.ts";

const settings = {
  database: {
    connectionString: "postgres://db/app",
    timeout: 30000,
    poolSize: 10,
  },
  api: { baseUrl: "https://api.example.com", timeout: 5000, retryAttempts: 3 },
  cache: { redis: { host: "localhost", port: 6379, keyPrefix: "kit:" } },
  logging: { level: "info", providers: [{ type: "console", options: {} }] },
  features: { enableAnalytics: true, maxFileUploadSize: 1048576 },
};
const overrides = {
  database: { timeout: 10000 },
  cache: { redis: { host: "cache.internal" } },
};

// Real files in a temp directory, read by every library.
const dir = mkdtempSync(join(tmpdir(), "kit-config-bench-"));
const base = join(dir, "appsettings.json");
const production = join(dir, "appsettings.production.json");
writeFileSync(base, JSON.stringify(settings, null, 2));
writeFileSync(production, JSON.stringify(overrides, null, 2));
// node-config reads NODE_CONFIG_DIR when it is first imported.
writeFileSync(join(dir, "default.json"), JSON.stringify(settings, null, 2));
writeFileSync(join(dir, "production.json"), JSON.stringify(overrides, null, 2));
process.env.NODE_CONFIG_DIR = dir;
process.env.NODE_CONFIG_ENV = "production";
process.env.SUPPRESS_NO_CONFIG_WARNING = "1";
const nodeConfig = (await import("config")).default as {
  get<T>(key: string): T;
};

// 50 prefixed environment variables for the load benchmark.
for (let i = 0; i < 50; i++) {
  process.env[`KITBENCH_SECTION${i % 10}__KEY${i}`] = `value ${i}`;
}

const KEY = "cache:redis:host";

const kit = new ConfigurationManager();
await kit.addJsonFile(base);
await kit.addJsonFile(production);
await kit.loadConfiguration();
if (kit.getValue(KEY) !== "cache.internal") throw new Error("kit setup");

// The same files under Kit's schema plus a section of the application's.
const typedKit = new ConfigurationManager({
  schema: v.object({
    ...appConfigSchema.entries,
    cache: v.object({
      redis: v.object({ host: v.string(), port: v.number() }),
    }),
  }),
});
await typedKit.addJsonFile(base);
await typedKit.addJsonFile(production);
await typedKit.loadConfiguration();
if (typedKit.getValue("database:timeout") !== 10000) {
  throw new Error("typed kit setup");
}

const floor = new Map<string, unknown>();
for (const entry of kit.explain()) floor.set(entry.key, entry.value);
if (floor.get(KEY) !== "cache.internal") throw new Error("map setup");

if (nodeConfig.get<string>("cache.redis.host") !== "cache.internal") {
  throw new Error("node-config setup");
}

function convictSchema(withEnv: boolean) {
  const schema: Record<string, unknown> = {
    database: {
      connectionString: { default: "", format: String },
      timeout: { default: 30000, format: Number },
      poolSize: { default: 10, format: Number },
    },
    api: {
      baseUrl: { default: "", format: String },
      timeout: { default: 5000, format: Number },
      retryAttempts: { default: 3, format: Number },
    },
    cache: {
      redis: {
        host: { default: "localhost", format: String },
        port: { default: 6379, format: Number },
        keyPrefix: { default: "", format: String },
      },
    },
    logging: {
      level: { default: "info", format: String },
      providers: { default: [], format: Array },
    },
    features: {
      enableAnalytics: { default: false, format: Boolean },
      maxFileUploadSize: { default: 0, format: Number },
    },
  };
  if (withEnv) {
    for (let i = 0; i < 50; i++) {
      const section = `section${i % 10}`;
      const group = (schema[section] ??= {}) as Record<string, unknown>;
      group[`key${i}`] = {
        default: "",
        format: String,
        env: `KITBENCH_SECTION${i % 10}__KEY${i}`,
      };
    }
  }
  return schema;
}

const convictConfig = convict(convictSchema(false));
convictConfig.loadFile([base, production]);
convictConfig.validate();
if (convictConfig.get("cache.redis.host" as never) !== "cache.internal") {
  throw new Error("convict setup");
}

let sink: unknown;

Deno.bench({
  name: "Map.get (floor)",
  group: "getValue of a present nested key",
  baseline: true,
  fn() {
    sink = floor.get(KEY);
  },
});

Deno.bench({
  name: "Kit ConfigurationManager.getValue",
  group: "getValue of a present nested key",
  fn() {
    sink = kit.getValue(KEY);
  },
});

Deno.bench({
  name: "Kit getValue<number>(key), untyped call",
  group: "getValue typed by the schema vs untyped",
  baseline: true,
  fn() {
    sink = typedKit.getValue<number>("database:timeout");
  },
});

Deno.bench({
  name: "Kit getValue(path), typed by the schema",
  group: "getValue typed by the schema vs untyped",
  fn() {
    sink = typedKit.getValue("database:timeout");
  },
});

Deno.bench({
  name: "Kit getValue, other letter case",
  group: "getValue of a present nested key",
  fn() {
    sink = kit.getValue("Cache:Redis:Host");
  },
});

Deno.bench({
  name: "node-config get",
  group: "getValue of a present nested key",
  fn() {
    sink = nodeConfig.get("cache.redis.host");
  },
});

Deno.bench({
  name: "convict get",
  group: "getValue of a present nested key",
  fn() {
    sink = convictConfig.get("cache.redis.host" as never);
  },
});

Deno.bench({
  name: "convict load: two files + 50 env variables",
  group: "load two files + 50 environment variables",
  baseline: true,
  fn() {
    const config = convict(convictSchema(true));
    config.loadFile([base, production]);
    config.validate();
    sink = config;
  },
});

Deno.bench({
  name: "Kit loadConfiguration: two files + 50 env variables",
  group: "load two files + 50 environment variables",
  async fn() {
    const config = new ConfigurationManager();
    await config.addJsonFile(base);
    await config.addJsonFile(production);
    config.addEnvironmentVariables("KITBENCH");
    await config.loadConfiguration();
    sink = config;
  },
});

globalThis.addEventListener("unload", () => {
  if (sink === Symbol.for("never")) console.log(sink);
  rmSync(dir, { recursive: true, force: true });
});
