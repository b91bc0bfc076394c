// RemoteStoreCacheProvider on a real Redis Cluster: six redis-server
// processes (three primaries, one replica each) started by the fixture.
import assert from "node:assert/strict";
import { after, before, test as nodeTest } from "node:test";
import { CacheManager, RemoteStoreCacheProvider } from "../../caching/mod.ts";
import {
  redisClusterSkip,
  type RedisTestCluster,
  startRedisCluster,
} from "../_support/redis_cluster.ts";
import { waitFor } from "../_support/wait_for.ts";
import {
  type ProviderOptions,
  type TopologyProvider,
  topologySuite,
} from "./_redis_topology.ts";
import { activeResources, assertNothingLeft, configFrom } from "./_support.ts";
import { FAILOVER_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on a Redis failover: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, FAILOVER_LIMIT);

const skip = redisClusterSkip;
const baseline = activeResources();
let cluster: RedisTestCluster;
let prefixes = 0;

before(async () => {
  if (skip === false) cluster = await startRedisCluster();
});
after(async () => {
  await cluster?.close();
  if (skip === false) await assertNothingLeft(baseline);
});

function provider(options: ProviderOptions = {}): TopologyProvider {
  const errors: TopologyProvider["errors"] = [];
  return {
    provider: new RemoteStoreCacheProvider({
      cluster: { nodes: cluster.addresses.join(",") },
      keyPrefix: `t${++prefixes}:`,
      reconnectDelay: 20,
      maxReconnectDelay: 200,
      onError: (error) => errors.push(error),
      ...options,
    }),
    errors,
  };
}

/**
 * Commands a primary runs for others than the provider under test: its
 * replica's acknowledgements (`REPLCONF ACK`, once a second, sooner under
 * load), replication and connection set-up, health pings, and this file's
 * own `INFO`/`CLUSTER` questions. Counting them made a count flaky.
 */
const HOUSEKEEPING =
  /^(replconf|psync|sync|ping|info|cluster|client|hello|auth|select|command|config|readonly|readwrite|role|wait)(\||$)/;

/**
 * Sum of the commands each primary ran, from INFO commandstats, without the
 * housekeeping ones.
 */
async function commandCounts(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const address of await cluster.primaries()) {
    const port = Number(address.split(":")[1]);
    const text = await cluster.cli(port, ["INFO", "commandstats"]);
    for (const match of text.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) {
      if (HOUSEKEEPING.test(match[1])) continue;
      counts.set(match[1], (counts.get(match[1]) ?? 0) + Number(match[2]));
    }
  }
  return counts;
}

topologySuite({
  name: "cluster",
  skip,
  provider,
  async checkPlacement(store) {
    const owners = new Set<string>();
    for (let i = 0; i < 60; i++) {
      owners.add(await cluster.primaryOf(`${store.keyPrefix}item:${i}`));
    }
    assert.equal(
      owners.size,
      3,
      "the keys of one area live on every primary",
    );
  },
  healthNames: "the primaries and whether they answer",
  async checkHealthDetail(detail) {
    assert.equal(detail.primariesUp, 3);
    assert.deepEqual(
      (detail.primaries as { address: string }[]).map((p) => p.address)
        .sort(),
      (await cluster.primaries()).sort(),
    );
  },
  address: /^Redis Cluster 127\.0\.0\.1:/,
  nodesAre: "addresses",
  unreachable: (nodes) => ({ cluster: { nodes } }),
  invalid: {
    options: { cluster: { nodes: "nowhere" } },
    error: /cluster\.nodes must be a list of host:port .*"nowhere"/,
  },
});

test("cluster: hashTag keeps an area's keys in one slot", {
  skip,
}, async () => {
  const { provider: store, errors } = provider({ hashTag: true });
  const cache = new CacheManager(store);
  try {
    const area = cache.area("orders");
    for (let i = 0; i < 20; i++) await area.set(String(i), i);
    const owners = new Set<string>();
    for (let i = 0; i < 20; i++) {
      owners.add(await cluster.primaryOf(`${store.keyPrefix}{orders}:${i}`));
    }
    assert.equal(owners.size, 1);
    assert.equal(await area.get("7"), 7);
    await area.clear();
    assert.equal(await area.get("7"), undefined);
    assert.deepEqual(errors, []);
  } finally {
    await cache.dispose();
  }
});

test(
  "cluster: clear(prefix) removes the keys on every primary, and only those",
  {
    skip,
  },
  async () => {
    const { provider: store, errors } = provider();
    const cache = new CacheManager(store);
    try {
      for (let i = 0; i < 90; i++) {
        await cache.set(`${i % 2 === 0 ? "gone" : "kept"}:${i}`, i);
      }
      await store.clear("gone:");
      for (let i = 0; i < 90; i++) {
        assert.equal(
          await cache.get(`${i % 2 === 0 ? "gone" : "kept"}:${i}`),
          i % 2 === 0 ? undefined : i,
        );
      }
      await store.clear();
      assert.equal(await cache.get("kept:1"), undefined);
      assert.deepEqual(errors, []);
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "cluster: tags over slots, and one tag over 10,000 entries in one round trip",
  {
    skip,
  },
  async () => {
    const { provider: store, errors } = provider();
    const cache = new CacheManager(store);
    try {
      await cache.set("a", 1, { tags: ["red", "blue"] });
      await cache.set("b", 2, { tags: ["green"] });
      await cache.invalidateTags(["blue", "green"]);
      assert.equal(await cache.get("a"), undefined);
      assert.equal(await cache.get("b"), undefined);
      await cache.set("c", 3, { tags: ["red"] });
      assert.equal(await cache.get("c"), 3);
      assert.equal(
        await cache.getOrSet("d", () => 4, { tags: ["red"], lock: true }),
        4,
      );
      assert.equal(await cache.getOrSet("d", () => 5, { lock: true }), 4);

      const keys = Array.from({ length: 10_000 }, (_, i) => `many:${i}`);
      for (let i = 0; i < keys.length; i += 500) {
        await Promise.all(
          keys.slice(i, i + 500).map((key) =>
            cache.set(key, key, { tags: ["wide"] })
          ),
        );
      }
      assert.equal(await cache.get("many:9999"), "many:9999");
      // Writes the manager finishes in the background are done by now.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = await commandCounts();
      await cache.invalidateTags(["wide"]);
      const afterCounts = await commandCounts();
      const sent: string[] = [];
      for (const [command, calls] of afterCounts) {
        const delta = calls - (before.get(command) ?? 0);
        if (delta > 0) sent.push(`${command} x${delta}`);
      }
      // Commandstats also counts the commands a script runs: the GET and SET
      // of the tag's time inside the one EVAL the client sent.
      assert.deepEqual(
        sent.sort(),
        ["eval x1", "get x1", "set x1"],
        "one script, on one primary",
      );
      for (const key of ["many:0", "many:5000", "many:9999"]) {
        assert.equal(await cache.get(key), undefined, key);
      }
      assert.deepEqual(errors, []);
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "cluster: fromConfiguration reads cache:redis:cluster:nodes (REDIS_CLUSTER_NODES)",
  {
    skip,
  },
  async () => {
    const store = RemoteStoreCacheProvider.fromConfiguration(
      configFrom({
        "cache:redis:cluster:nodes": cluster.addresses.slice(0, 2).join(", "),
        "cache:redis:keyPrefix": "conf:",
        "cache:redis:hashTag": "true",
      }),
    );
    const cache = new CacheManager(store);
    try {
      assert.match(store.address, /^Redis Cluster /);
      await cache.area("a").set("1", "one");
      assert.equal(await cache.area("a").get("1"), "one");
      const primary = await cluster.primaryOf("conf:{a}:1");
      assert.match(
        await cluster.cli(Number(primary.split(":")[1]), ["GET", "conf:{a}:1"]),
        /"value":"one"/,
      );
    } finally {
      await cache.dispose();
    }
    assert.throws(
      () =>
        RemoteStoreCacheProvider.fromConfiguration(
          configFrom({ "cache:redis:cluster:nodes": "127.0.0.1:7000,:x" }),
        ),
      /cluster\.nodes must be a list of host:port .*":x"/,
    );
  },
);

// Last: it kills a primary of the shared cluster.
test(
  "cluster: reads and writes resume after a primary dies and its replica takes over",
  {
    skip,
  },
  async () => {
    const { provider: store } = provider();
    const cache = new CacheManager(store);
    try {
      await cache.set("before", "kept");
      const victim = await cluster.primaryOf(`${store.keyPrefix}before`);
      // Replication is asynchronous: let the replica have the key first.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await cluster.killPrimary(victim);
      // The key's slot is now served by the promoted replica.
      await waitFor(
        async () => (await cache.get("before")) === "kept",
        "a read of a key of the dead primary's slots",
        20_000,
      );
      await cache.set("before", "written");
      assert.equal(await cache.get("before"), "written");
      const health = await store.checkHealth();
      assert.equal(health.status, "healthy");
      const detail = health.detail as Record<string, unknown>;
      assert.equal(detail.primariesUp, 3);
      assert.ok(
        !(detail.primaries as { address: string }[]).some((p) =>
          p.address === victim
        ),
      );
    } finally {
      await cache.dispose();
    }
  },
);
