// RemoteStoreCacheProvider on a primary named by Redis Sentinel: a real
// primary, its replica and three redis-sentinel processes.
import assert from "node:assert/strict";
import { after, before, test as nodeTest } from "node:test";
import { CacheManager, RemoteStoreCacheProvider } from "../../caching/mod.ts";
import {
  redisSentinelSkip,
  type RedisTestSentinel,
  startRedisSentinel,
} from "../_support/redis_sentinel.ts";
import { waitFor } from "../_support/wait_for.ts";
import {
  assertBusDelivers,
  busMember,
  type ProviderOptions,
  type TopologyProvider,
  topologySuite,
} from "./_redis_topology.ts";
import { activeResources, assertNothingLeft, configFrom } from "./_support.ts";
import { FAILOVER_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on a Redis failover: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, FAILOVER_LIMIT);

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

function provider(options: ProviderOptions = {}): TopologyProvider {
  const errors: TopologyProvider["errors"] = [];
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

topologySuite({
  name: "sentinel",
  skip,
  provider,
  async checkPlacement(store) {
    const primary = await sentinel.primary();
    assert.match(
      await sentinel.cli(primary, ["GET", `${store.keyPrefix}a:1`]),
      /"value":1/,
    );
  },
  healthNames: "the current primary",
  async checkHealthDetail(detail) {
    assert.equal(detail.name, sentinel.name);
    assert.equal(detail.primary, await sentinel.primary());
    assert.ok(sentinel.sentinels.includes(String(detail.sentinel)));
  },
  address: /^Redis Sentinel "kitprimary" /,
  nodesAre: "sentinels",
  unreachable: (nodes) => ({ sentinel: { name: "kitprimary", nodes } }),
  invalid: {
    options: { sentinel: { name: "", nodes: "127.0.0.1:26379" } },
    error: /sentinel\.name must be/,
  },
});

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
    const a = busMember(provider({ keyPrefix: "bus:" }).provider);
    const b = busMember(provider({ keyPrefix: "bus:" }).provider);
    // Ends the reader below, also when the test fails half-way.
    let stop = false;
    try {
      assert.equal(await a.tiered.connect(), true);
      assert.equal(await b.tiered.connect(), true);
      // The last value written before the kill is on the replica too.
      await cache.set("counter", 0);
      const before = await sentinel.primary();
      await sentinel.cli(before, ["WAIT", "1", "2000"]);
      let written = 0;
      let wrong = 0;
      let attempted = 0;
      // Reads all along: each answer is a miss, the last value confirmed when
      // the read began, or one written since (never an older one).
      // Awaited below; caught at once too, so that a failure while the
      // writes go on is this test's, never an unhandled rejection landing in
      // a later test.
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
      reader.catch(() => {});
      await sentinel.kill(before);
      const killed = performance.now();
      // Awaited once a write went through; caught at once too (as the
      // reader): its failure (no promotion, or the sentinels gone) must not
      // go unhandled meanwhile.
      const promoted = sentinel.waitForNewPrimary(before);
      promoted.catch(() => {});
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
      await assertBusDelivers(
        a,
        b,
        "b's invalidation at a after the failover",
        10_000,
      );
    } finally {
      stop = true;
      await Promise.all([
        cache.dispose(),
        a.cache.dispose(),
        b.cache.dispose(),
      ]);
    }
  },
);
