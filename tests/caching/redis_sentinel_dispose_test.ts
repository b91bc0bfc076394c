// A Sentinel provider disposed while node-redis looks for the primary again
// (its sentinels gone): dispose() waits for that search to end, so nothing
// of it outlives the call (no ref'd timer of its one-second pause between
// rounds, no "None of the sentinels are available" printed into whatever
// runs next), and dispose() is still bounded by its signal.
import assert from "node:assert/strict";
import process from "node:process";
import { test as nodeTest } from "node:test";
import { RemoteStoreCacheProvider } from "../../caching/mod.ts";
import {
  redisSentinelSkip,
  startRedisSentinel,
} from "../_support/redis_sentinel.ts";
import { waitFor } from "../_support/wait_for.ts";
import { FAILOVER_LIMIT, limited } from "../_support/limits.ts";

// Tests here stop a Sentinel set under a provider: each has an explicit
// limit, on every runner (tests/_support/limits.ts).
const test = limited(nodeTest, FAILOVER_LIMIT);

/** The ref'd timers this runtime lists, or `undefined` where it lists none (Bun). */
function timers(): number | undefined {
  const probe = setInterval(() => {}, 60_000);
  try {
    const kinds = (process as { getActiveResourcesInfo?: () => string[] })
      .getActiveResourcesInfo?.() ?? [];
    const count = kinds.filter((kind) => kind === "Timeout").length;
    // The probe is one of them: a runtime that lists none does not list.
    return count === 0 ? undefined : count - 1;
  } finally {
    clearInterval(probe);
  }
}

test(
  "sentinel: dispose() while the client looks for the sentinels again ends that search: no timer and no line printed after it",
  { skip: redisSentinelSkip },
  async () => {
    const before = timers();
    const set = await startRedisSentinel();
    const printed: string[] = [];
    const log = console.log;
    const store = new RemoteStoreCacheProvider({
      sentinel: { name: set.name, nodes: set.sentinels },
      // The first connection, on a busy machine, in time.
      connectTimeout: 5_000,
      reconnectDelay: 20,
      maxReconnectDelay: 200,
      onError: () => {},
    });
    try {
      assert.equal(await store.connect(), true);
      // node-redis prints each failed round of its search (console.log).
      console.log = (...args: unknown[]) => {
        printed.push(args.map(String).join(" "));
      };
      await set.close();
      await waitFor(
        () =>
          printed.filter((line) =>
            line.includes("None of the sentinels are available")
          ).length >= 2,
        "node-redis searching for the sentinels again",
        20_000,
      );
      await store.dispose();
      const atDispose = printed.length;
      const after = timers();
      if (before !== undefined && after !== undefined) {
        assert.equal(after, before, "ref'd timers right after dispose()");
      }
      // Past the pause between two rounds of the search.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.deepEqual(printed.slice(atDispose), []);
    } finally {
      console.log = log;
      await store.dispose();
      await set.close();
    }
  },
);
