import assert from "node:assert/strict";
import { test as nodeTest } from "node:test";
import {
  type CacheError,
  type CacheInvalidation,
  CacheManager,
  CacheStoreRecovered,
  CacheStoreUnavailableError,
  type ICacheProvider,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  TieredCacheProvider,
  type TieredCacheProviderOptions,
} from "../../caching/mod.ts";
import {
  redisSkip,
  type RedisTestServer,
  startRedisServer,
  waitFor,
} from "./_redis_server.ts";
import {
  activeResources,
  assertNothingLeft,
  errorLog,
  FakeClock,
} from "./_support.ts";
import { limited, RECONNECT_LIMIT } from "../_support/limits.ts";

// Tests here wait on Redis reconnecting after an outage they make: each has
// an explicit limit, on every runner (tests/_support/limits.ts).
const test = limited(nodeTest, RECONNECT_LIMIT);

// Taken before any test runs; the last test checks nothing outlived them.
const baseline = activeResources();

const skip = redisSkip;

interface Instance {
  cache: CacheManager;
  tiered: TieredCacheProvider;
  l1: MemoryCacheProvider;
  l2: RemoteStoreCacheProvider;
  /** Invalidations received from other instances, in order. */
  received: CacheInvalidation[];
}

async function instance(
  server: RedisTestServer,
  options: TieredCacheProviderOptions = {},
): Promise<Instance> {
  const l1 = new MemoryCacheProvider({ maxSize: 100 });
  const l2 = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    keyPrefix: "shop:",
    reconnectDelay: 10,
    maxReconnectDelay: 100,
  });
  const tiered = new TieredCacheProvider(l1, l2, options);
  const received: CacheInvalidation[] = [];
  tiered.invalidated.add((message) => {
    received.push(message);
  });
  assert.equal(await tiered.connect(), true);
  // The manager forwards the providers' errors to its own onError; tests
  // that look at errors read them from the tiered provider's hook.
  const cache = new CacheManager(tiered, { onError: () => {} });
  return { cache, tiered, l1, l2, received };
}

test("TieredCacheProvider fills l1 from an l2 hit and then answers from l1", {
  skip,
}, async () => {
  await using server = await startRedisServer();
  const a = await instance(server);
  const b = await instance(server);
  try {
    await a.cache.set("k", "v");
    // b hears of a's write asynchronously; a fill that races that message is
    // dropped on purpose (it could hold an older value), so wait for it.
    await waitFor(() => b.received.length > 0, "a's invalidation at b", 5_000);
    assert.equal(b.l1.has("k"), false);
    assert.equal(await b.cache.get("k"), "v");
    assert.equal(b.l1.has("k"), true, "l2 hit filled l1");
    // Served from l1: remove it from Redis behind the provider's back.
    const raw = await server.client();
    await raw.del("shop:k");
    assert.equal(await b.cache.get("k"), "v");
  } finally {
    await Promise.all([a.cache.dispose(), b.cache.dispose()]);
  }
});

test(
  "TieredCacheProvider: a second instance never serves a value the first replaced, once the invalidation arrived",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const a = await instance(server);
    const b = await instance(server);
    try {
      await a.cache.set("price", 0);
      await waitFor(
        () => b.received.length > 0,
        "the first invalidation",
        5_000,
      );
      assert.equal(await b.cache.get("price"), 0);
      for (let i = 1; i <= 30; i++) {
        assert.equal(b.l1.has("price"), true, "b holds a local copy");
        const seen = b.received.length;
        await a.cache.set("price", i);
        await waitFor(
          () => b.received.length > seen,
          `invalidation ${i}`,
          5_000,
        );
        assert.deepEqual(b.received.at(-1)?.keys, ["price"]);
        assert.equal(b.l1.has("price"), false, "b dropped its copy");
        assert.equal(await b.cache.get("price"), i);
        assert.equal(await b.cache.getOrSet("price", () => -1), i);
      }
      // Deletes travel the same way.
      const seen = b.received.length;
      await a.cache.delete("price");
      await waitFor(
        () => b.received.length > seen,
        "delete invalidation",
        5_000,
      );
      assert.equal(await b.cache.get("price"), undefined);
      assert.equal(
        a.received.length,
        0,
        "an instance ignores its own messages",
      );
    } finally {
      await Promise.all([a.cache.dispose(), b.cache.dispose()]);
    }
  },
);

test(
  "TieredCacheProvider without a bus keeps serving the replaced value (why the bus exists)",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const a = await instance(server, { bus: null });
    const b = await instance(server, { bus: null });
    try {
      await a.cache.set("price", 1);
      assert.equal(await b.cache.get("price"), 1);
      await a.cache.set("price", 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await b.cache.get("price"), 1, "stale local copy");
    } finally {
      await Promise.all([a.cache.dispose(), b.cache.dispose()]);
    }
  },
);

test(
  "TieredCacheProvider.clear() of an area drops that area from other instances' l1",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const a = await instance(server);
    const b = await instance(server);
    try {
      await a.cache.area("users").set("1", "ada");
      await a.cache.set("other", "kept");
      assert.equal(await b.cache.area("users").get("1"), "ada");
      assert.equal(await b.cache.get("other"), "kept");
      const seen = b.received.length;
      await a.cache.area("users").clear();
      await waitFor(
        () => b.received.length > seen,
        "clear invalidation",
        5_000,
      );
      assert.equal(b.received.at(-1)?.prefix, "users:");
      assert.equal(b.l1.has("users:1"), false);
      assert.equal(b.l1.has("other"), true);
      assert.equal(await b.cache.area("users").get("1"), undefined);
    } finally {
      await Promise.all([a.cache.dispose(), b.cache.dispose()]);
    }
  },
);

test(
  "TieredCacheProvider drops its whole l1 when the bus reconnects after an outage",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const log = errorLog();
    const a = await instance(server, { onError: log.onError });
    try {
      await a.cache.set("k", 1);
      assert.equal(a.l1.has("k"), true);
      await server.stop();
      // While Redis is down, l1 still answers.
      assert.equal(await a.cache.get("k"), 1);
      await server.start();
      // Invalidations may have been missed meanwhile: l1 is emptied.
      await waitFor(
        () => !a.l1.has("k"),
        "l1 to be dropped after resubscription",
      );
      await waitFor(() => a.l2.isConnected, "l2 to reconnect");
      assert.equal(
        await a.cache.get("k"),
        undefined,
        "the restarted Redis is empty",
      );
      assert.deepEqual(
        log.errors.map((error) => error.name),
        ["CacheStoreUnavailableError", "CacheStoreRecovered"],
        "one outage, reported once for both connections, then its end",
      );
    } finally {
      await a.cache.dispose();
    }
  },
);

test(
  "TieredCacheProvider: an outage l2 reports for several addresses (a cluster's primaries, each apart) lasts until every one is back",
  async () => {
    // An l2 that never holds anything and reports what the test tells it.
    const listeners = new Set<(report: CacheError) => void>();
    const l2: ICacheProvider = {
      get: () => undefined,
      set: () => {},
      delete: () => {},
      has: () => false,
      clear: () => {},
      errorOccurred: {
        add(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        remove: (listener) => listeners.delete(listener),
        get size() {
          return listeners.size;
        },
      },
    };
    const report = (error: CacheError) => {
      for (const listener of listeners) listener(error);
    };
    const clock = new FakeClock();
    const tiered = new TieredCacheProvider(new MemoryCacheProvider(), l2, {
      outageMemoryTtl: 1_000,
      clock: clock.read,
      onError: () => {},
    });
    // A copy written now, read `later` ms after.
    const servedAfter = async (key: string, later: number) => {
      await tiered.set(key, { value: key, storedAt: clock.now });
      clock.advance(later);
      return (await tiered.get(key))?.value;
    };
    try {
      assert.equal(await servedAfter("before", 5_000), "before", "no outage");
      report(new CacheStoreUnavailableError("127.0.0.1:7001"));
      report(new CacheStoreUnavailableError("127.0.0.1:7002"));
      assert.equal(await servedAfter("during", 2_000), undefined, "bounded");
      report(new CacheStoreRecovered("127.0.0.1:7001", 1));
      // 7002 is still down: other instances' changes may still be missed.
      assert.equal(await servedAfter("one back", 2_000), undefined);
      report(new CacheStoreRecovered("127.0.0.1:7002", 1));
      assert.equal(await servedAfter("all back", 5_000), "all back");
    } finally {
      await tiered.dispose();
    }
  },
);

// Without a limit of its own: a limit is a timer, which this check counts
// (it is bounded by assertNothingLeft's deadline).
nodeTest(
  "no socket, ref'd timer or child process outlives the tests of this file",
  async () => {
    await assertNothingLeft(baseline);
  },
);
