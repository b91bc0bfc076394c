// The compile-time half of typed paths: `deno check` of this file is the
// test. A manager created with a schema types getValue by the schema's
// paths; a path the schema does not describe, or the value put where its
// type does not fit, is a compile error (each `@ts-expect-error` below must
// be needed, or the check fails); a type argument or a default keeps
// dynamic keys working; a manager without a schema is untyped, as before,
// and a typed manager goes wherever a plain one is expected.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  type AppConfig,
  appConfigSchema,
  ConfigurationManager,
  type ConfigurationPath,
  type ConfigurationPathValue,
  type createConfiguration,
  type IConfiguration,
  MemoryProvider,
} from "../../config/mod.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function assertType<T extends true>(_proof?: T): void {}

const schema = v.object({
  ...appConfigSchema.entries,
  upstream: v.object({
    url: v.pipe(v.string(), v.url()),
    timeout: v.optional(v.number(), 2000),
    tags: v.optional(v.array(v.string()), []),
  }),
});

// Only type-checked: never called.
function typedReads(
  config: ConfigurationManager<v.InferOutput<typeof schema>>,
) {
  const timeout: number = config.getValue("database:timeout");
  const url: string = config.getValue("upstream:url");
  const level: "debug" | "info" | "warning" | "error" = config.getValue(
    "logging:level",
  );
  const type: "console" | "file" | "remote" = config.getValue(
    "logging:providers:0:type",
  );
  const tag: string = config.getValue("upstream:tags:1");
  const analytics: boolean = config.getValue("features:enableAnalytics");
  const upload: number = config.getValue("features:maxFileUploadSize", 1024);
  const database: AppConfig["database"] = config.getValue("database");

  // @ts-expect-error a path the schema does not describe
  config.getValue("database:timeot");
  // @ts-expect-error a section the schema does not have
  config.getValue("upstreams:url");
  // @ts-expect-error a number is not a string
  const wrong: string = config.getValue("database:timeout");
  // @ts-expect-error nor does the variable's type make a misspelt path pass
  const typo: string = config.getValue("upstream:ulr");
  // @ts-expect-error with a default too, the value has the path's type
  const wrongWithDefault: string = config.getValue("api:timeout", 5000);

  // Dynamic keys: a type argument or a default says what to expect.
  const key = `custom:${String(timeout)}`;
  const dynamic: string = config.getValue<string>(key);
  const withDefault: number = config.getValue(key, 5);
  const explicit: number = config.getValue<number>("api:timeout");
  return [
    timeout,
    url,
    level,
    type,
    tag,
    analytics,
    upload,
    database,
    wrong,
    typo,
    wrongWithDefault,
    dynamic,
    withDefault,
    explicit,
  ];
}

function untypedReads(config: ConfigurationManager) {
  const anything: unknown = config.getValue("any:key");
  const typed: number = config.getValue<number>("any:key");
  const inferred: string = config.getValue("any:key");
  const withDefault: boolean = config.getValue("any:key", false);
  return [anything, typed, inferred, withDefault];
}

function asPlain(
  typed: ConfigurationManager<AppConfig>,
): [ConfigurationManager, IConfiguration, Promise<ConfigurationManager>] {
  return [typed, typed, Promise.resolve(typed)];
}

test("createConfiguration and the constructor type the manager by the schema, none without one", () => {
  assertType<
    Same<
      Awaited<ReturnType<typeof createConfiguration<AppConfig>>>,
      ConfigurationManager<AppConfig>
    >
  >();
  const typed = new ConfigurationManager({ schema });
  assertType<
    Same<typeof typed, ConfigurationManager<v.InferOutput<typeof schema>>>
  >();
  const plain = new ConfigurationManager();
  assertType<Same<typeof plain, ConfigurationManager>>();
  assertType<Same<ConfigurationPathValue<AppConfig, "api:baseUrl">, string>>();
  const path: ConfigurationPath<AppConfig> = "logging:providers:0:options";
  assert.equal(path, "logging:providers:0:options");
  assert.equal(typeof typedReads, "function");
  assert.equal(typeof untypedReads, "function");
  assert.equal(typeof asPlain, "function");
});

test("the typed reads return what the schema produced", async () => {
  const config = new ConfigurationManager({ schema });
  config.addProvider(
    new MemoryProvider({
      "database:connectionString": "postgres://db/app",
      "api:baseUrl": "https://api.example.com",
      "logging:providers:0:type": "console",
      "upstream:url": "https://upstream.example.com",
      "upstream:tags": '["a","b"]',
    }),
  );
  await config.loadConfiguration();
  const timeout: number = config.getValue("database:timeout");
  const tag: string = config.getValue("upstream:tags:1");
  const upload: number = config.getValue("features:maxFileUploadSize", 1024);
  const level: string = config.getValue("logging:level");
  assert.deepEqual([timeout, tag, upload, level], [30000, "b", 1024, "info"]);
  await config.close();
});
