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

test("a required application section that no source sets is reported like Kit's", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    const { upstream: _, ...withoutUpstream } = BASE;
    await dir.write("appsettings.json", withoutUpstream);
    const error = await createConfiguration({
      basePath: dir.path,
      envPrefix: p,
      environment: "test",
      schema: appSchema,
    }).then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof ConfigurationValidationError);
    assert.deepEqual(error.failures, [
      "upstream: is required (not set by any source)",
    ]);
  });
});
