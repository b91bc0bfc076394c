// An application adds its own sections to Kit's schema by spreading
// `appConfigSchema.entries` into a new v.object, with no cast and without
// restating Kit's sections; createConfiguration then treats the added
// sections exactly as Kit's own: strings from the environment coerced,
// defaults applied, every bad value named with its source in the one
// validation error. `deno check` of this file is the type half of the test.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  type AppConfig,
  appConfigSchema,
  ConfigurationValidationError,
  createConfiguration,
} from "../../config/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
function assertType<T extends true>(_proof?: T): void {}

const appSchema = v.object({
  ...appConfigSchema.entries,
  upstream: v.object({
    url: v.pipe(v.string(), v.url()),
    timeout: v.optional(v.pipe(v.number(), v.minValue(100)), 2000),
    retry: v.optional(v.boolean(), false),
  }),
});

type App = v.InferOutput<typeof appSchema>;

const BASE = {
  database: { connectionString: "postgres://db/app" },
  api: { baseUrl: "https://api.example.com" },
  logging: { providers: [{ type: "console" }] },
  upstream: { url: "https://upstream.example.com" },
};

test("appConfigSchema is typed as the valibot object schema: its entries spread with no cast", () => {
  assertType<Same<Omit<App, "upstream">, AppConfig>>();
  assertType<
    Same<App["upstream"], { url: string; timeout: number; retry: boolean }>
  >();
  assertType<Same<v.InferOutput<typeof appConfigSchema>, AppConfig>>();
  // valibot's own functions take it as it is.
  const parsed: AppConfig = v.parse(appConfigSchema, BASE);
  assert.equal(parsed.api.timeout, 5000);
  assert.equal(appConfigSchema.entries.database.type, "object");
  assert.deepEqual(Object.keys(appSchema.entries), [
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
    "upstream",
  ]);
});

test("createConfiguration({ schema }) coerces and defaults the application's own section as Kit's", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", BASE);
    await withEnv({
      [`${p}_UPSTREAM__TIMEOUT`]: "2500",
      [`${p}_UPSTREAM__RETRY`]: "true",
      [`${p}_DATABASE__TIMEOUT`]: "4000",
      [`${p}_LOGGING__LEVEL`]: "WARN",
    }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema: appSchema,
      });
      try {
        assert.equal(config.getValue("upstream:timeout"), 2500);
        assert.equal(config.getValue("upstream:retry"), true);
        assert.equal(
          config.getValue("upstream:url"),
          "https://upstream.example.com",
        );
        assert.equal(config.getValue("database:timeout"), 4000);
        assert.equal(config.getValue("database:poolSize"), 10);
        assert.equal(config.getValue("logging:level"), "warning");
        assert.equal(
          config.getSource("upstream:timeout"),
          `env ${p}_UPSTREAM__TIMEOUT`,
        );
        const bound: App = config.bind(appSchema);
        assert.deepEqual(bound.upstream, {
          url: "https://upstream.example.com",
          timeout: 2500,
          retry: true,
        });
      } finally {
        await config.close();
      }
    });
  });
});

test("createConfiguration({ schema }) names the source of every bad value, the application's and Kit's, in one error", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      ...BASE,
      upstream: { url: "not a url" },
    });
    await withEnv({
      [`${p}_UPSTREAM__TIMEOUT`]: "fast",
      [`${p}_UPSTREAM__RETRY`]: "maybe",
      [`${p}_API__TIMEOUT`]: "70000",
    }, async () => {
      const error = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema: appSchema,
      }).then(() => undefined, (error: unknown) => error);
      assert.ok(error instanceof ConfigurationValidationError);
      assert.match(error.message, /^Configuration validation failed:/);
      assert.deepEqual(error.failures, [
        `api:timeout: must be at most 60000 (from env ${p}_API__TIMEOUT)`,
        `upstream:url: must be a URL, got "not a url" (from appsettings.json)`,
        `upstream:timeout: must be a number, got "fast" (from env ${p}_UPSTREAM__TIMEOUT)`,
        `upstream:retry: must be a boolean, got "maybe" (from env ${p}_UPSTREAM__RETRY)`,
      ]);
    });
  });
});

test("a required application section that no source sets names each required key inside it, with the variable that sets it", async () => {
  const p = uniquePrefix();
  const schema = v.object({
    ...appConfigSchema.entries,
    upstream: v.object({
      baseUrl: v.pipe(v.string(), v.url()),
      apiKey: v.string(),
      timeout: v.optional(v.number(), 2000),
      region: v.nullish(v.string()),
      mode: v.fallback(v.picklist(["fast", "safe"]), "safe"),
      auth: v.object({
        token: v.string(),
        scheme: v.optional(v.string(), "Bearer"),
      }),
      retry: v.object({ attempts: v.optional(v.number(), 3) }),
      hosts: v.array(v.string()),
    }),
  });
  await withTempDir(async (dir) => {
    const { upstream: _, ...withoutUpstream } = BASE;
    await dir.write("appsettings.json", withoutUpstream);
    const error = await createConfiguration({
      basePath: dir.path,
      envPrefix: p,
      environment: "test",
      schema,
    }).then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof ConfigurationValidationError);
    // One line per required key, in the schema's order, as a missing key
    // inside a present section reads; keys with a default, a fallback or
    // that may be left out are not named. An array or an object with no
    // required key of its own is named alone: no one variable sets it.
    assert.deepEqual(error.failures, [
      `upstream:baseUrl: is required (not set by any source; set ${p}_UPSTREAM__BASE_URL, or "upstream": { "baseUrl": … } in appsettings.json)`,
      `upstream:apiKey: is required (not set by any source; set ${p}_UPSTREAM__API_KEY, or "upstream": { "apiKey": … } in appsettings.json)`,
      `upstream:auth:token: is required (not set by any source; set ${p}_UPSTREAM__AUTH__TOKEN, or "upstream": { "auth": { "token": … } } in appsettings.json)`,
      "upstream:retry: is required (not set by any source)",
      "upstream:hosts: is required (not set by any source)",
    ]);
    assert.equal(
      error.message,
      ["Configuration validation failed:", ...error.failures].join("\n"),
    );
  });
});

test("a missing object inside a present section names its required keys too", async () => {
  const p = uniquePrefix();
  const schema = v.object({
    upstream: v.object({
      baseUrl: v.string(),
      auth: v.object({ token: v.string(), user: v.string() }),
    }),
  });
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", {
      upstream: { baseUrl: "https://up.example" },
    });
    await withEnv({ [`${p}_UPSTREAM__AUTH_TOKEN`]: "t0ken" }, async () => {
      const error = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema,
      }).then(() => undefined, (error: unknown) => error);
      assert.ok(error instanceof ConfigurationValidationError);
      // The near-miss variable is named on the line of the key it meant.
      assert.deepEqual(error.failures, [
        `upstream:auth:token: is required (not set by any source; set ${p}_UPSTREAM__AUTH__TOKEN, or "upstream": { "auth": { "token": … } } in appsettings.json); ${p}_UPSTREAM__AUTH_TOKEN is set; did you mean ${p}_UPSTREAM__AUTH__TOKEN?`,
        `upstream:auth:user: is required (not set by any source; set ${p}_UPSTREAM__AUTH__USER, or "upstream": { "auth": { "user": … } } in appsettings.json)`,
      ]);
    });
  });
});
