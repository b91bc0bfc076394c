// The tiered cache through a Redis failover, with real processes: a primary
// named by Redis Sentinel killed until the sentinels promote its replica,
// and a Redis Cluster primary killed until its replica takes over. Two
// instances (each its own memory layer and its own connections) write,
// delete and invalidate a tag while the primary is gone; once the replica
// serves, neither may serve the deleted key, the replaced value or the
// invalidated entry.
//
// What these tests hold Kit to, precisely: a change the old primary never
// answered (sent after its death, or lost with it unanswered) is kept in the
// writer's outage journal and re-sent to the new primary. A write the old
// primary answered but had not passed to its replica is lost by Redis
// itself (asynchronous replication; `WAIT` or `min-replicas-to-write` are
// the server's remedies): the journal never held it. So before the fault
// each test waits until the replica has everything written so far, and
// the last two tests show what Kit does with such a lost write: every
// instance drops its memory copies at the failover, so all of them answer
// what the new primary holds, the writer included.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test as nodeTest } from "node:test";
import type { RemoteStoreCacheProviderOptions } from "../../caching/mod.ts";
import {
  checkCoherenceThroughOutage,
  coherenceInstance,
  FAST_REDIS,
} from "./_coherence_scenario.ts";
import {
  redisSentinelSkip,
  startRedisSentinel,
} from "../_support/redis_sentinel.ts";
import {
  redisClusterSkip,
  startRedisCluster,
} from "../_support/redis_cluster.ts";
import { findBinary } from "../_support/redis_process.ts";
import { waitFor } from "../_support/wait_for.ts";
import { activeResources, assertNothingLeft } from "./_support.ts";
import { FAILOVER_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on a Redis failover: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, FAILOVER_LIMIT);

const baseline = activeResources();
const P = FAST_REDIS.keyPrefix;
// A failover takes a few seconds here (the sentinels' or the cluster's own
// detection and election); the fixture's start and the scenario's bounded
// waits fit well within this.
const TIMEOUT = 90_000;

/**
 * Waits until every replica of the primaries at `addresses` acknowledged
 * the primary's whole replication stream (`INFO replication`: each
 * `slaveN:…offset=` equals `master_repl_offset`). Replicas acknowledge once
 * a second.
 */
async function replicasInSync(
  addresses: string[],
  info: (address: string) => Promise<string>,
): Promise<void> {
  await waitFor(
    async () => {
      for (const address of addresses) {
        const text = await info(address);
        const primary = /master_repl_offset:(\d+)/.exec(text)?.[1];
        const replicas = [...text.matchAll(/^slave\d+:.*offset=(\d+)/gm)];
        if (primary === undefined || replicas.length === 0) return false;
        if (replicas.some((match) => match[1] !== primary)) return false;
      }
      return true;
    },
    `the replicas of ${addresses.join(", ")} in sync`,
    20_000,
    50,
  );
}

/**
 * Runs `commands` in one redis-cli session on 127.0.0.1:`port` (one
 * connection) and answers the output; empty after 5 s or on failure.
 */
function cliSession(port: number, commands: string[][]): Promise<string> {
  return new Promise((resolve) => {
    const child = execFile(
      findBinary("redis-cli") ?? "redis-cli",
      ["-h", "127.0.0.1", "-p", String(port)],
      { timeout: 5_000 },
      (error, stdout) => resolve(error === null ? String(stdout) : ""),
    );
    child.stdin?.end(commands.map((args) => args.join(" ")).join("\n") + "\n");
  });
}

/** A key's raw value; throws when the node does not answer. */
async function rawValue(
  run: (args: string[]) => Promise<string>,
  key: string,
): Promise<string | null> {
  const exists = (await run(["EXISTS", key])).trim();
  if (exists !== "0" && exists !== "1") {
    throw new Error(`no answer to EXISTS ${key}: ${JSON.stringify(exists)}`);
  }
  return exists === "0" ? null : (await run(["GET", key])).trim();
}

test(
  "sentinel failover: a delete, an overwrite and a tag invalidation made while the primary is dead reach the new primary and both instances",
  { skip: redisSentinelSkip, timeout: TIMEOUT },
  async () => {
    await using set = await startRedisSentinel();
    let old = "";
    const { convergedMs, journaled } = await checkCoherenceThroughOutage({
      address: { sentinel: { name: set.name, nodes: set.sentinels } },
      replicated: async () =>
        await replicasInSync(
          [await set.primary()],
          (address) => set.cli(address, ["INFO", "replication"]),
        ),
      fault: async () => {
        old = await set.primary();
        await set.kill(old);
      },
      // The promotion itself: the sentinels' detection and election.
      heal: async () => {
        await set.waitForNewPrimary(old);
      },
      outageMs: 0,
      rawGet: (key) =>
        rawValue((args) => set.primary().then((at) => set.cli(at, args)), key),
      keepsData: true,
      tagged: true,
    });
    assert.notEqual(await set.primary(), old);
    // The delete, the overwrite and the tag went through the journal.
    assert.equal(journaled, 3);
    console.log(`sentinel: coherent ${convergedMs} ms after the promotion`);
  },
);

test(
  "cluster node failure: a delete, an overwrite and a tag invalidation made while a primary is dead reach its replica and both instances",
  { skip: redisClusterSkip, timeout: TIMEOUT },
  async () => {
    await using cluster = await startRedisCluster();
    // The primary of the overwritten key dies (the deleted key and the tag
    // may live on it or elsewhere: both kinds of slot are then covered).
    const victim = await cluster.primaryOf(`${P}k2`);
    const node = cluster.nodes.find((n) => n.address === victim)!;
    let takenOver: Promise<void> | undefined;
    const live = () => cluster.nodes.find((n) => n.running)!.port;
    const { convergedMs, journaled } = await checkCoherenceThroughOutage({
      address: { cluster: { nodes: cluster.addresses } },
      replicated: async () =>
        await replicasInSync(
          await cluster.primaries(),
          (address) =>
            cluster.cli(Number(address.split(":")[1]), ["INFO", "replication"]),
        ),
      fault: async () => {
        takenOver = cluster.killPrimary(victim);
        await waitFor(() => !node.running, `${victim} to die`);
      },
      heal: async () => {
        await takenOver;
      },
      outageMs: 0,
      rawGet: (key) =>
        rawValue((args) => cluster.cli(live(), ["-c", ...args]), key),
      keepsData: true,
      tagged: true,
    });
    assert.ok(!(await cluster.primaries()).includes(victim));
    // At least the overwrite of the dead primary's key was journaled.
    assert.ok(journaled >= 1, `journaled ${journaled}`);
    console.log(
      `cluster: coherent ${convergedMs} ms after the takeover, ${journaled} changes journaled`,
    );
  },
);

/** How one topology loses an answered write, for {@linkcode checkLostWrite}. */
interface LostWriteSetup {
  address: RemoteStoreCacheProviderOptions;
  /** Runs a command on the data node at `address`. */
  cli(address: string, args: string[]): Promise<string>;
  /** The primary serving `key` now. */
  primaryOf(key: string): Promise<string>;
  /** A key's raw value on the replica at `address`, `null` when absent. */
  onReplica(address: string, key: string): Promise<string | null>;
  /** Kills `primary` and settles once its replica serves its keys. */
  failover(primary: string): Promise<void>;
}

/**
 * Redis's own window, made certain: the replica's link to the primary is
 * cut (and kept cut: it can no longer authenticate), the primary answers a
 * write, then dies. The journal never held that write (it was answered), so
 * Kit cannot re-send it; what Kit guarantees is that no instance keeps
 * serving it from memory: all of them answer what the new primary holds.
 */
async function checkLostWrite(setup: LostWriteSetup): Promise<void> {
  const a = await coherenceInstance(setup.address);
  const b = await coherenceInstance(setup.address);
  try {
    await a.cache.set("lost", "v1");
    await waitFor(
      async () =>
        (await b.cache.get("lost")) === "v1" && (await b.l1.has("lost")),
      "B to keep lost=v1 in memory",
    );
    const old = await setup.primaryOf(`${P}lost`);
    const info = (at: string) => setup.cli(at, ["INFO", "replication"]);
    await replicasInSync([old], info);
    const port = /^slave0:.*port=(\d+)/m.exec(await info(old))?.[1];
    assert.ok(port !== undefined, `a replica of ${old}`);
    const replica = `127.0.0.1:${port}`;
    const on = (at: string) => (args: string[]) => setup.cli(at, args);
    assert.match((await setup.onReplica(replica, `${P}lost`))!, /"v1"/);
    // Cut replication: a password the primary refuses, then drop the link.
    assert.equal(
      (await setup.cli(replica, ["CONFIG", "SET", "masterauth", "wrong"]))
        .trim(),
      "OK",
    );
    await setup.cli(replica, ["CLIENT", "KILL", "TYPE", "master"]);
    await waitFor(
      async () => (await info(replica)).includes("master_link_status:down"),
      "the replica's link down",
      20_000,
      50,
    );
    await a.cache.set("lost", "v2");
    assert.equal(await a.cache.get("lost"), "v2");
    // B too holds the soon-lost value in memory: nobody publishes anything
    // about this key after it, so only the drop at the switch removes it.
    await waitFor(
      async () =>
        (await b.cache.get("lost")) === "v2" && (await b.l1.has("lost")),
      "B to keep lost=v2 in memory",
    );
    assert.equal(a.l2.recoveryStats.pending, 0, "answered: not journaled");
    assert.match((await rawValue(on(old), `${P}lost`))!, /"v2"/);
    assert.match((await setup.onReplica(replica, `${P}lost`))!, /"v1"/);

    await setup.failover(old);
    assert.equal(await setup.primaryOf(`${P}lost`), replica);
    const seen: string[] = [];
    await waitFor(
      async () => {
        const values = [await a.cache.get("lost"), await b.cache.get("lost")];
        seen.push(JSON.stringify(values));
        return values[0] === "v1" && values[1] === "v1" &&
          a.l2.isConnected && b.l2.isConnected;
      },
      "both instances to answer the new primary's lost=v1",
      10_000,
    ).catch(
      (error: Error) => {
        throw new Error(`${error.message}; reads: ${seen.slice(-4)}`);
      },
    );
    // And a write after the failover is served from then on.
    await a.cache.set("lost", "v3");
    await waitFor(
      async () => (await b.cache.get("lost")) === "v3",
      "B to read the write made after the failover",
    );
    assert.equal(await a.cache.get("lost"), "v3");
  } finally {
    await Promise.all([a.dispose(), b.dispose()]);
  }
}

test(
  "sentinel failover after an answered write the replica never received: every instance answers what the new primary holds, the writer included",
  { skip: redisSentinelSkip, timeout: TIMEOUT },
  async () => {
    await using set = await startRedisSentinel({ password: "data-secret" });
    await checkLostWrite({
      address: {
        sentinel: { name: set.name, nodes: set.sentinels },
        password: "data-secret",
      },
      cli: (at, args) => set.cli(at, args),
      primaryOf: () => set.primary(),
      onReplica: (at, key) => rawValue((args) => set.cli(at, args), key),
      failover: async (old) => {
        await set.kill(old);
        await set.waitForNewPrimary(old);
      },
    });
  },
);

test(
  "cluster failover after an answered write the replica never received: every instance answers what the new primary holds, the writer included",
  { skip: redisClusterSkip, timeout: TIMEOUT },
  async () => {
    await using cluster = await startRedisCluster();
    await checkLostWrite({
      address: { cluster: { nodes: cluster.addresses } },
      cli: (at, args) => cluster.cli(Number(at.split(":")[1]), args),
      primaryOf: (key) => cluster.primaryOf(key),
      // A cluster replica answers reads only after READONLY on the same
      // connection.
      onReplica: (at, key) =>
        rawValue(async (args) => {
          const lines = (await cliSession(Number(at.split(":")[1]), [
            ["READONLY"],
            args,
          ])).trim().split("\n");
          if (lines[0] !== "OK") return "";
          return lines.slice(1).join("\n");
        }, key),
      failover: (old) => cluster.killPrimary(old),
    });
  },
);

// Without a limit of its own: a limit is a timer, which this check counts
// (it is bounded by assertNothingLeft's deadline).
nodeTest("nothing is left running", async () => {
  await assertNothingLeft(baseline);
});
