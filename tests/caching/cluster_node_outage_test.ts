// One primary of a real three-primary Redis Cluster fails (frozen with
// SIGSTOP, or killed until its replica takes over) while the provider reads
// keys on all three primaries' slots. The failure must stay the failed
// primary's: keys on the other two keep hitting, keys on its slots miss at
// once (after the one command that found it down), and what was deleted,
// overwritten or invalidated on its slots meanwhile reaches them when they
// answer again. Each test prints its figures: the miss ratio on the healthy
// primaries during the outage, and how long the failed slots kept missing
// once they were back.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import {
  type CacheError,
  CacheManager,
  CacheStoreRecovered,
  CacheStoreUnavailableError,
  RemoteStoreCacheProvider,
  type RemoteStoreCacheProviderOptions,
} from "../../caching/mod.ts";
import {
  redisClusterSkip,
  type RedisTestCluster,
  startRedisCluster,
} from "../_support/redis_cluster.ts";
import { waitFor } from "../_support/wait_for.ts";
import { type BusMember, busMember } from "./_redis_topology.ts";
import { activeResources, assertNothingLeft } from "./_support.ts";

const baseline = activeResources();
const skip = redisClusterSkip;
const P = "node-outage:";
// Long enough that a read which waited for it cannot pass for a quick miss,
// even on a loaded machine.
const COMMAND_TIMEOUT = 3_000;
/** A miss answered without waiting for a node: well under COMMAND_TIMEOUT. */
const QUICK = COMMAND_TIMEOUT / 2;
// Cluster start-up (up to 40 s of bounded waits), the outage, the recovery.
const TIMEOUT = 150_000;

// The frozen-primary tests share one cluster whose node timeout is far
// longer than any of them: a node that comes back before the cluster gives
// up on it (a pause, a restart; Redis's default timeout is 15 s) takes no
// failover. Each test thaws what it froze.
let frozenCluster: Promise<RedisTestCluster> | undefined;
const withoutFailover = () =>
  frozenCluster ??= startRedisCluster({ nodeTimeout: 120_000 });
async function closeFrozenCluster(): Promise<void> {
  const cluster = frozenCluster;
  frozenCluster = undefined;
  await (await cluster?.catch(() => undefined))?.close();
}
// Also when the last test is filtered out or fails before closing it.
after(closeFrozenCluster);

const OPTIONS: RemoteStoreCacheProviderOptions = {
  keyPrefix: P,
  commandTimeout: COMMAND_TIMEOUT,
  connectTimeout: 2_000,
  reconnectDelay: 20,
  maxReconnectDelay: 200,
};

/** Which keys live where, chosen from the cluster's own slot map. */
interface Layout {
  victim: string;
  /** Keys on the victim's slots: [deleted, overwritten, read…]. */
  victimKeys: string[];
  /** Keys on the two other primaries' slots, five each. */
  healthyKeys: string[];
  /** A key on another primary, deleted during the outage. */
  healthyDeleted: string;
  /** A key on another primary, tagged with `tag`. */
  tagged: string;
  /** A tag whose key (its invalidation time) lives on the victim's slots. */
  tag: string;
}

async function layout(cluster: RedisTestCluster): Promise<Layout> {
  const [victim, ...others] = (await cluster.primaries()).sort();
  assert.equal(others.length, 2, "three primaries");
  const keys = Array.from({ length: 150 }, (_, i) => `k${i}`);
  const owners = await cluster.primariesOf(keys.map((key) => P + key));
  const on = (address: string) => keys.filter((_, i) => owners[i] === address);
  const victimKeys = on(victim).slice(0, 6);
  const [a, b] = others.map((address) => on(address).slice(0, 7));
  assert.ok(
    victimKeys.length === 6 && a.length === 7 && b.length === 7,
    "enough keys on each primary",
  );
  const tags = Array.from({ length: 150 }, (_, i) => `tag${i}`);
  const tagOwners = await cluster.primariesOf(
    tags.map((tag) => `${P}\u0000tag:${tag}`),
  );
  const tag = tags.find((_, i) => tagOwners[i] === victim);
  assert.ok(tag !== undefined, "a tag kept on the victim's slots");
  return {
    victim,
    victimKeys,
    healthyKeys: [...a.slice(0, 5), ...b.slice(0, 5)],
    healthyDeleted: a[5],
    tagged: b[5],
    tag,
  };
}

/** Reads, sorted by the slots' state, with their durations. */
class Reads {
  healthyHits = 0;
  healthyMisses = 0;
  victimHits = 0;
  victimMisses = 0;
  /** The slowest read of the victim's keys, in milliseconds. */
  victimSlowest = 0;
  /** When the healthy primaries' first and last miss were read. */
  healthyMissedFrom: number | undefined;
  healthyMissedTo: number | undefined;

  get healthyMissRatio(): number {
    const total = this.healthyHits + this.healthyMisses;
    return total === 0 ? NaN : this.healthyMisses / total;
  }

  /** Reads every key once; `true` when a key of the victim hit. */
  async round(cache: CacheManager, plan: Layout): Promise<boolean> {
    let victimHit = false;
    for (const key of plan.healthyKeys) {
      if ((await cache.get(key)) === key) this.healthyHits++;
      else {
        this.healthyMisses++;
        this.healthyMissedTo = performance.now();
        this.healthyMissedFrom ??= this.healthyMissedTo;
      }
    }
    for (const key of plan.victimKeys.slice(2)) {
      const started = performance.now();
      const value = await cache.get(key);
      this.victimSlowest = Math.max(
        this.victimSlowest,
        performance.now() - started,
      );
      if (value === key) {
        this.victimHits++;
        victimHit = true;
      } else this.victimMisses++;
    }
    return victimHit;
  }
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;

/** Writes every key of the layout, and checks they read back. */
async function fill(cache: CacheManager, plan: Layout): Promise<void> {
  for (const key of [...plan.healthyKeys, ...plan.victimKeys]) {
    await cache.set(key, key);
  }
  await cache.set(plan.healthyDeleted, "kept until deleted");
  await cache.set(plan.tagged, "tagged", { tags: [plan.tag] });
  for (const key of [...plan.healthyKeys, ...plan.victimKeys]) {
    assert.equal(await cache.get(key), key, `${key} before the fault`);
  }
  assert.equal(await cache.get(plan.tagged), "tagged");
}

/**
 * The changes made while the victim is down: a delete and an overwrite of
 * its keys, a tag kept on its slots, and a delete on another primary.
 */
async function changeDuringOutage(
  cache: CacheManager,
  plan: Layout,
): Promise<void> {
  await cache.delete(plan.victimKeys[0]);
  await cache.set(plan.victimKeys[1], "overwritten");
  await cache.invalidateTags([plan.tag]);
  await cache.delete(plan.healthyDeleted);
  // The other primaries took what was theirs; only the victim's slots' three
  // changes wait for them.
  assert.equal(await cache.get(plan.healthyDeleted), undefined);
}

/**
 * What an instance that held nothing back reads once the victim's slots
 * answer again: every change made during the outage.
 */
async function assertChangesLanded(
  plan: Layout,
  cluster: RedisTestCluster,
): Promise<void> {
  // Not through the victim: a frozen node would hold node-redis's first
  // reading of the slots.
  const other = new CacheManager(
    new RemoteStoreCacheProvider({
      ...OPTIONS,
      cluster: {
        nodes: cluster.addresses.filter((address) => address !== plan.victim),
      },
      onError: () => {},
    }),
    { onError: () => {} },
  );
  try {
    assert.equal(await other.get(plan.victimKeys[0]), undefined, "deleted");
    assert.equal(await other.get(plan.victimKeys[1]), "overwritten");
    assert.equal(await other.get(plan.tagged), undefined, "tag invalidated");
    assert.equal(await other.get(plan.healthyDeleted), undefined);
    for (const key of plan.victimKeys.slice(2)) {
      assert.equal(await other.get(key), key);
    }
  } finally {
    await other.dispose();
  }
}

test(
  "cluster: while one primary is frozen its keys miss at once and the other primaries' keys keep hitting; what changed on its slots meanwhile lands when it thaws",
  { skip, timeout: TIMEOUT },
  async () => {
    const cluster = await withoutFailover();
    const plan = await layout(cluster);
    const errors: CacheError[] = [];
    const store = new RemoteStoreCacheProvider({
      ...OPTIONS,
      cluster: { nodes: cluster.addresses },
      onError: (error) => errors.push(error),
    });
    const cache = new CacheManager(store, { onError: () => {} });
    try {
      await fill(cache, plan);
      cluster.pause(plan.victim);
      // The one command that finds the frozen node waits for commandTimeout.
      assert.equal(await cache.get(plan.victimKeys[2]), undefined);
      await waitFor(
        () =>
          errors.some((error) => error instanceof CacheStoreUnavailableError),
        "an outage reported",
        COMMAND_TIMEOUT * 3,
        10,
      );
      await changeDuringOutage(cache, plan);
      const heldBack = store.recoveryStats.pending;

      const reads = new Reads();
      for (let i = 0; i < 5; i++) await reads.round(cache, plan);
      assert.equal(await cache.get(plan.tagged), undefined, "tag unreadable");
      const health = await store.checkHealth();

      cluster.resume(plan.victim);
      const resumed = performance.now();
      await waitFor(
        async () =>
          (await cache.get(plan.victimKeys[2])) === plan.victimKeys[2],
        "a key of the thawed primary to hit",
        20_000,
        10,
      );
      const backMs = performance.now() - resumed;
      await waitFor(
        () => store.recoveryStats.pending === 0,
        "the held-back changes to be re-sent",
        20_000,
        10,
      );
      assert.equal(await cache.get(plan.tagged), undefined);
      await assertChangesLanded(plan, cluster);
      assert.equal((await store.checkHealth()).status, "healthy");

      console.log(
        `frozen primary: healthy primaries missed ${
          percent(reads.healthyMissRatio)
        } of ${
          reads.healthyHits + reads.healthyMisses
        } reads; its keys answered within ${
          reads.victimSlowest.toFixed(0)
        } ms each and hit again ${backMs.toFixed(0)} ms after SIGCONT`,
      );
      assert.equal(reads.healthyMisses, 0, "healthy primaries keep hitting");
      assert.equal(heldBack, 3, "held back: the frozen primary's 3 changes");
      // The health check names the primary and the slots that do not answer.
      assert.equal(health.status, "degraded");
      const down = (health.detail as Record<string, unknown>)
        .unreachable as Array<Record<string, unknown>>;
      assert.deepEqual(down?.map((entry) => entry.primary), [plan.victim]);
      assert.match(String(down[0].slots), /^\d+-\d+/);
      assert.equal(reads.victimHits, 0);
      assert.ok(
        reads.victimSlowest < QUICK,
        `the frozen primary's keys miss without waiting: ${reads.victimSlowest} ms`,
      );
      const reports = errors.filter((error) =>
        error instanceof CacheStoreUnavailableError ||
        error instanceof CacheStoreRecovered
      ).map((error) =>
        `${error.name} ${(error as CacheStoreRecovered).address}`
      );
      assert.deepEqual(reports, [
        `CacheStoreUnavailableError ${plan.victim}`,
        `CacheStoreRecovered ${plan.victim}`,
      ]);
    } finally {
      cluster.resume(plan.victim);
      await cache.dispose();
    }
  },
);

test(
  "cluster: while the primary of the invalidation channel's slot is frozen, another primary carries the invalidations to the other instances",
  { skip, timeout: TIMEOUT },
  async () => {
    const cluster = await withoutFailover();
    const keyPrefix = "bus-outage:";
    const channel = `kit:cache:invalidation:0:${keyPrefix}`;
    const [victim] = await cluster.primariesOf([channel]);
    const keys = Array.from({ length: 30 }, (_, i) => `k${i}`);
    const owners = await cluster.primariesOf(keys.map((k) => keyPrefix + k));
    const key = keys.find((_, i) => owners[i] !== victim)!;
    // Each instance subscribes through a node node-redis picks at random: a
    // pair whose subscriptions do not sit on the victim is kept (the
    // subscribers of a frozen node hear nothing, which is not the point).
    let pair: [BusMember, BusMember] | undefined;
    for (let attempt = 0; attempt < 20 && pair === undefined; attempt++) {
      const members = [0, 1].map(() =>
        busMember(
          new RemoteStoreCacheProvider({
            ...OPTIONS,
            keyPrefix,
            cluster: { nodes: cluster.addresses },
            onError: () => {},
          }),
          () => {},
        )
      ) as [BusMember, BusMember];
      for (const member of members) {
        assert.equal(await member.tiered.connect(), true);
      }
      const port = Number(victim.split(":")[1]);
      const reply = await cluster.cli(port, ["PUBSUB", "NUMSUB", channel]);
      if (reply.trim().split("\n")[1]?.trim() === "0") pair = members;
      else await Promise.all(members.map((member) => member.cache.dispose()));
    }
    assert.ok(pair !== undefined, "two subscriptions off the victim");
    const [a, b] = pair;
    try {
      await a.cache.set(key, "v1");
      await waitFor(
        async () =>
          (await b.cache.get(key)) === "v1" && (await b.tiered.l1.has(key)),
        "b to keep the key in memory",
      );
      cluster.pause(victim);
      b.received.length = 0;
      // The first PUBLISH waits for commandTimeout on the frozen primary,
      // then goes through another one.
      await a.cache.set(key, "v2");
      await waitFor(
        () => b.received.some((message) => message.keys?.includes(key)),
        "b to receive a's invalidation",
        COMMAND_TIMEOUT * 3,
        10,
      );
      assert.equal(await b.cache.get(key), "v2");
      // Once the channel's slots are known down, at once.
      b.received.length = 0;
      const started = performance.now();
      await a.cache.set(key, "v3");
      await waitFor(
        () => b.received.some((message) => message.keys?.includes(key)),
        "b to receive a's second invalidation",
        COMMAND_TIMEOUT * 3,
        10,
      );
      assert.ok(performance.now() - started < QUICK, "without waiting");
      assert.equal(await b.cache.get(key), "v3");
    } finally {
      cluster.resume(victim);
      await Promise.all([a.cache.dispose(), b.cache.dispose()]);
    }
  },
);

test(
  "cluster: with two primaries frozen, the one that thaws first gets the changes held back for its slots while the other's keep waiting",
  { skip, timeout: TIMEOUT },
  async () => {
    const cluster = await withoutFailover();
    const keyPrefix = "two-frozen:";
    const [first, second, third] = (await cluster.primaries()).sort();
    const keys = Array.from({ length: 60 }, (_, i) => `k${i}`);
    const owners = await cluster.primariesOf(keys.map((k) => keyPrefix + k));
    const [onFirst, onSecond, onThird] = [first, second, third].map((at) =>
      keys.find((_, i) => owners[i] === at)!
    );
    const options = {
      ...OPTIONS,
      keyPrefix,
      cluster: { nodes: cluster.addresses },
      onError: () => {},
    };
    const store = new RemoteStoreCacheProvider(options);
    const cache = new CacheManager(store, { onError: () => {} });
    // What a primary holds, asked of it directly.
    const exists = async (at: string, key: string) =>
      (await cluster.cli(Number(at.split(":")[1]), ["EXISTS", keyPrefix + key]))
        .trim();
    try {
      for (const key of [onFirst, onSecond, onThird]) {
        await cache.set(key, key);
      }
      assert.equal(await exists(second, onSecond), "1");
      cluster.pause(first);
      cluster.pause(second);
      // Held back in this order: the second primary's delete, then the
      // first's (each waits commandTimeout once, finding its node frozen).
      await cache.delete(onSecond);
      await cache.delete(onFirst);
      assert.equal(store.recoveryStats.pending, 2);
      assert.equal(await cache.get(onThird), onThird, "the third serves");

      cluster.resume(first);
      await waitFor(
        () => store.recoveryStats.pending === 1,
        "the first primary's delete to be re-sent",
        20_000,
        10,
      );
      assert.equal(await exists(first, onFirst), "0", "deleted");
      assert.equal(await cache.get(onThird), onThird);

      cluster.resume(second);
      await waitFor(
        () => store.recoveryStats.pending === 0,
        "the second primary's delete to be re-sent",
        20_000,
        10,
      );
      assert.equal(await exists(second, onSecond), "0", "deleted");
      assert.equal(store.recoveryStats.resent, 2);
    } finally {
      cluster.resume(first);
      cluster.resume(second);
      await cache.dispose();
    }
  },
);

const failovers = [
  { fault: "killed", requireFullCoverage: false },
  { fault: "killed", requireFullCoverage: true },
  // Frozen for good: its connection stays open and no MOVED ever comes from
  // it, so only another primary can tell who serves its slots now.
  { fault: "frozen", requireFullCoverage: false },
] as const;

for (const { fault, requireFullCoverage } of failovers) {
  test(
    `cluster: a ${fault} primary's keys miss at once until its replica takes over, ${
      requireFullCoverage
        ? "the other primaries' keys miss only while Redis refuses every key (cluster-require-full-coverage yes)"
        : "the other primaries' keys keep hitting (cluster-require-full-coverage no)"
    }; what changed on its slots meanwhile lands on the replica`,
    { skip, timeout: TIMEOUT },
    async () => {
      await using cluster = await startRedisCluster({ requireFullCoverage });
      const plan = await layout(cluster);
      const store = new RemoteStoreCacheProvider({
        ...OPTIONS,
        cluster: { nodes: cluster.addresses },
        onError: () => {},
      });
      const cache = new CacheManager(store, { onError: () => {} });
      try {
        await fill(cache, plan);
        await cluster.replicasInSync();
        if (fault === "killed") await cluster.kill(plan.victim);
        else cluster.pause(plan.victim);
        const killedAt = performance.now();
        let takenOverAt: number | undefined;
        const takeover = cluster.waitForTakeover(plan.victim).then(() => {
          takenOverAt = performance.now();
        });
        // Settled (or failed) whatever the test does meanwhile: no late error.
        takeover.catch(() => {});
        await changeDuringOutage(cache, plan);
        const heldBack = store.recoveryStats.pending;

        // Every key, round after round, from the fault until a key of the
        // victim's slots hits again (served by the promoted replica).
        const reads = new Reads();
        let backAt: number | undefined;
        const deadline = performance.now() + 30_000;
        while (backAt === undefined) {
          assert.ok(performance.now() < deadline, "a takeover within 30 s");
          if (await reads.round(cache, plan)) backAt = performance.now();
          // A failed takeover ends the loop with its own error.
          await Promise.race([takeover, new Promise((r) => setTimeout(r, 20))]);
        }
        await takeover;
        const backMs = backAt - takenOverAt!;
        await waitFor(
          () => store.recoveryStats.pending === 0,
          "the held-back changes to be re-sent",
          20_000,
          10,
        );
        assert.equal(await cache.get(plan.tagged), undefined);
        await assertChangesLanded(plan, cluster);

        console.log(
          `${fault} primary, replica promoted (full coverage ${
            requireFullCoverage ? "yes" : "no"
          }): healthy primaries missed ${percent(reads.healthyMissRatio)} of ${
            reads.healthyHits + reads.healthyMisses
          } reads until its slots hit again${
            reads.healthyMissedFrom === undefined
              ? ""
              : ` (from ${(reads.healthyMissedFrom - killedAt).toFixed(0)} to ${
                (reads.healthyMissedTo! - killedAt).toFixed(0)
              } ms after the fault)`
          }; its keys answered within ${
            reads.victimSlowest.toFixed(0)
          } ms each and hit again ${
            (backAt - killedAt).toFixed(0)
          } ms after the fault, ${
            backMs.toFixed(0)
          } ms after the fixture saw the replica take over`,
        );
        assert.ok(
          reads.victimSlowest < QUICK,
          `the failed primary's keys miss without waiting: ${reads.victimSlowest} ms`,
        );
        if (!requireFullCoverage) {
          assert.equal(
            heldBack,
            3,
            "held back: the failed primary's 3 changes",
          );
          assert.equal(
            reads.healthyMisses,
            0,
            "healthy primaries keep hitting",
          );
        } else {
          // Redis itself refuses every key between the failure's detection
          // and the promotion (about a second here), so a change made then
          // is held back too; before and after it, the healthy primaries'
          // keys hit.
          assert.ok(heldBack >= 3, `held back: ${heldBack}`);
          assert.ok(reads.healthyHits > 0, "healthy primaries hit");
        }
      } finally {
        await cache.dispose();
        cluster.resume(plan.victim);
      }
    },
  );
}

// Apart from the check below: a test's own timeout is a timer of its own.
test("the shared cluster closes", { timeout: 60_000 }, async () => {
  await closeFrozenCluster();
});

test("nothing is left running", async () => {
  await assertNothingLeft(baseline);
});
