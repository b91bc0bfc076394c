// The outage scenario of the tiered cache, written once for any Redis
// topology: two instances (two TieredCacheProviders, each with its own
// memory layer and its own Redis connections) share keys; the store goes
// away (`fault`), the writer deletes `k` and overwrites `k2`, the store comes
// back (`heal`); then neither instance may serve the deleted or the replaced
// value, and the store holds the overwrite (or nothing, when the fault lost
// the store's data). A single node frozen, killed or restarted uses it today;
// a Sentinel failover or a cluster node failure plugs in the same way with
// its own `address` (any connection options of RemoteStoreCacheProvider:
// `host`/`port` today, the cluster or sentinel options alike), `fault` and
// `heal`.
import assert from "node:assert/strict";
import {
  CacheManager,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  type RemoteStoreCacheProviderOptions,
  TieredCacheProvider,
  type TieredCacheProviderOptions,
} from "../../caching/mod.ts";
import { waitFor } from "./_redis_server.ts";

/** One instance of a service: its manager and both layers. */
export interface CoherenceInstance {
  cache: CacheManager;
  tiered: TieredCacheProvider;
  l1: MemoryCacheProvider;
  l2: RemoteStoreCacheProvider;
  dispose(): Promise<void>;
}

/**
 * Short timeouts, so that an outage is noticed and left quickly (yet long
 * enough for a loaded machine).
 */
export const FAST_REDIS: RemoteStoreCacheProviderOptions = {
  keyPrefix: "coherence:",
  connectTimeout: 1_000,
  commandTimeout: 500,
  reconnectDelay: 20,
  maxReconnectDelay: 100,
};

/**
 * Creates one instance (its own connections) on `address`: `host`/`port`,
 * or any other connection options of RemoteStoreCacheProvider.
 */
export async function coherenceInstance(
  address: RemoteStoreCacheProviderOptions,
  options: {
    store?: RemoteStoreCacheProviderOptions;
    tiered?: TieredCacheProviderOptions;
  } = {},
): Promise<CoherenceInstance> {
  const l1 = new MemoryCacheProvider({ maxSize: 1000 });
  const l2 = new RemoteStoreCacheProvider({
    ...FAST_REDIS,
    onError: () => {},
    ...address,
    ...options.store,
  });
  const tiered = new TieredCacheProvider(l1, l2, {
    onError: () => {},
    ...options.tiered,
  });
  if (!(await tiered.connect())) {
    await tiered.dispose({ timeout: 2_000 });
    throw new Error(`no Redis at ${l2.address}`);
  }
  const cache = new CacheManager(tiered, {
    onError: () => {},
    policy: { ttl: 60_000 },
  });
  return {
    cache,
    tiered,
    l1,
    l2,
    dispose: () => cache.dispose({ timeout: 2_000 }),
  };
}

/** How a topology takes its store away and brings it back. */
export interface OutageFault {
  /** Where both instances connect: RemoteStoreCacheProvider options. */
  address: RemoteStoreCacheProviderOptions;
  /** Takes the store away (freeze, kill, failover, partition). */
  fault(): Promise<void> | void;
  /** Brings it back. */
  heal(): Promise<void> | void;
  /** What the store holds under a full key, `null` when absent. */
  rawGet(fullKey: string): Promise<string | null>;
  /** Whether the store keeps its data through the fault. */
  keepsData: boolean;
  /** How long the fault lasts, counted from `fault()`. Default 3000. */
  outageMs?: number;
  /**
   * Settles once the store's copies hold the writes made so far (a replica
   * in sync with its primary), before `fault()`: what a replica never
   * received, Redis itself loses at a failover, whatever the client does.
   */
  replicated?(): Promise<void> | void;
  /**
   * Also invalidates a tag during the fault: an entry carrying it, held by
   * both instances before, must be a miss everywhere afterwards.
   */
  tagged?: boolean;
  /**
   * How long the instances may take to agree after `heal()` settles, in
   * milliseconds. Default 10000.
   */
  convergeMs?: number;
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs the scenario; throws (an assertion) at the first incoherence. Every
 * wait is bounded. Answers how long the instances took to agree after
 * `heal()`, and how many of the writer's changes were journaled.
 */
export async function checkCoherenceThroughOutage(
  setup: OutageFault,
): Promise<{ convergedMs: number; journaled: number }> {
  const a = await coherenceInstance(setup.address);
  const b = await coherenceInstance(setup.address);
  try {
    await a.cache.set("k", "v1");
    await a.cache.set("k2", "v1");
    if (setup.tagged) await a.cache.set("t", "v1", { tags: ["group"] });
    // B serves both from its memory layer from now on.
    assert.equal(await b.cache.get("k"), "v1", "B reads k before the fault");
    assert.equal(await b.cache.get("k2"), "v1", "B reads k2 before the fault");
    // A read does not fill the memory layer when an invalidation arrives
    // meanwhile (here A's own messages, which may come late): read until it
    // does.
    await waitFor(async () => {
      await b.cache.get("k");
      await b.cache.get("k2");
      return (await b.l1.has("k")) && (await b.l1.has("k2"));
    }, "B to keep k and k2 in memory");
    if (setup.tagged) {
      await waitFor(
        async () =>
          (await b.cache.get("t")) === "v1" && (await b.l1.has("t")) &&
          (await a.cache.get("t")) === "v1",
        "both instances to hold the tagged t",
      );
    }
    await setup.replicated?.();

    const faultAt = Date.now();
    await setup.fault();
    await a.cache.delete("k");
    await a.cache.set("k2", "v2");
    if (setup.tagged) await a.cache.invalidateTags(["group"]);
    assert.equal(await a.cache.get("k2"), "v2", "the writer reads its write");
    // The changes the store did not answer, kept for the recovery.
    const journaled = a.l2.recoveryStats.pending;
    await delay(Math.max(0, faultAt + (setup.outageMs ?? 3_000) - Date.now()));
    await setup.heal();

    const healedAt = Date.now();
    const expected = setup.keepsData ? "v2" : undefined;
    const seen: string[] = [];
    await waitFor(
      async () => {
        if (seen.length > 3) seen.shift();
        const values = [
          await a.cache.get("k"),
          await a.cache.get("k2"),
          await b.cache.get("k"),
          await b.cache.get("k2"),
          ...(setup.tagged
            ? [await a.cache.get("t"), await b.cache.get("t")]
            : []),
        ];
        seen.push(JSON.stringify(values));
        return values[0] === undefined && values[1] === expected &&
          values[2] === undefined && values[3] === expected &&
          values[4] === undefined && values[5] === undefined &&
          a.l2.isConnected && b.l2.isConnected;
      },
      `both instances to read k absent and k2=${expected}${
        setup.tagged ? " and t absent" : ""
      }`,
      setup.convergeMs ?? 10_000,
    ).catch(
      (error: Error) => {
        throw new Error(`${error.message}; last reads: ${seen.join(" ")}`);
      },
    );
    const convergedMs = Date.now() - healedAt;
    assert.equal(await setup.rawGet(`${FAST_REDIS.keyPrefix}k`), null);
    const raw = await setup.rawGet(`${FAST_REDIS.keyPrefix}k2`);
    if (setup.keepsData) {
      assert.equal(
        JSON.parse(raw ?? "null")?.value,
        "v2",
        `store holds ${raw}`,
      );
    } else assert.equal(raw, null);
    // And it stays so: nothing old comes back later.
    for (let i = 0; i < 5; i++) {
      await delay(50);
      assert.equal(await b.cache.get("k"), undefined);
      assert.equal(await b.cache.get("k2"), expected);
      assert.equal(await a.cache.get("k"), undefined);
      assert.equal(await a.cache.get("k2"), expected);
      if (setup.tagged) {
        assert.equal(await a.cache.get("t"), undefined);
        assert.equal(await b.cache.get("t"), undefined);
      }
    }
    return { convergedMs, journaled };
  } finally {
    await Promise.all([a.dispose(), b.dispose()]);
  }
}
