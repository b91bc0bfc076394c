// Kit's own sections in the schema: every key a Kit module reads (cache,
// localization, analytics, telemetry, logging, server, host) is part of
// appConfigSchema as an optional section, so a bad value fails
// createConfiguration with the key and the variable that set it, next to
// every other failure; an application schema built from
// appConfigSchema.entries gets the same. The modules' fromConfiguration
// still read the values (coerced by the schema or not).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as v from "valibot";
import {
  appConfigSchema,
  ConfigurationManager,
  ConfigurationValidationError,
  createConfiguration,
  kitConfigurationSections,
  MemoryProvider,
} from "../../config/mod.ts";
import { HttpClient } from "../../http/mod.ts";
import {
  HttpLocalizationLoader,
  LocalizationCache,
  LocalizationManager,
} from "../../localization/mod.ts";
import { RemoteStoreCacheProvider } from "../../caching/mod.ts";
import {
  CustomAnalyticsProvider,
  ExternalAnalyticsProvider,
} from "../../analytics/mod.ts";
import { uniquePrefix, withEnv, withTempDir } from "./_helpers.ts";

const BASE = {
  database: { connectionString: "postgres://db/app" },
  api: { baseUrl: "https://api.example.com" },
  logging: { providers: [{ type: "console" }] },
};

// The standard variables that would otherwise reach these keys from the
// parent's environment.
const UNSET = {
  REDIS_HOST: undefined,
  REDIS_PORT: undefined,
  REDIS_PASSWORD: undefined,
  GOOGLE_ANALYTICS_ID: undefined,
  ANALYTICS_API_KEY: undefined,
  API_TIMEOUT: undefined,
  LOG_LEVEL: undefined,
};

async function failureOf(
  env: (prefix: string) => Record<string, string>,
  schema: Parameters<typeof createConfiguration>[0] extends infer O
    ? O extends { schema?: infer S } ? S : never
    : never,
  settings: unknown = BASE,
): Promise<{ prefix: string; lines: readonly string[] }> {
  const prefix = uniquePrefix();
  return await withTempDir(async (dir) => {
    await dir.write("appsettings.json", settings);
    return await withEnv({ ...UNSET, ...env(prefix) }, async () => {
      const error = await createConfiguration({
        basePath: dir.path,
        envPrefix: prefix,
        environment: "test",
        schema,
      }).then(
        async (config) => {
          await config.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      assert.ok(
        error instanceof ConfigurationValidationError,
        `expected a ConfigurationValidationError, got ${String(error)}`,
      );
      return { prefix, lines: error.failures };
    });
  });
}

const BAD = (p: string): Record<string, string> => ({
  [`${p}_CACHE__REDIS__PORT`]: "sixty",
  [`${p}_LOCALIZATION__CACHE__MAX_SIZE`]: "0",
  [`${p}_ANALYTICS__BATCH_SIZE`]: "many",
  [`${p}_SERVER__PORT`]: "70000",
  [`${p}_API__TIMEOUT`]: "70000",
});

function assertAllNamed(prefix: string, lines: readonly string[]): void {
  const expect = (key: string, variable: string, problem: RegExp): void => {
    const line = lines.find((line) => line.startsWith(`${key}: `));
    assert.ok(line, `no failure line for ${key} in:\n${lines.join("\n")}`);
    assert.match(line, problem);
    assert.ok(
      line.includes(`${prefix}_${variable}`),
      `${key} does not name ${prefix}_${variable}: ${line}`,
    );
  };
  expect("cache:redis:port", "CACHE__REDIS__PORT", /must be a number/);
  expect(
    "localization:cache:maxSize",
    "LOCALIZATION__CACHE__MAX_SIZE",
    /must be at least 1/,
  );
  expect("analytics:batchSize", "ANALYTICS__BATCH_SIZE", /must be a number/);
  expect("server:port", "SERVER__PORT", /must be at most 65535/);
  expect("api:timeout", "API__TIMEOUT", /must be at most 60000/);
}

test("a bad value in Kit's own sections fails createConfiguration with appConfigSchema, naming key and variable, all in one error", async () => {
  const { prefix, lines } = await failureOf(BAD, appConfigSchema);
  assertAllNamed(prefix, lines);
  assert.equal(lines.length, 5, lines.join("\n"));
});

test("a schema extended from appConfigSchema.entries checks Kit's sections as well", async () => {
  const schema = v.object({
    ...appConfigSchema.entries,
    upstream: v.object({ url: v.pipe(v.string(), v.url()) }),
  });
  const { prefix, lines } = await failureOf(BAD, schema, {
    ...BASE,
    upstream: { url: "not a url" },
  });
  assertAllNamed(prefix, lines);
  assert.ok(
    lines.some((line) => line.startsWith("upstream:url: ")),
    lines.join("\n"),
  );
  assert.equal(lines.length, 6, lines.join("\n"));
});

test("strings from the environment are coerced in Kit's sections and the modules read them", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", BASE);
    await withEnv({
      ...UNSET,
      [`${p}_CACHE__REDIS__PORT`]: "6380",
      [`${p}_CACHE__REDIS__DATABASE`]: "2",
      [`${p}_CACHE__REDIS__REQUIRED`]: "true",
      [`${p}_LOCALIZATION__DEFAULT_CULTURE`]: "fr",
      [`${p}_LOCALIZATION__RESOURCE_URL`]: "/locales/{culture}.json",
      [`${p}_LOCALIZATION__TIMEOUT`]: "1500",
      [`${p}_LOCALIZATION__CACHE__MAX_SIZE`]: "20",
      [`${p}_ANALYTICS__ENDPOINT`]: "http://127.0.0.1:9/events",
      [`${p}_ANALYTICS__BATCH_SIZE`]: "7",
      [`${p}_ANALYTICS__TRACKING_ID`]: "G-TEST",
      [`${p}_ANALYTICS__API_SECRET`]: "test-secret",
      [`${p}_ANALYTICS__ANONYMIZE_IP`]: "false",
      [`${p}_API__TIMEOUT`]: "2000",
      [`${p}_SERVER__PORT`]: "8080",
    }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        schema: appConfigSchema,
      });
      try {
        assert.equal(config.getValue("cache:redis:port"), 6380);
        assert.equal(config.getValue("cache:redis:required"), true);
        assert.equal(config.getValue("analytics:anonymizeIp"), false);
        assert.equal(config.getValue("server:port"), 8080);
        const cache = RemoteStoreCacheProvider.fromConfiguration(config);
        assert.equal(cache.address, "localhost:6380");
        await cache.dispose();
        const http = HttpClient.fromConfiguration(config);
        assert.equal(http.options.timeout, 2000);
        const localization = LocalizationManager.fromConfiguration(config);
        assert.equal(localization.culture, "fr");
        const custom = CustomAnalyticsProvider.fromConfiguration(config);
        assert.equal(custom.endpoint, "http://127.0.0.1:9/events");
        await custom.dispose();
        const external = ExternalAnalyticsProvider.fromConfiguration(config);
        await external.dispose();
      } finally {
        await config.close();
      }
    });
  });
});

test("every key Kit reads is declared once, with its type", () => {
  const s = kitConfigurationSections;
  assert.equal(s.cache.redis.port.type, "integer");
  assert.equal(s.cache.redis.required.type, "boolean");
  assert.equal(s.localization.cache.ttl.min, 0);
  assert.equal(s.analytics.flushInterval.type, "number");
  assert.equal(s.telemetry.serviceName.type, "string");
  assert.equal(s.logging.filePath.type, "string");
  assert.equal(s.server.maxBodySize.default, 1_048_576);
  assert.equal(s.host.shutdownTimeout.min, 0);
  assert.deepEqual(
    [s.api.timeout.min, s.api.timeout.max, s.api.timeout.default],
    [1000, 60000, 5000],
  );
  assert.equal(s.server.port.max, 65535);
});

test("the modules' fromConfiguration still check a value the schema never saw", async () => {
  const config = new ConfigurationManager();
  config.addProvider(
    new MemoryProvider({
      "api:baseUrl": "https://api.example.com",
      "api:timeout": "70000",
    }),
  );
  await config.loadConfiguration();
  assert.throws(
    () => HttpClient.fromConfiguration(config),
    /api:timeout must be a whole number of milliseconds from 1000 to 60000: "70000"/,
  );
});

// The constructors check the options given in code with bounds of their own;
// these tests keep them and the declarations the same, so a value the schema
// accepts is one the constructor accepts.
test("the declared bounds are the ones the modules' constructors enforce", async () => {
  const { cache, localization, analytics } = kitConfigurationSections;
  const redis = cache.redis;
  for (const port of [redis.port.min, redis.port.max]) {
    await new RemoteStoreCacheProvider({ port }).dispose();
  }
  for (const port of [redis.port.min - 1, redis.port.max + 1]) {
    assert.throws(() => new RemoteStoreCacheProvider({ port }), RangeError);
  }
  await new RemoteStoreCacheProvider({ database: redis.database.min })
    .dispose();
  assert.throws(
    () => new RemoteStoreCacheProvider({ database: redis.database.min - 1 }),
    RangeError,
  );

  const sizes = localization.cache;
  new LocalizationCache({ maxSize: sizes.maxSize.min, ttl: sizes.ttl.min });
  assert.throws(() =>
    new LocalizationCache({ maxSize: sizes.maxSize.min - 1 })
  );
  assert.throws(() => new LocalizationCache({ ttl: sizes.ttl.min - 1 }));
  new HttpLocalizationLoader("/{culture}.json", {
    timeout: localization.timeout.min,
  });
  assert.throws(() =>
    new HttpLocalizationLoader("/{culture}.json", {
      timeout: localization.timeout.min - 1,
    })
  );

  const endpoint = "http://127.0.0.1:9/events";
  for (const name of ["batchSize", "maxQueueSize", "flushInterval"] as const) {
    const min = analytics[name].min;
    await new CustomAnalyticsProvider({ endpoint, [name]: min }).dispose();
    assert.throws(
      () => new CustomAnalyticsProvider({ endpoint, [name]: min - 1 }),
      new RegExp(`${name} must be`),
    );
  }
});

test("diagnose() knows every declared key: a near-miss of cache:redis:required gets the right name", async () => {
  const p = uniquePrefix();
  await withTempDir(async (dir) => {
    await dir.write("appsettings.json", BASE);
    await withEnv({ [`${p}_CACHE__REDIS_REQUIRED`]: "true" }, async () => {
      const config = await createConfiguration({
        basePath: dir.path,
        envPrefix: p,
        environment: "test",
        // No schema: the keys Kit reads are known all the same.
        validate: false,
      });
      try {
        const found = config.diagnose()
          .filter((finding) => finding.code === "single-underscore")
          .map(({ variable, suggestion, key }) => ({
            variable,
            suggestion,
            key,
          }));
        assert.deepEqual(found, [{
          variable: `${p}_CACHE__REDIS_REQUIRED`,
          suggestion: `${p}_CACHE__REDIS__REQUIRED`,
          key: "cache:redis:required",
        }]);
      } finally {
        await config.close();
      }
    });
  });
});
