// RemoteStoreCacheProvider on a primary named by Redis Sentinel: a real
// primary, its replica and three redis-sentinel processes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  type CacheError,
  type CacheInvalidation,
  CacheManager,
  CacheStoreUnavailableError,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  TieredCacheProvider,
} from "../../caching/mod.ts";
import {
  redisSentinelSkip,
  type RedisTestSentinel,
  startRedisSentinel,
} from "../_support/redis_sentinel.ts";
import { freePort } from "../_support/redis_process.ts";
import { waitFor } from "../_support/wait_for.ts";
import { activeResources, assertNothingLeft, configFrom } from "./_support.ts";

const skip = redisSentinelSkip;
const baseline = activeResources();
let sentinel: RedisTestSentinel;
let prefixes = 0;

before(async () => {
  if (skip === false) {
    sentinel = await startRedisSentinel({
      password: "data-secret",
      sentinelPassword: "sentinel-secret",
    });
  }
});
after(async () => {
  await sentinel?.close();
  if (skip === false) await assertNothingLeft(baseline);
});

function provider(
  options: ConstructorParameters<typeof RemoteStoreCacheProvider>[0] = {},
): { provider: RemoteStoreCacheProvider; errors: CacheError[] } {
  const errors: CacheError[] = [];
  return {
    provider: new RemoteStoreCacheProvider({
      sentinel: {
        name: sentinel.name,
        nodes: sentinel.sentinels,
        password: "sentinel-secret",
      },
      password: "data-secret",
      keyPrefix: `s${++prefixes}:`,
      reconnectDelay: 20,
      maxReconnectDelay: 200,
      onError: (error) => errors.push(error),
      ...options,
    }),
    errors,
  };
}

test(
  "sentinel: get, set, delete, getOrSet, lock, tags and clear on the primary",
  {
    skip,
  },
  async () => {
    const { provider: store, errors } = provider();
    const cache = new CacheManager(store);
    try {
      assert.equal(await store.connect(), true);
      await cache.set("a:1", 1);
      await cache.set("a:2", 2, { tags: ["t"] });
      await cache.set("b:1", 3);
      assert.equal(await cache.get("a:1"), 1);
      assert.equal(await cache.get("a:2"), 2);
      const primary = await sentinel.primary();
      assert.match(
        await sentinel.cli(primary, ["GET", `${store.keyPrefix}a:1`]),
        /"value":1/,
      );
      await cache.invalidateTags(["t"]);
      assert.equal(await cache.get("a:2"), undefined);
      await cache.delete("a:1");
      assert.equal(await cache.get("a:1"), undefined);
      let runs = 0;
      const factory = async () => {
        runs++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return "made";
      };
      const values = await Promise.all(
        Array.from(
          { length: 10 },
          () => cache.getOrSet("locked", factory, { lock: true }),
        ),
      );
      assert.deepEqual([...new Set(values)], ["made"]);
      assert.equal(runs, 1);
      await cache.set("a:3", 3);
      await store.clear("a:");
      assert.equal(await cache.get("a:3"), undefined);
      assert.equal(await cache.get("b:1"), 3);
      assert.deepEqual(errors, []);
    } finally {
      await cache.dispose();
    }
  },
);

test("sentinel: the health check names the current primary", {
  skip,
}, async () => {
  const { provider: store } = provider();
  try {
    const health = await store.checkHealth();
    assert.equal(health.status, "healthy");
    const detail = health.detail as Record<string, unknown>;
    assert.equal(detail.topology, "sentinel");
    assert.equal(detail.name, sentinel.name);
    assert.equal(detail.primary, await sentinel.primary());
    assert.ok(sentinel.sentinels.includes(String(detail.sentinel)));
    assert.match(String(detail.address), /^Redis Sentinel "kitprimary" /);
    assert.ok(!JSON.stringify(health).includes("secret"));
  } finally {
    await store.dispose();
  }
});

test(
  "sentinel: sentinels that do not answer fail the first call in time, named",
  {
    skip,
  },
  async () => {
    const nodes = [
      `127.0.0.1:${await freePort()}`,
      `127.0.0.1:${await freePort()}`,
    ];
    const errors: CacheError[] = [];
    const store = new RemoteStoreCacheProvider({
      sentinel: { name: "kitprimary", nodes: nodes.join(",") },
      connectTimeout: 500,
      onError: (error) => errors.push(error),
    });
    try {
      const started = performance.now();
      assert.equal(await store.get("k"), undefined);
      assert.ok(performance.now() - started < 2_000, "within connectTimeout");
      assert.ok(errors[0] instanceof CacheStoreUnavailableError);
      for (const node of nodes) assert.ok(errors[0].message.includes(node));
    } finally {
      await store.dispose();
    }
    const required = new RemoteStoreCacheProvider({
      sentinel: { name: "kitprimary", nodes },
      connectTimeout: 500,
      required: true,
      onError: () => {},
    });
    await assert.rejects(
      required.connect(),
      (error: Error) =>
        error instanceof CacheStoreUnavailableError &&
        nodes.every((node) => error.message.includes(node)),
    );
    assert.throws(
      () =>
        new RemoteStoreCacheProvider({
          sentinel: { name: "", nodes: "127.0.0.1:26379" },
        }),
      /sentinel\.name must be/,
    );
  },
);

test(
  "sentinel: fromConfiguration reads cache:redis:sentinel:* (REDIS_SENTINELS, REDIS_SENTINEL_NAME)",
  {
    skip,
  },
  async () => {
    const store = RemoteStoreCacheProvider.fromConfiguration(
      configFrom({
        "cache:redis:sentinel:name": sentinel.name,
        "cache:redis:sentinel:nodes": sentinel.sentinels.join(","),
        "cache:redis:sentinel:password": "sentinel-secret",
        "cache:redis:password": "data-secret",
      }),
    );
    try {
      assert.equal(await store.connect(), true);
      const health = await store.checkHealth();
      assert.equal(
        (health.detail as Record<string, unknown>).primary,
        await sentinel.primary(),
      );
    } finally {
      await store.dispose();
    }
    assert.throws(
      () =>
        RemoteStoreCacheProvider.fromConfiguration(
          configFrom({ "cache:redis:sentinel:name": "kitprimary" }),
        ),
      /cache:redis:sentinel:name and cache:redis:sentinel:nodes go together/,
    );
  },
);

// Last: it kills the primary.
test(
  "sentinel: after a failover writes go to the new primary, no wrong value served",
  {
    skip,
  },
  async () => {
    const { provider: store } = provider();
    const cache = new CacheManager(store);
    const make = () => {
      const l2 = provider({ keyPrefix: "bus:" }).provider;
      const tiered = new TieredCacheProvider(new MemoryCacheProvider(), l2);
      const received: CacheInvalidation[] = [];
      tiered.invalidated.add((message) => {
        received.push(message);
      });
      return { tiered, received, cache: new CacheManager(tiered) };
    };
    const a = make();
    const b = make();
    try {
      assert.equal(await a.tiered.connect(), true);
      assert.equal(await b.tiered.connect(), true);
      // The last value written before the kill is on the replica too.
      await cache.set("counter", 0);
      const before = await sentinel.primary();
      await sentinel.cli(before, ["WAIT", "1", "2000"]);
      let written = 0;
      let wrong = 0;
      let stop = false;
      let attempted = 0;
      // Reads all along: each answer is a miss, the last value confirmed when
      // the read began, or one written since (never an older one).
      const reader = (async () => {
        while (!stop) {
          const confirmed = written;
          const value = await cache.get("counter");
          if (
            value !== undefined &&
            (typeof value !== "number" || value < confirmed ||
              value > attempted)
          ) {
            wrong++;
          }
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      await sentinel.kill(before);
      const killed = performance.now();
      const promoted = sentinel.waitForNewPrimary(before);
      let firstWrite = 0;
      while (firstWrite === 0) {
        const next = written + 1;
        attempted = next;
        await cache.set("counter", next);
        if ((await store.get("counter"))?.value === next) {
          written = next;
          firstWrite = performance.now() - killed;
        } else await new Promise((resolve) => setTimeout(resolve, 10));
        assert.ok(performance.now() - killed < 30_000, "no write for 30 s");
      }
      const after = await promoted;
      assert.notEqual(after, before);
      // Commands sent to the dead primary time out (commandTimeout) and may
      // count as an outage once more: wait until the provider is back.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await waitFor(
        async () => (await store.connect()) && store.isConnected,
        "the provider connected again",
        10_000,
      );
      for (let i = 0; i < 20; i++) {
        attempted = written + 1;
        await cache.set("counter", attempted);
        written = attempted;
        assert.equal(await cache.get("counter"), written);
      }
      stop = true;
      await reader;
      assert.equal(wrong, 0);
      // The time itself is measured by bench/caching_failover.ts.
      assert.ok(firstWrite > 0);
      const health = await store.checkHealth();
      assert.equal((health.detail as Record<string, unknown>).primary, after);
      // The bus follows the new primary too.
      await b.cache.set("k", "v1");
      assert.equal(await a.cache.get("k"), "v1");
      a.received.length = 0;
      await b.cache.set("k", "v2");
      await waitFor(
        () => a.received.some((message) => message.keys?.includes("k")),
        "b's invalidation at a after the failover",
        10_000,
      );
      assert.equal(await a.cache.get("k"), "v2");
    } finally {
      await Promise.all([
        cache.dispose(),
        a.cache.dispose(),
        b.cache.dispose(),
      ]);
    }
  },
);
