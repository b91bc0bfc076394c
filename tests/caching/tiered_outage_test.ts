// The tiered cache through Redis outages, with real redis-server processes:
// frozen (SIGSTOP/SIGCONT), killed and restarted empty, killed and restarted
// from its append-only file, one instance cut off while another keeps
// writing. What an instance changed while the store was away is re-sent when
// it answers again (last writer wins by storedAt), every instance drops the
// memory copies concerned, and nothing deleted or replaced is served again.
import assert from "node:assert/strict";
import { test as nodeTest } from "node:test";
import {
  CacheStoreError,
  CacheStoreRecovered,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  TieredCacheProvider,
} from "../../caching/mod.ts";
import {
  checkCoherenceThroughOutage,
  coherenceInstance,
  FAST_REDIS,
} from "./_coherence_scenario.ts";
import { startOutageProxy } from "./_outage_proxy.ts";
import {
  redisSkip,
  type RedisTestServer,
  startRedisServer,
  waitFor,
} from "./_redis_server.ts";
import { activeResources, assertNothingLeft } from "./_support.ts";
import { limited, RECONNECT_LIMIT } from "../_support/limits.ts";

// Tests here wait on Redis reconnecting after an outage they make: each has
// an explicit limit, on every runner (tests/_support/limits.ts).
const test = limited(nodeTest, RECONNECT_LIMIT);

const baseline = activeResources();
const skip = redisSkip;
const P = FAST_REDIS.keyPrefix;

const delay = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

function rawGetter(server: RedisTestServer) {
  return async (key: string): Promise<string | null> =>
    await (await server.client()).get(key);
}

function valueOf(raw: string | null): unknown {
  return raw === null ? null : JSON.parse(raw).value;
}

// Before: Redis still held k2=v1 after the freeze while the writer saw v2,
// and the second instance served the deleted k=v1 and the old k2 until their
// ttl.
test(
  "frozen 3 s (SIGSTOP/SIGCONT): the delete and the overwrite reach Redis and the other instance",
  { skip },
  async () => {
    await using server = await startRedisServer();
    await checkCoherenceThroughOutage({
      address: { host: server.host, port: server.port },
      fault: () => server.pause(),
      heal: () => server.resume(),
      rawGet: rawGetter(server),
      keepsData: true,
    });
  },
);

test(
  "killed and restarted without persistence: nothing old is served, nothing is re-created over the empty store",
  { skip },
  async () => {
    await using server = await startRedisServer();
    await checkCoherenceThroughOutage({
      address: { host: server.host, port: server.port },
      fault: () => server.stop(),
      heal: () => server.start(),
      rawGet: rawGetter(server),
      keepsData: false,
      outageMs: 1_000,
    });
  },
);

// Before: after the restart from the append-only file both instances read
// the pre-outage values: the delete came back and the overwrite was lost.
test(
  "killed and restarted from its append-only file: the deleted key stays deleted, the overwrite wins",
  { skip },
  async () => {
    await using server = await startRedisServer({ appendOnly: true });
    await checkCoherenceThroughOutage({
      address: { host: server.host, port: server.port },
      fault: () => server.stop(),
      heal: () => server.start(),
      rawGet: rawGetter(server),
      keepsData: true,
      outageMs: 1_000,
    });
  },
);

test(
  "a tag invalidation made while Redis is frozen is recorded on recovery and reaches the other instance",
  { skip },
  async () => {
    await using server = await startRedisServer();
    const a = await coherenceInstance({ host: server.host, port: server.port });
    const b = await coherenceInstance({ host: server.host, port: server.port });
    try {
      await a.cache.set("p1", "v1", { tags: ["products"] });
      assert.equal(await b.cache.get("p1"), "v1");
      await waitFor(
        async () =>
          (await b.cache.get("p1")) === "v1" && (await b.l1.has("p1")),
        "B to keep p1 in memory",
      );
      server.pause();
      await a.cache.invalidateTags(["products"]);
      assert.equal(await a.cache.get("p1"), undefined);
      await delay(1_000);
      server.resume();
      await waitFor(
        async () => (await b.cache.get("p1")) === undefined,
        "the other instance to drop the invalidated entry",
      );
      const raw = await server.client();
      const time = await raw.get(`${P}\u0000tag:products`);
      assert.ok(time !== null && Number(time) > 0, `tag time ${time}`);
      assert.equal(await a.cache.get("p1"), undefined);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  },
);

test(
  "outageMemoryTtl: during an outage an instance serves its memory copies only for that long",
  { skip },
  async () => {
    await using server = await startRedisServer();
    const a = await coherenceInstance({ host: server.host, port: server.port });
    const b = await coherenceInstance(
      { host: server.host, port: server.port },
      {
        tiered: { outageMemoryTtl: 400 },
      },
    );
    try {
      await a.cache.set("k", "v1");
      assert.equal(await b.cache.get("k"), "v1");
      await waitFor(
        async () => (await b.cache.get("k")) === "v1" && (await b.l1.has("k")),
        "B to keep k in memory",
      );
      server.pause();
      // B notices the outage (its read times out).
      assert.equal(await b.cache.get("absent"), undefined);
      assert.equal(await b.cache.get("k"), "v1", "still within the bound");
      await delay(500);
      assert.equal(await b.cache.get("k"), undefined, "past the bound: a miss");
      // Its own write during the outage is served again for the bound.
      await b.cache.set("mine", "m");
      assert.equal(await b.cache.get("mine"), "m");
      server.resume();
      await waitFor(() => b.l2.isConnected, "B to reconnect");
      assert.equal(await b.cache.get("k"), "v1", "from Redis again");
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  },
);

test(
  "the journal is bounded: writes beyond it become deletes, changes beyond that are dropped, counted and reported",
  { skip },
  async () => {
    await using server = await startRedisServer();
    const errors: unknown[] = [];
    const a = await coherenceInstance(
      { host: server.host, port: server.port },
      {
        store: { outageJournalSize: 2, onError: (e) => errors.push(e) },
      },
    );
    const b = await coherenceInstance({ host: server.host, port: server.port });
    try {
      for (let i = 0; i < 6; i++) await a.cache.set(`a${i}`, "old");
      for (let i = 0; i < 6; i++) {
        assert.equal(await b.cache.get(`a${i}`), "old");
      }
      await waitFor(async () => {
        for (let i = 0; i < 6; i++) await b.cache.get(`a${i}`);
        return b.l1.size === 6;
      }, "B to keep a0..a5 in memory");
      server.pause();
      assert.equal(await a.cache.get("absent"), undefined); // noticed
      const stored: number[] = [];
      for (let i = 0; i < 6; i++) {
        await a.cache.set(`a${i}`, "new");
        stored.push(Date.now());
      }
      // 2 writes keep their value, 4 become deletes of their key.
      assert.deepEqual(a.l2.recoveryStats, {
        pending: 6,
        resent: 0,
        degraded: 4,
        dropped: 0,
      });
      // Key-only changes are kept up to 4 × 2: three more drop the oldest.
      for (let i = 0; i < 3; i++) await a.cache.delete(`d${i}`);
      assert.deepEqual(a.l2.recoveryStats, {
        pending: 8,
        resent: 0,
        degraded: 4,
        dropped: 1,
      });
      server.resume();
      await waitFor(
        () => a.l2.recoveryStats.pending === 0,
        "the journal to be re-sent",
      );
      assert.equal(a.l2.recoveryStats.resent, 8);
      const raw = rawGetter(server);
      assert.equal(valueOf(await raw(`${P}a0`)), "old", "lost: kept as it was");
      for (let i = 1; i <= 3; i++) {
        assert.equal(await raw(`${P}a${i}`), null, `a${i} removed`);
      }
      for (let i = 4; i <= 5; i++) {
        assert.equal(valueOf(await raw(`${P}a${i}`)), "new", `a${i} re-sent`);
      }
      // A lost change: every instance drops its whole memory layer, so both
      // read what Redis holds.
      await waitFor(
        () => b.l1.size === 0,
        "the other instance to drop its memory layer",
      );
      for (let i = 0; i < 6; i++) {
        const expected = i === 0 ? "old" : i >= 4 ? "new" : undefined;
        assert.equal(await b.cache.get(`a${i}`), expected, `b a${i}`);
        assert.equal(await a.cache.get(`a${i}`), expected, `a a${i}`);
      }
      const report = errors.find((e) =>
        e instanceof CacheStoreError && e.command === "resend"
      ) as CacheStoreError | undefined;
      assert.ok(report, "the loss is reported");
      assert.match(
        String((report.cause as Error).message),
        /outageJournalSize 2\) was full: 4 writes were re-sent as deletes of their keys and 1 changes were lost/,
      );
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  },
);

test(
  "out of order: a write re-sent by an instance that was cut off never beats a newer write or a delete made meanwhile",
  { skip },
  async () => {
    await using server = await startRedisServer();
    await using proxy = await startOutageProxy(server);
    const a = await coherenceInstance({ host: proxy.host, port: proxy.port }); // cut off below
    const b = await coherenceInstance({ host: server.host, port: server.port }); // stays connected
    try {
      for (const key of ["k1", "k2", "k3"]) await b.cache.set(key, "v1");
      proxy.cut();
      assert.equal(await a.cache.get("absent"), undefined); // noticed
      await a.cache.set("k1", "from-a"); // older than B's write below
      await a.cache.set("k2", "from-a"); // older than B's delete below
      await a.cache.set("k3", "from-a"); // nobody else touches it
      await delay(20);
      await b.cache.set("k1", "from-b");
      await b.cache.delete("k2");
      proxy.heal();
      await waitFor(
        () => a.l2.recoveryStats.pending === 0 && a.l2.isConnected,
        "the cut-off instance to re-send",
      );
      assert.equal(a.l2.recoveryStats.resent, 3);
      const raw = rawGetter(server);
      assert.equal(valueOf(await raw(`${P}k1`)), "from-b");
      assert.equal(await raw(`${P}k2`), null);
      assert.equal(valueOf(await raw(`${P}k3`)), "from-a");
      for (const instance of [a, b]) {
        assert.equal(await instance.cache.get("k1"), "from-b");
        assert.equal(await instance.cache.get("k2"), undefined);
        await waitFor(
          async () => (await instance.cache.get("k3")) === "from-a",
          "k3 everywhere",
        );
      }
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  },
);

test(
  "while the journal is re-sent, reads of a key with a pending change answer that change, not the older value Redis still holds",
  { skip },
  async () => {
    await using server = await startRedisServer();
    const reads: Promise<unknown>[] = [];
    const provider: RemoteStoreCacheProvider = new RemoteStoreCacheProvider({
      ...FAST_REDIS,
      host: server.host,
      port: server.port,
      onError: (report) => {
        // Reported as the store answers again, before the re-send ends.
        if (report instanceof CacheStoreRecovered) {
          reads.push(
            provider.get("k199").then((entry) => entry?.value),
            provider.readOrLock("k199", 1_000).then(({ entry }) =>
              entry?.value
            ),
          );
        }
      },
    });
    const entry = (value: string) => ({ value, storedAt: Date.now() });
    try {
      for (let i = 0; i < 200; i++) await provider.set(`k${i}`, entry("old"));
      server.pause();
      assert.equal(await provider.get("absent"), undefined); // noticed
      for (let i = 0; i < 200; i++) await provider.set(`k${i}`, entry("new"));
      server.resume();
      await waitFor(
        () => provider.recoveryStats.pending === 0 && reads.length === 2,
        "the re-send",
      );
      assert.deepEqual(await Promise.all(reads), ["new", "new"]);
      assert.equal(valueOf(await rawGetter(server)(`${P}k199`)), "new");
    } finally {
      await provider.dispose();
    }
  },
);

test("bad outage options are refused with a message naming the option", () => {
  assert.throws(
    () => new RemoteStoreCacheProvider({ outageJournalSize: -1 }),
    /^CacheSettingError: RemoteStoreCacheProvider outageJournalSize must be an integer from 0 to \d+: -1$/,
  );
  assert.throws(
    () =>
      new TieredCacheProvider(
        new MemoryCacheProvider({ cleanupInterval: 0 }),
        new MemoryCacheProvider({ cleanupInterval: 0 }),
        { outageMemoryTtl: Number.NaN },
      ),
    /^RangeError: TieredCacheProvider outageMemoryTtl must be a number from 0 \(Infinity allowed\): NaN$/,
  );
});

// Without a limit of its own: a limit is a timer, which this check counts
// (it is bounded by assertNothingLeft's deadline).
nodeTest("nothing is left running", async () => {
  await assertNothingLeft(baseline);
});
