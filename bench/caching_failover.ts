// The time from a Redis primary's kill to the first successful write through
// Sentinel, with RemoteStoreCacheProvider's default timing options. Each run
// starts a fresh set (a primary, its replica, three sentinels with
// down-after-milliseconds 1000 and quorum 2) on loopback ports, writes, kills
// the primary (SIGKILL), then writes a new value every 10 ms until one is
// read back. Skipped when redis-server, redis-sentinel or redis-cli is
// missing.
//
//   deno run -A --config deno.dev.json bench/caching_failover.ts [runs]
import { CacheManager, RemoteStoreCacheProvider } from "../caching/mod.ts";
import {
  redisSentinelSkip,
  startRedisSentinel,
} from "../tests/_support/redis_sentinel.ts";

if (redisSentinelSkip !== false) {
  console.warn(redisSentinelSkip);
  Deno.exit(0);
}
const runs = Number(Deno.args[0] ?? 3);
const times: number[] = [];
for (let run = 0; run < runs; run++) {
  const sentinel = await startRedisSentinel();
  const store = new RemoteStoreCacheProvider({
    sentinel: { name: sentinel.name, nodes: sentinel.sentinels },
    onError: () => {},
  });
  const cache = new CacheManager(store, { onError: () => {} });
  try {
    await cache.set("counter", 0);
    const primary = await sentinel.primary();
    await sentinel.cli(primary, ["WAIT", "1", "2000"]);
    await sentinel.kill(primary);
    const killed = performance.now();
    for (let next = 1;; next++) {
      await cache.set("counter", next);
      if ((await store.get("counter"))?.value === next) break;
      if (performance.now() - killed > 60_000) throw new Error("no write");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    times.push(performance.now() - killed);
    console.log(
      `run ${run + 1}: first successful write ${
        Math.round(times.at(-1)!)
      } ms after the kill`,
    );
  } finally {
    await cache.dispose();
    await sentinel.close();
  }
}
times.sort((a, b) => a - b);
console.log(
  `failover to the first write: min ${Math.round(times[0])} ms, median ${
    Math.round(times[Math.floor(times.length / 2)])
  } ms, max ${Math.round(times.at(-1)!)} ms (${runs} runs)`,
);
