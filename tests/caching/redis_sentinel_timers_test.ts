// A Sentinel-backed provider that is used and never disposed leaves no
// ref'd timer behind (node-redis's periodic rescan of the sentinels stays
// off): checked in a child process, against a real primary, replica and
// three sentinels. What it does leave are its open connections (to a
// sentinel, to the primary, and to the primary for pub/sub), as every
// connected Redis client does until it is disposed.
import assert from "node:assert/strict";
import process from "node:process";
import { after, before, test as nodeTest } from "node:test";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import {
  redisSentinelSkip,
  type RedisTestSentinel,
  startRedisSentinel,
} from "../_support/redis_sentinel.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

// Whether this runtime lists ref'd timers (Bun answers an empty list).
function listsTimers(): boolean {
  const timer = setInterval(() => {}, 60_000);
  try {
    return ((process as { getActiveResourcesInfo?: () => string[] })
      .getActiveResourcesInfo?.() ?? []).includes("Timeout");
  } finally {
    clearInterval(timer);
  }
}

const skip = redisSentinelSkip ||
  (listsTimers()
    ? false
    : "this runtime does not list its active timers (getActiveResourcesInfo)");
let sentinel: RedisTestSentinel;

before(async () => {
  if (skip === false) sentinel = await startRedisSentinel();
});
after(async () => {
  await sentinel?.close();
});

// Counts the kinds of resources keeping the child alive before the
// providers exist and once they have been used, then exits.
const CHILD = (name: string, nodes: string): string => `
import process from "node:process";
const { CacheManager, MemoryCacheProvider, RemoteStoreCacheProvider, TieredCacheProvider } =
  await import(CACHING_URL);
const count = () => {
  const counts = {};
  for (const kind of process.getActiveResourcesInfo?.() ?? []) {
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
};
const before = count();
const sentinel = { name: ${JSON.stringify(name)}, nodes: ${
  JSON.stringify(nodes)
} };
const remote = new CacheManager(new RemoteStoreCacheProvider({ sentinel, keyPrefix: "a:" }));
await remote.set("k", "v");
const value = await remote.get("k");
const tiered = new CacheManager(new TieredCacheProvider(
  new MemoryCacheProvider(),
  new RemoteStoreCacheProvider({ sentinel, keyPrefix: "b:" }),
));
await tiered.set("k", "w");
await tiered.delete("k");
// Past node-redis's own start-up work.
await new Promise((resolve) => setTimeout(resolve, 300));
console.log(JSON.stringify({ value, before, after: count() }));
process.exit(0);
`;

test(
  "sentinel: a provider used and never disposed leaves no ref'd timer",
  { skip },
  async () => {
    const result = await runChildScript(
      CHILD(sentinel.name, sentinel.sentinels.join(",")),
    );
    assert.equal(result.code, 0, result.out);
    const report = lastJson(result) as {
      value: string;
      before: Record<string, number>;
      after: Record<string, number>;
    };
    assert.equal(report.value, "v");
    assert.equal(
      report.after.Timeout ?? 0,
      report.before.Timeout ?? 0,
      `ref'd timers before and after: ${JSON.stringify(report)}`,
    );
  },
);
