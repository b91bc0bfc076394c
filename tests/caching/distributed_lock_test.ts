// getOrSet with `lock`: one factory run for a key across instances of a
// service, each a real process with its own RemoteStoreCacheProvider on one
// real redis-server.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test as nodeTest } from "node:test";
import {
  type CacheEntry,
  CacheFactoryError,
  CacheManager,
  type ICacheProvider,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  TieredCacheProvider,
} from "../../caching/mod.ts";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { redisSkip, startRedisServer, waitFor } from "./_redis_server.ts";
import { activeResources, assertNothingLeft } from "./_support.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const baseline = activeResources();

// One instance: waits at a barrier (so that every instance misses at the
// same moment), then makes 100 concurrent getOrSet calls for one key. Each
// factory run appends a line to runs.txt.
const INSTANCE = `
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
const { CacheManager, RemoteStoreCacheProvider } = await import(CACHING_URL);
const [dir, port, id, lock] = process.env.KIT_LOCK_TEST.split("|");
const provider = new RemoteStoreCacheProvider({ host: "127.0.0.1", port: Number(port) });
await provider.connect();
const cache = new CacheManager(provider);
writeFileSync(join(dir, "ready-" + id), "");
while (!existsSync(join(dir, "go"))) await new Promise((r) => setTimeout(r, 2));
const factory = async () => {
  appendFileSync(join(dir, "runs.txt"), id + "\\n");
  await new Promise((r) => setTimeout(r, 150));
  return "made by " + id;
};
const values = await Promise.all(
  Array.from({ length: 100 }, () =>
    cache.getOrSet("report:today", factory, { lock: lock === "1", ttl: 60_000 })),
);
await cache.dispose();
console.log(JSON.stringify({ values: [...new Set(values)] }));
`;

async function instances(
  port: number,
  count: number,
  lock: boolean,
): Promise<{ runs: string[]; values: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "kit-lock-"));
  try {
    const children = Array.from(
      { length: count },
      (_, id) =>
        runChildScript(INSTANCE, {
          env: { KIT_LOCK_TEST: `${dir}|${port}|${id}|${lock ? 1 : 0}` },
        }),
    );
    await waitFor(
      async () =>
        (await readdir(dir)).filter((name) => name.startsWith("ready-"))
          .length === count,
      "every instance to be ready",
      25_000,
    );
    await writeFile(join(dir, "go"), "");
    const results = await Promise.all(children);
    const values: string[] = [];
    for (const result of results) {
      assert.equal(result.code, 0, result.out);
      values.push(...(lastJson(result).values as string[]));
    }
    const runsFile = join(dir, "runs.txt");
    const runs = existsSync(runsFile)
      ? (await readFile(runsFile, "utf8")).trim().split("\n")
      : [];
    return { runs, values };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(
  "8 instances x 100 concurrent misses of one key with lock: exactly one factory run, one value for all",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const { runs, values } = await instances(server.port, 8, true);
    assert.equal(runs.length, 1, `factory runs: ${runs.join(", ")}`);
    assert.deepEqual([...new Set(values)], [`made by ${runs[0]}`]);
    // The lock is gone once the value is stored.
    const raw = await server.client();
    assert.deepEqual(await raw.keys("*lock*"), []);
  },
);

test(
  "a lock whose owner died expires by itself and another instance runs the factory",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    // The owner takes the lock (300 ms), starts its factory and dies in it.
    const owner = await runChildScript(`
    const { CacheManager, RemoteStoreCacheProvider } = await import(CACHING_URL);
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: "127.0.0.1", port: ${server.port} }),
    );
    await cache.getOrSet("k", () => process.exit(7), { lock: true, lockTimeout: 300 });
  `);
    assert.equal(owner.code, 7, owner.out);
    // Connected before the race, with time limits a loaded machine cannot
    // reach: a connection or a command slower than its limit counts as an
    // outage, and an instance that cannot reach the store runs its factory
    // without the lock (by design), which is not what this test is about.
    const providers = [1, 2, 3].map(() =>
      new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        connectTimeout: 10_000,
        commandTimeout: 10_000,
      })
    );
    assert.deepEqual(
      await Promise.all(providers.map((provider) => provider.connect())),
      [true, true, true],
    );
    const managers = providers.map((provider) => new CacheManager(provider));
    try {
      let runs = 0;
      const started = performance.now();
      const values = await Promise.all(
        managers.map((cache) =>
          cache.getOrSet("k", () => `v${++runs}`, {
            lock: true,
            lockTimeout: 10_000,
          })
        ),
      );
      const waited = performance.now() - started;
      assert.equal(runs, 1);
      assert.deepEqual(values, ["v1", "v1", "v1"]);
      assert.ok(waited < 5_000, `waited ${waited} ms`);
    } finally {
      await Promise.all(managers.map((cache) => cache.dispose()));
    }
  },
);

test("past lockTimeout a waiter runs the factory itself rather than fail", {
  skip: redisSkip,
}, async () => {
  await using server = await startRedisServer();
  const [a, b] = [1, 2].map(() =>
    new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
    )
  );
  try {
    const slow = a.getOrSet("k", async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return "slow";
    }, { lock: true, lockTimeout: 3_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    const own = await b.getOrSet("k", () => "own", {
      lock: true,
      lockTimeout: 200,
    });
    const waited = performance.now() - started;
    assert.equal(own, "own");
    assert.ok(waited >= 150 && waited < 1_200, `waited ${waited} ms`);
    assert.equal(await slow, "slow");
  } finally {
    await Promise.all([a.dispose(), b.dispose()]);
  }
});

test(
  "tryLock: only the owner's release removes the lock; an expired owner cannot remove its successor's",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
    });
    try {
      const first = await provider.tryLock("k", 100);
      assert.equal(first.acquired, true);
      assert.deepEqual(await provider.tryLock("k", 100), {
        acquired: false,
        held: true,
      });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const second = await provider.tryLock("k", 5_000);
      assert.equal(second.acquired, true);
      if (first.acquired) await first.release();
      assert.deepEqual(await provider.tryLock("k", 5_000), {
        acquired: false,
        held: true,
      });
      if (second.acquired) await second.release();
      const third = await provider.tryLock("k", 5_000);
      assert.equal(third.acquired, true);
      if (third.acquired) await third.release();
    } finally {
      await provider.dispose();
    }
  },
);

test(
  "tryLock with the store down: not acquired, not held (the caller goes on alone)",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
      onError: () => {},
    });
    const cache = new CacheManager(provider, { onError: () => {} });
    try {
      await provider.connect();
      await server.stop();
      assert.deepEqual(await provider.tryLock("k", 1_000), {
        acquired: false,
        held: false,
      });
      assert.equal(
        await cache.getOrSet("k", () => "alone", { lock: true }),
        "alone",
      );
    } finally {
      await cache.dispose();
    }
  },
);

test("lock through a TieredCacheProvider takes the shared store's lock", {
  skip: redisSkip,
}, async () => {
  await using server = await startRedisServer();
  const managers = [1, 2, 3].map(() =>
    new CacheManager(
      new TieredCacheProvider(
        new MemoryCacheProvider(),
        new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      ),
    )
  );
  try {
    let runs = 0;
    const values = await Promise.all(
      managers.map((cache) =>
        cache.getOrSet("k", async () => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          return `v${++runs}`;
        }, { lock: true, ttl: 60_000 })
      ),
    );
    assert.equal(runs, 1);
    assert.deepEqual(values, ["v1", "v1", "v1"]);
  } finally {
    await Promise.all(managers.map((cache) => cache.dispose()));
  }
});

test(
  "a miss with lock costs one round trip before the factory: the read takes the lock",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const monitor = await server.client();
    const lines: string[] = [];
    await (monitor as unknown as {
      monitor(listener: (line: string) => void): Promise<void>;
    }).monitor((line) => lines.push(line));
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
    );
    try {
      const sent = () =>
        lines.filter((line) => !line.includes("[0 lua]"))
          .map((line) => /\] "(\w+)"/.exec(line)?.[1])
          .filter((command) => command !== "PING");
      assert.equal(await cache.getOrSet("k", () => "v", { lock: true }), "v");
      await waitFor(
        () => sent().length >= 3,
        "the write and the release",
        2_000,
      );
      // The read (a script that took the lock), the value's SET (no NX: not a
      // lock) and the release: nothing else went before the factory.
      assert.deepEqual(sent(), ["EVAL", "SET", "EVAL"]);
      const set = lines.find((line) =>
        /\] "SET"/.test(line) && !line.includes("[0 lua]")
      );
      assert.doesNotMatch(String(set), /"NX"/);
      lines.length = 0;
      assert.equal(await cache.getOrSet("k", () => "x", { lock: true }), "v");
      await waitFor(() => sent().length >= 1, "the hit's read", 2_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(sent(), ["EVAL"]);
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "readOrLock: the entry, or no entry and the lock (taken, or held by another)",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
    });
    try {
      const first = await provider.readOrLock("k", 5_000);
      assert.equal(first.entry, undefined);
      assert.equal(first.lock?.acquired, true);
      const second = await provider.readOrLock("k", 5_000);
      assert.deepEqual(second, {
        entry: undefined,
        lock: { acquired: false, held: true },
      });
      await provider.set("k", { value: 1, storedAt: 10, tags: ["t"] }, 60_000);
      if (first.lock?.acquired) await first.lock.release();
      assert.deepEqual(await provider.readOrLock("k", 5_000), {
        entry: { value: 1, storedAt: 10, tags: ["t"] },
      });
      await provider.invalidateTags(["t"], 10);
      assert.deepEqual(await provider.readOrLock("k", 5_000), {
        entry: undefined,
      });
    } finally {
      await provider.dispose();
    }
  },
);

test(
  "a hardTimeout shorter than the wait for another instance's lock fails the waiter, whose factory never runs",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const [a, b] = [1, 2].map(() =>
      new CacheManager(
        new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      )
    );
    try {
      const slow = a.getOrSet("k", async () => {
        await new Promise((resolve) => setTimeout(resolve, 800));
        return "slow";
      }, { lock: true, lockTimeout: 3_000 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      let ran = false;
      await assert.rejects(
        b.getOrSet("k", () => {
          ran = true;
          return "own";
        }, { lock: true, lockTimeout: 3_000, hardTimeout: 150 }),
        new CacheFactoryError("k", undefined, 150),
      );
      assert.equal(await slow, "slow");
      assert.equal(ran, false);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  },
);

test(
  "the owner's hardTimeout gives its lock back at once, while its factory (which ignores the signal) still runs",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const [a, b] = [1, 2].map(() =>
      new CacheManager(
        new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      )
    );
    let finishHung!: () => void;
    const hung = new Promise<void>((resolve) => finishHung = resolve);
    try {
      const owner = a.getOrSet("k", async () => {
        await hung;
        return "late";
      }, { lock: true, lockTimeout: 10_000, hardTimeout: 100 });
      await assert.rejects(owner, new CacheFactoryError("k", undefined, 100));
      // The lock would otherwise be held until the hung factory ends or the
      // lock expires (10 s): the other instance takes it and runs its own.
      const began = performance.now();
      const value = await b.getOrSet("k", () => "fresh", {
        lock: true,
        lockTimeout: 10_000,
      });
      assert.equal(value, "fresh");
      assert.ok(
        performance.now() - began < 5_000,
        "the other instance waited for a lock nobody held any more",
      );
    } finally {
      finishHung();
      await Promise.all([a.dispose(), b.dispose()]);
    }
  },
);

test("lock with a memory provider: one run within the process, nothing else", async () => {
  const cache = new CacheManager(new MemoryCacheProvider());
  let runs = 0;
  const values = await Promise.all(
    Array.from({ length: 20 }, () =>
      cache.getOrSet("k", async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return ++runs;
      }, { lock: true })),
  );
  assert.equal(runs, 1);
  assert.deepEqual(new Set(values), new Set([1]));
  await cache.dispose();
});

test("getOrSet with lock: a waiter that gets the lock just after the holder stored its value and let go serves that value, with no second run", async () => {
  // Two instances on one store (in memory, so that the test sets the order
  // of events): b looks for a's value and misses, then a stores it and lets
  // go of the lock, then b's look answers, and b takes the lock. A busy
  // machine makes that order now and then on Redis too.
  const values = new Map<string, CacheEntry>();
  let owner: string | undefined;
  let looks = 0;
  let aDone!: () => void;
  const aStored = new Promise<void>((resolve) => (aDone = resolve));
  const instance = (name: string): ICacheProvider => ({
    get: async (key) => {
      const seen = values.get(key);
      // b's second look, made while it waits on a's lock.
      if (name === "b" && ++looks === 2) await aStored;
      return seen;
    },
    set: (key, entry) => void values.set(key, entry),
    delete: (key) => void values.delete(key),
    has: (key) => values.has(key),
    clear: () => values.clear(),
    tryLock: () => {
      if (owner !== undefined) {
        return Promise.resolve({ acquired: false, held: true });
      }
      owner = name;
      return Promise.resolve({
        acquired: true,
        release: () => {
          if (owner === name) owner = undefined;
          return Promise.resolve();
        },
      });
    },
  });
  const a = new CacheManager(instance("a"));
  const b = new CacheManager(instance("b"));
  const runs: string[] = [];
  let openGate!: () => void;
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  const factory = (name: string) => async () => {
    runs.push(name);
    if (name === "a") await gate;
    return `made by ${name}`;
  };
  const atA = a.getOrSet("k", factory("a"), { lock: true });
  await waitFor(() => owner === "a", "a holding the lock");
  const atB = b.getOrSet("k", factory("b"), { lock: true });
  // Polled: the pauses of b's wait are unref'd timers, which alone would let
  // Node.js end the test's event loop.
  await waitFor(() => looks === 2, "b looking for a's value");
  openGate();
  assert.equal(await atA, "made by a");
  await waitFor(() => owner === undefined, "a letting go of the lock");
  aDone();
  assert.equal(await atB, "made by a");
  assert.deepEqual(runs, ["a"]);
  await Promise.all([a.dispose(), b.dispose()]);
});

// Without a limit of its own: a limit is a timer, which this check counts
// (it is bounded by assertNothingLeft's deadline).
nodeTest(
  "the lock tests leave no socket, timer or process behind",
  async () => {
    await assertNothingLeft(baseline);
  },
);
