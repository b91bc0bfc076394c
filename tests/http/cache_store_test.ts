// Where the HTTP cache of HttpClient.fromConfiguration keeps responses and
// what it tells: the application's `cache` service (a Kit CacheManager, also
// one created asynchronously) shared by the clients of the application, two
// clients over one real redis-server sharing entries through two
// CacheManagers as two instances would, the span attribute kit.http.cache and
// the debug lines under kit.http.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SpanKind } from "@opentelemetry/api";
import { createTestApplication } from "@vendor/kit-platform/testing";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import {
  CacheManager,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
} from "../../caching/mod.ts";
import { LoggerManager } from "../../logging/mod.ts";
import { type HttpCacheStore, HttpClient } from "../../http/mod.ts";
import { startTestServer, type TestServer } from "../_support/http_server.ts";
import { installOtelSdk } from "../_support/otel_sdk.ts";
import { redisSkip, startRedisServer } from "../caching/_redis_server.ts";

const SECRET = "s3cr3t-k3y-value";

async function cachingConfig(url: string): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  await config.addProvider(
    new MemoryProvider({ "api:baseUrl": url, "api:enableCaching": "true" }),
  );
  await config.loadConfiguration();
  return config;
}

/** A server whose answers are fresh for 10 minutes, counting them. */
function freshServer(): Promise<TestServer> {
  let n = 0;
  return startTestServer((_request, response) => {
    response.writeHead(200, {
      "content-type": "application/json",
      "cache-control": "max-age=600",
    });
    response.end(JSON.stringify({ n: ++n }));
  });
}

// A CacheManager is a store as it is (checked when this file type-checks).
const _storeType: (cache: CacheManager) => HttpCacheStore = (cache) => cache;

describe("HTTP cache: the application's cache service", () => {
  it("is shared by the clients of the application", async () => {
    await using server = await freshServer();
    const config = await cachingConfig(server.url);
    await using app = await createTestApplication<{ cache: CacheManager }>({
      configuration: () => config,
      services: (services) => {
        services.register(
          "cache",
          () => new CacheManager(new MemoryCacheProvider()),
        );
      },
    });
    const first = HttpClient.fromConfiguration(config);
    const second = HttpClient.fromConfiguration(config);
    assert.deepEqual(await first.get(`/items?key=${SECRET}`), { n: 1 });
    assert.deepEqual(await second.get(`/items?key=${SECRET}`), { n: 1 });
    assert.equal(server.requests.length, 1);
    assert.ok(app.services.get("cache").stats().hits >= 1);
  });

  it("is used once created when it is created asynchronously", async () => {
    await using server = await freshServer();
    const config = await cachingConfig(server.url);
    await using app = await createTestApplication<{
      cache: CacheManager;
      api: HttpClient;
    }>({
      configuration: () => config,
      services: (services) => {
        services.register("cache", async () => {
          await Promise.resolve();
          return new CacheManager(new MemoryCacheProvider());
        });
        services.register("api", () => HttpClient.fromConfiguration(config));
      },
    });
    const api = app.services.get("api");
    await api.get("/a");
    await api.get("/a");
    assert.equal(server.requests.length, 1);
    const cache = await app.services.getAsync("cache");
    assert.equal(cache.stats().hits, 1);
  });

  it("refuses a cache service that is not a store", async () => {
    const config = await cachingConfig("http://127.0.0.1:1");
    await using _app = await createTestApplication<{ cache: number }>({
      configuration: () => config,
      services: (services) => {
        services.register("cache", () => 42);
      },
    });
    assert.throws(() => HttpClient.fromConfiguration(config), {
      name: "TypeError",
      message:
        `The application's "cache" service is not a store (get, set and ` +
        "delete methods) the HTTP cache can use: pass options.cache to " +
        "HttpClient.fromConfiguration (a CacheManager), or enableCaching: false",
    });
  });
});

describe("HTTP cache over Redis", () => {
  it("shares entries between two instances, keys without the address", {
    skip: redisSkip,
  }, async () => {
    await using redis = await startRedisServer();
    await using server = await freshServer();
    const config = await cachingConfig(server.url);
    const instance = async (): Promise<CacheManager> => {
      const provider = new RemoteStoreCacheProvider({
        host: redis.host,
        port: redis.port,
      });
      assert.equal(await provider.connect(), true);
      return new CacheManager(provider);
    };
    const caches = [await instance(), await instance()];
    try {
      const [one, two] = caches.map((cache) =>
        HttpClient.fromConfiguration(config, { cache })
      );
      const path = `/orders?token=${SECRET}`;
      assert.deepEqual(await one.get(path), { n: 1 });
      assert.deepEqual(await two.get(path), { n: 1 });
      assert.equal(server.requests.length, 1);
      const raw = await redis.client();
      const keys = await raw.keys("*");
      const ours = keys.filter((key) => key.includes("kit.http:"));
      assert.equal(ours.length, 1, keys.join(", "));
      assert.match(ours[0], /kit\.http:[0-9a-f]{64}$/);
      for (const key of keys) {
        assert.ok(!key.includes(SECRET) && !key.includes("/orders"), key);
      }
    } finally {
      await Promise.all(caches.map((cache) => cache.dispose()));
    }
  });
});

describe("HTTP cache: what it tells", () => {
  it("marks the call's span with kit.http.cache", async () => {
    let n = 0;
    await using server = await startTestServer((request, response) => {
      if (request.headers["if-none-match"] === '"e1"') {
        response.writeHead(304);
        response.end();
        return;
      }
      const revalidated = request.url === "/checked";
      response.writeHead(200, {
        "content-type": "application/json",
        "cache-control": revalidated ? "no-cache" : "max-age=600",
        etag: '"e1"',
      });
      response.end(JSON.stringify({ n: ++n }));
    });
    const client = HttpClient.fromConfiguration(
      await cachingConfig(server.url),
    );
    const sdk = installOtelSdk();
    try {
      await client.get("/fresh"); // miss
      await client.get("/fresh"); // hit
      await client.get("/checked"); // miss
      await client.get("/checked"); // revalidated
      const calls = sdk.spans().filter((span) =>
        span.instrumentationScope.name === "@vendor/kit-platform-http" &&
        span.kind === SpanKind.INTERNAL
      );
      assert.deepEqual(
        calls.map((span) => span.attributes["kit.http.cache"]),
        ["miss", "hit", "miss", "revalidated"],
      );
      const attempts = sdk.spans().filter((span) =>
        span.instrumentationScope.name === "@vendor/kit-platform-http" &&
        span.kind === SpanKind.CLIENT
      );
      // No request, no attempt span for the hit; the revalidation's is 304.
      assert.deepEqual(
        attempts.map((span) => span.attributes["http.response.status_code"]),
        [200, 200, 304],
      );
    } finally {
      await sdk.uninstall();
    }
  });

  it("writes what it does at debug under kit.http, query hidden", async () => {
    await using server = await freshServer();
    const config = await cachingConfig(server.url);
    await using app = await createTestApplication({
      configuration: () => config,
      logging: () =>
        new LoggerManager().configure({ level: "debug", providers: [] }),
    });
    const client = HttpClient.fromConfiguration(config);
    await client.get("/items", { query: { key: SECRET } });
    await client.get("/items", { query: { key: SECRET } });
    await client.get("/private", { headers: { authorization: "Bearer x" } });
    const lines = app.logs.filter({ category: "kit.http" });
    const address = `${server.url}/items?…`;
    assert.deepEqual(
      lines.map((line) => [line.level, line.message]),
      [
        [
          "debug",
          `GET ${address} answered by the server; stored, fresh for 600 s`,
        ],
        ["debug", `GET ${address} answered from the HTTP cache`],
        [
          "debug",
          `GET ${server.url}/private answered by the server; not stored: ` +
          "the request carried credentials (authorization) and the response " +
          "is not public",
        ],
      ],
    );
    assert.equal(lines[1].properties.cache, "hit");
    for (const line of lines) {
      assert.ok(!JSON.stringify(line).includes(SECRET));
    }
  });
});
