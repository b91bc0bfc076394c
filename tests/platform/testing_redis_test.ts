// The test kit against a real redis-server: the application's own
// configuration names a production Redis, the test points it at a
// redis-server of its own through the config values, and requests in
// memory count visits in it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTestApplication } from "@vendor/kit-platform/testing";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { CacheManager, RemoteStoreCacheProvider } from "../../caching/mod.ts";
import { redisSkip, startRedisServer } from "../caching/_redis_server.ts";

type Services = { cache: CacheManager };

async function configuration(): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  await config.addProvider(
    new MemoryProvider({
      "cache:redis:host": "redis.production.invalid",
      "cache:redis:port": "6379",
      "cache:redis:keyPrefix": "visits:",
    }),
  );
  await config.loadConfiguration();
  return config;
}

describe("createTestApplication with a real Redis", () => {
  it("points the cache at the test's redis-server", {
    skip: redisSkip,
  }, async () => {
    await using redis = await startRedisServer();
    await using app = await createTestApplication<
      Services,
      ConfigurationManager
    >({
      configuration,
      services: (services, config) => {
        services.register(
          "cache",
          () =>
            new CacheManager(
              RemoteStoreCacheProvider.fromConfiguration(config),
            ),
          { eager: true },
        );
      },
      serve: (services) => async () => {
        const cache = services.get("cache");
        const visits = (await cache.get<number>("count") ?? 0) + 1;
        await cache.set("count", visits);
        return Response.json({ visits });
      },
      config: {
        "cache:redis:host": redis.host,
        "cache:redis:port": redis.port,
      },
    });
    assert.deepEqual(await (await app.request("/")).json(), { visits: 1 });
    assert.deepEqual(await (await app.request("/")).json(), { visits: 2 });
    const health = await app.request("/health");
    assert.equal(health.status, 200);
    assert.equal((await health.json()).checks.cache.status, "healthy");
    const client = await redis.client();
    assert.ok((await client.keys("visits:*")).length > 0);
  });
});
