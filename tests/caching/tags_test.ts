import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type CacheEntry,
  CacheManager,
  type CachePolicyOptions,
  CacheStoreRecovered,
  type ICacheProvider,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  TieredCacheProvider,
} from "../../caching/mod.ts";
import { startOutageProxy } from "./_outage_proxy.ts";
import { redisSkip, startRedisServer, waitFor } from "./_redis_server.ts";
import {
  activeResources,
  assertNothingLeft,
  deferred,
  FakeClock,
} from "./_support.ts";

const baseline = activeResources();

// ttl 1000, stale values served until 60000.
const policy: CachePolicyOptions = { ttl: 1_000, maxStale: 59_000 };

async function behaves(
  provider: () => ICacheProvider,
): Promise<void> {
  const clock = new FakeClock();
  const cache = new CacheManager(provider(), { policy, clock: clock.read });
  try {
    await cache.set("p:1", "lamp", { tags: ["products", "shop:1"] });
    await cache.set("p:2", "desk", { tags: ["products"] });
    await cache.set("u:1", "ada", { tags: ["users"] });
    await cache.set("plain", "x");
    clock.advance(1);
    await cache.invalidateTags(["products"]);
    clock.advance(1);
    assert.equal(await cache.get("p:1"), undefined);
    assert.equal(await cache.get("p:2"), undefined);
    assert.equal(await cache.get("u:1"), "ada");
    assert.equal(await cache.get("plain"), "x");
    // A value stored after the invalidation, with the tag, is fresh.
    assert.equal(
      await cache.getOrSet("p:1", () => "lamp v2", { tags: ["products"] }),
      "lamp v2",
    );
    clock.advance(1);
    assert.equal(await cache.get("p:1"), "lamp v2");
    // Never served stale once invalidated, even inside maxStale.
    await cache.set("s", "old", { tags: ["t"] });
    clock.advance(2_000); // stale band
    assert.equal(await cache.getOrSet("s", () => "refreshed"), "old");
    await cache.set("s2", "old", { tags: ["t"] });
    clock.advance(2_000);
    await cache.invalidateTags(["t"]);
    clock.advance(1);
    let runs = 0;
    assert.equal(
      await cache.getOrSet("s2", () => `new ${++runs}`, { tags: ["t"] }),
      "new 1",
    );
    // An area's entries carry tags too; tags are shared by all areas.
    const area = cache.area("orders");
    await area.set("1", "o1", { tags: ["orders"] });
    clock.advance(1);
    await area.invalidateTags(["orders"]);
    clock.advance(1);
    assert.equal(await area.get("1"), undefined);
  } finally {
    await cache.dispose();
  }
}

test("tags, memory: invalidateTags makes every entry carrying one of them a miss, stale or not", async () => {
  await behaves(() => new MemoryCacheProvider());
});

test("tags, Redis: the same", { skip: redisSkip }, async () => {
  await using server = await startRedisServer();
  await behaves(() =>
    new RemoteStoreCacheProvider({ host: server.host, port: server.port })
  );
});

test(
  "tags, Redis: an invalidation costs one command whatever the number of entries, and reaches other instances",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const raw = await server.client();
    const [a, b] = [1, 2].map(() =>
      new CacheManager(
        new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      )
    );
    try {
      for (let i = 0; i < 500; i++) {
        await a.set(`item:${i}`, i, { ttl: 60_000, tags: ["catalog"] });
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
      const processed = async () =>
        Number(
          /total_commands_processed:(\d+)/.exec(await raw.info("stats"))![1],
        );
      const before = await processed();
      await a.invalidateTags(["catalog"]);
      const after = await processed();
      // One EVAL (Redis counts the GET and SET it runs for the one tag
      // too) and the INFO call itself: nothing per entry.
      assert.ok(after - before <= 4, `commands: ${after - before}`);
      assert.equal(await b.get("item:7"), undefined);
      assert.equal(await a.get("item:499"), undefined);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  },
);

test(
  "tags, Redis: getOrSet with tags reads the entry and its tags' times in one round trip",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const raw = await server.client();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
    );
    try {
      await cache.set("k", "v", { ttl: 60_000, tags: ["a", "b"] });
      await new Promise((resolve) => setTimeout(resolve, 2));
      const stats = async () => {
        const info = await raw.info("commandstats");
        const calls = (name: string) =>
          Number(
            new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0,
          );
        return { eval: calls("eval"), get: calls("get"), mget: calls("mget") };
      };
      const before = await stats();
      assert.equal(
        await cache.getOrSet("k", () => "other", { tags: ["a", "b"] }),
        "v",
      );
      const after = await stats();
      // One EVAL; the GET and MGET Redis counts are the ones it ran.
      assert.deepEqual(
        {
          eval: after.eval - before.eval,
          get: after.get - before.get,
          mget: after.mget - before.mget,
        },
        { eval: 1, get: 1, mget: 1 },
      );
      await cache.invalidateTags(["b"]);
      await new Promise((resolve) => setTimeout(resolve, 2));
      assert.equal(
        await cache.getOrSet("k", () => "after", { tags: ["a", "b"] }),
        "after",
      );
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "tags with odd characters are encoded: no collision with keys or with each other",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const raw = await server.client();
    const clock = new FakeClock();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      { clock: clock.read },
    );
    try {
      const odd = ["a:b", "a*?[x]", "\u0000lock:k", "sp ace", "ü€😀", "%41"];
      for (const [i, tag] of odd.entries()) {
        await cache.set(`k${i}`, i, { ttl: 60_000, tags: [tag] });
      }
      await cache.set("A", "keyed like a tag", { ttl: 60_000 });
      clock.advance(1);
      await cache.invalidateTags(["a*?[x]", "A"]);
      clock.advance(1);
      assert.deepEqual(
        await Promise.all(odd.map((_, i) => cache.get(`k${i}`))),
        [0, undefined, 2, 3, 4, 5],
      );
      assert.equal(await cache.get("A"), "keyed like a tag");
      const keys = (await raw.keys("*")).sort();
      const tagKeys = keys.filter((key) => key.includes("\u0000tag:"));
      assert.equal(tagKeys.length, 2);
      for (const key of tagKeys) {
        assert.match(key.slice("kit:cache:\u0000tag:".length), /^[\w.~%-]+$/);
      }
    } finally {
      await cache.dispose();
    }
  },
);

test("a factory run under way when its tag is invalidated returns its value but does not store it", async () => {
  const clock = new FakeClock();
  const cache = new CacheManager(new MemoryCacheProvider(), {
    policy,
    clock: clock.read,
  });
  const slow = deferred<string>();
  const pending = cache.getOrSet("k", () => slow.promise, { tags: ["t"] });
  await new Promise((resolve) => setTimeout(resolve, 1));
  await cache.invalidateTags(["t"]);
  clock.advance(1);
  slow.resolve("computed before the invalidation");
  assert.equal(await pending, "computed before the invalidation");
  assert.equal(await cache.get("k"), undefined);
  await cache.dispose();
});

test(
  "tags across tiered instances: an invalidation drops the others' near copies",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const providers = [1, 2].map(() =>
      new TieredCacheProvider(
        new MemoryCacheProvider(),
        new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      )
    );
    await Promise.all(providers.map((provider) => provider.connect()));
    const [a, b] = providers.map((provider) => new CacheManager(provider));
    try {
      await a.set("k", "v", { ttl: 60_000, tags: ["t"] });
      assert.equal(await b.get("k"), "v"); // now in b's memory layer too
      await new Promise((resolve) => setTimeout(resolve, 2));
      await a.invalidateTags(["t"]);
      await waitFor(
        async () => (await b.get("k")) === undefined,
        "b's memory copy to be invalidated",
        3_000,
      );
      assert.equal(await a.get("k"), undefined);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  },
);

test("tags are checked: a non-empty array of non-empty strings", async () => {
  const cache = new CacheManager(new MemoryCacheProvider());
  const message =
    "Cache tags must be an array of non-empty strings: <bad value>";
  for (const bad of [[""], "t", [1]] as unknown[]) {
    const expected = new TypeError(message.replace("<bad value>", String(bad)));
    await assert.rejects(
      cache.set("k", 1, { tags: bad as string[] }),
      expected,
    );
    await assert.rejects(
      cache.getOrSet("k", () => 1, { tags: bad as string[] }),
      expected,
    );
    await assert.rejects(cache.invalidateTags(bad as string[]), expected);
  }
  await cache.dispose();
});

test(
  "tags, Redis: an invalidation held back by an outage counts as soon as the store answers again, before its re-send lands",
  { skip: redisSkip, timeout: 30_000 },
  async () => {
    await using server = await startRedisServer();
    await using proxy = await startOutageProxy(server);
    let readAtRecovery: Promise<CacheEntry | undefined> | undefined;
    const provider: RemoteStoreCacheProvider = new RemoteStoreCacheProvider({
      host: proxy.host,
      port: proxy.port,
      keyPrefix: "held-tag:",
      commandTimeout: 500,
      reconnectDelay: 20,
      maxReconnectDelay: 100,
      // Reported when the store answers again, before the held-back
      // changes are re-sent: a read sent now reaches Redis ahead of them.
      onError: (report) => {
        if (report instanceof CacheStoreRecovered) {
          readAtRecovery ??= provider.get("e", true);
        }
      },
    });
    try {
      await provider.set("e", { value: "old", storedAt: 1_000, tags: ["t"] });
      proxy.cut();
      await provider.invalidateTags(["t"], 2_000);
      assert.equal(provider.recoveryStats.pending, 1, "held back");
      proxy.heal();
      await waitFor(
        () => readAtRecovery !== undefined,
        "the store to answer again",
      );
      assert.equal(await readAtRecovery, undefined, "invalidated entry");
      await waitFor(
        () => provider.recoveryStats.pending === 0,
        "the invalidation to be re-sent",
      );
      assert.equal(await provider.get("e", true), undefined);
    } finally {
      await provider.dispose();
    }
  },
);

test("the tag tests leave no socket, timer or process behind", async () => {
  await assertNothingLeft(baseline);
});
