// The steps RemoteStoreCacheProvider runs the same way whatever Redis
// topology it reaches: a table of topologies (tests/caching/
// redis_cluster_test.ts and redis_sentinel_test.ts each give one row, with
// its running fixture) and one suite registered per row. Test names start
// with the topology: `cluster: …`, `sentinel: …`.
import assert from "node:assert/strict";
import { test as nodeTest } from "node:test";
import {
  type CacheError,
  type CacheInvalidation,
  CacheManager,
  CacheStoreUnavailableError,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  TieredCacheProvider,
} from "../../caching/mod.ts";
import { freePort } from "../_support/redis_process.ts";
import { waitFor } from "../_support/wait_for.ts";
import { limited, RECONNECT_LIMIT } from "../_support/limits.ts";

// Tests here wait on Redis reconnecting after an outage they make: each has
// an explicit limit, on every runner (tests/_support/limits.ts).
const test = limited(nodeTest, RECONNECT_LIMIT);

/** The options of a RemoteStoreCacheProvider. */
export type ProviderOptions = ConstructorParameters<
  typeof RemoteStoreCacheProvider
>[0];

/** A provider on the running topology, and the errors it reported. */
export interface TopologyProvider {
  provider: RemoteStoreCacheProvider;
  errors: CacheError[];
}

/** One row of the table: a topology and what differs between them. */
export interface Topology {
  /** `cluster` or `sentinel`: the health check's `topology` too. */
  readonly name: "cluster" | "sentinel";
  /** The reason to skip (the fixture's binaries missing), or `false`. */
  readonly skip: string | false;
  /**
   * A provider on the running fixture, with its own key prefix unless
   * `options` give one.
   */
  provider(options?: ProviderOptions): TopologyProvider;
  /**
   * Checks where the suite's first writes live: the keys `item:0` …
   * `item:59` and `a:1` (value 1) of `store`.
   */
  checkPlacement(store: RemoteStoreCacheProvider): Promise<void>;
  /** What the health check names, for the test's name. */
  readonly healthNames: string;
  /** Checks the topology's own fields of a healthy check's detail. */
  checkHealthDetail(detail: Record<string, unknown>): Promise<void>;
  /** The health check's `address`. */
  readonly address: RegExp;
  /** What the nodes are called, for the test's name. */
  readonly nodesAre: string;
  /** Options that reach this topology through `nodes` (list or text). */
  unreachable(nodes: string[] | string): ProviderOptions;
  /** Options the constructor refuses, and the error it names. */
  readonly invalid: { options: ProviderOptions; error: RegExp };
}

let buses = 0;

/** A tiered cache on the bus of `l2`, and the invalidations it received. */
export interface BusMember {
  tiered: TieredCacheProvider;
  received: CacheInvalidation[];
  cache: CacheManager;
}

/**
 * A tiered cache (memory over `l2`) that records the invalidations the bus
 * brings it: two of them on one key prefix are two instances of a service.
 * `onError` receives the manager's reports (default: printed).
 */
export function busMember(
  l2: RemoteStoreCacheProvider,
  onError?: (error: CacheError) => void,
): BusMember {
  const tiered = new TieredCacheProvider(new MemoryCacheProvider(), l2);
  const received: CacheInvalidation[] = [];
  tiered.invalidated.add((message) => {
    received.push(message);
  });
  return { tiered, received, cache: new CacheManager(tiered, { onError }) };
}

/**
 * Checks that a write at `b` reaches `a`: `a` reads b's first value, then,
 * once b's invalidation of the second arrived (within `timeout` ms), the
 * second value instead of its own memory's copy.
 */
export async function assertBusDelivers(
  a: BusMember,
  b: BusMember,
  what: string,
  timeout: number,
): Promise<void> {
  await b.cache.set("k", "v1");
  assert.equal(await a.cache.get("k"), "v1");
  a.received.length = 0;
  await b.cache.set("k", "v2");
  await waitFor(
    () => a.received.some((message) => message.keys?.includes("k")),
    what,
    timeout,
    50,
  );
  assert.equal(await a.cache.get("k"), "v2");
}

/** Registers the shared steps for one topology. */
export function topologySuite(t: Topology): void {
  const { name, skip } = t;

  test(
    `${name}: get, set, delete, has, getOrSet, lock, tags and clear, keys where the topology keeps them`,
    { skip },
    async () => {
      const { provider: store, errors } = t.provider();
      const cache = new CacheManager(store);
      try {
        assert.equal(await store.connect(), true);
        await cache.set("a:1", 1);
        await cache.set("a:2", 2, { tags: ["t"] });
        await cache.set("b:1", 3);
        assert.equal(await cache.get("a:1"), 1);
        assert.equal(await cache.get("a:2"), 2);
        for (let i = 0; i < 60; i++) await cache.set(`item:${i}`, { i });
        for (let i = 0; i < 60; i++) {
          assert.deepEqual(await cache.get(`item:${i}`), { i });
        }
        await t.checkPlacement(store);
        await cache.invalidateTags(["t"]);
        assert.equal(await cache.get("a:2"), undefined);
        await cache.delete("a:1");
        assert.equal(await cache.get("a:1"), undefined);
        await cache.delete("item:3");
        assert.equal(await cache.get("item:3"), undefined);
        assert.equal(await store.has("item:4"), true);
        let made = 0;
        const make = () => Promise.resolve(`made ${++made}`);
        assert.equal(await cache.getOrSet("made", make), "made 1");
        assert.equal(await cache.getOrSet("made", make), "made 1");
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

  test(
    `${name}: getOrSet with lock runs the factory once across two instances`,
    { skip },
    async () => {
      const a = t.provider();
      const b = t.provider({ keyPrefix: a.provider.keyPrefix });
      const cacheA = new CacheManager(a.provider);
      const cacheB = new CacheManager(b.provider);
      try {
        let runs = 0;
        const factory = async () => {
          runs++;
          await new Promise((resolve) => setTimeout(resolve, 100));
          return "one";
        };
        const values = await Promise.all(
          Array.from(
            { length: 20 },
            (_, i) =>
              (i % 2 === 0 ? cacheA : cacheB).getOrSet("report", factory, {
                lock: true,
                ttl: 60_000,
              }),
          ),
        );
        assert.deepEqual([...new Set(values)], ["one"]);
        assert.equal(runs, 1);
        const attempt = await a.provider.tryLock("other", 5_000);
        assert.equal(attempt.acquired, true);
        assert.equal(
          (await b.provider.tryLock("other", 5_000)).acquired,
          false,
        );
        if (attempt.acquired) await attempt.release();
        assert.equal((await b.provider.tryLock("other", 5_000)).acquired, true);
        assert.deepEqual([...a.errors, ...b.errors], []);
      } finally {
        await Promise.all([cacheA.dispose(), cacheB.dispose()]);
      }
    },
  );

  test(`${name}: the invalidation bus reaches another instance`, {
    skip,
  }, async () => {
    const keyPrefix = `bus${++buses}:`;
    const a = busMember(t.provider({ keyPrefix }).provider);
    const b = busMember(t.provider({ keyPrefix }).provider);
    try {
      assert.equal(await a.tiered.connect(), true);
      assert.equal(await b.tiered.connect(), true);
      await assertBusDelivers(a, b, "b's invalidation at a", 5_000);
    } finally {
      await Promise.all([a.cache.dispose(), b.cache.dispose()]);
    }
  });

  test(`${name}: the health check names ${t.healthNames}`, {
    skip,
  }, async () => {
    const { provider: store } = t.provider();
    try {
      const health = await store.checkHealth();
      assert.equal(health.status, "healthy");
      const detail = health.detail as Record<string, unknown>;
      assert.equal(detail.topology, name);
      assert.match(String(detail.address), t.address);
      assert.ok(!JSON.stringify(health).includes("secret"));
      await t.checkHealthDetail(detail);
    } finally {
      await store.dispose();
    }
  });

  test(
    `${name}: ${t.nodesAre} that do not answer fail the first call in time, named`,
    { skip },
    async () => {
      const nodes = [
        `127.0.0.1:${await freePort()}`,
        `127.0.0.1:${await freePort()}`,
      ];
      // Given as a list and as the comma-separated text of the configuration.
      for (const given of [nodes, nodes.join(",")]) {
        const errors: CacheError[] = [];
        const store = new RemoteStoreCacheProvider({
          ...t.unreachable(given),
          connectTimeout: 500,
          onError: (error) => errors.push(error),
        });
        try {
          const started = performance.now();
          assert.equal(await store.get("k"), undefined);
          assert.ok(
            performance.now() - started < 2_000,
            "within connectTimeout",
          );
          assert.ok(errors[0] instanceof CacheStoreUnavailableError);
          for (const node of nodes) assert.ok(errors[0].message.includes(node));
        } finally {
          await store.dispose();
        }
      }
      const required = new RemoteStoreCacheProvider({
        ...t.unreachable(nodes),
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
        () => new RemoteStoreCacheProvider(t.invalid.options),
        t.invalid.error,
      );
    },
  );
}
