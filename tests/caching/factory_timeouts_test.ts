import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CacheFactoryError,
  CacheManager,
  CachePolicy,
  type CachePolicyOptions,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
} from "../../caching/mod.ts";
import { redisSkip, startRedisServer, waitFor } from "./_redis_server.ts";
import {
  activeResources,
  assertNothingLeft,
  deferred,
  errorLog,
  FakeClock,
} from "./_support.ts";

// Taken before any test runs; the last test checks nothing outlived them.
const baseline = activeResources();

// ttl 1000, stale until 60000.
const policy: CachePolicyOptions = { ttl: 1_000, maxStale: 59_000 };

function setup(options: CachePolicyOptions = policy) {
  const clock = new FakeClock();
  const log = errorLog();
  const cache = new CacheManager(new MemoryCacheProvider(), {
    policy: options,
    clock: clock.read,
    onError: log.onError,
  });
  return { clock, cache, errors: log.errors };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

test("the factory receives an AbortSignal; a factory without parameters still works", async () => {
  const { cache } = setup();
  let received: unknown;
  assert.equal(
    await cache.getOrSet("a", (signal) => {
      received = signal;
      return 1;
    }),
    1,
  );
  assert.ok(received instanceof AbortSignal);
  assert.equal((received as AbortSignal).aborted, false);
  assert.equal(await cache.getOrSet("b", () => 2), 2);
  await cache.dispose();
});

test("softTimeout serves the stale value after that long, and stores the factory's value when it comes", async () => {
  const { clock, cache, errors } = setup();
  await cache.set("k", "old");
  clock.advance(2_000); // stale
  const slow = deferred<string>();
  // The cache's own timers are unref'd: a real factory's pending I/O keeps
  // the process alive, this one's never-settling promise would not.
  const keepAlive = setTimeout(() => {}, 5_000);
  const started = performance.now();
  const value = await cache.getOrSet("k", () => slow.promise, {
    softTimeout: 50,
  });
  const waited = performance.now() - started;
  assert.equal(value, "old");
  assert.ok(waited >= 40, `waited ${waited} ms`);
  assert.ok(waited < 1_000, `waited ${waited} ms`);
  slow.resolve("new");
  clearTimeout(keepAlive);
  await waitFor(
    async () => (await cache.get("k")) === "new",
    "the late value",
    2_000,
  );
  assert.deepEqual(errors, []);
  await cache.dispose();
});

test("softTimeout: a factory faster than it gives its value to the caller", async () => {
  const { clock, cache } = setup({ ...policy, softTimeout: 500 });
  await cache.set("k", "old");
  clock.advance(2_000);
  assert.equal(
    await cache.getOrSet("k", async () => {
      await sleep(5);
      return "new";
    }),
    "new",
  );
  await cache.dispose();
});

test("softTimeout: a factory that fails before it serves the stale value and reports the failure", async () => {
  const { clock, cache, errors } = setup({ ...policy, softTimeout: 500 });
  await cache.set("k", "old");
  clock.advance(2_000);
  const value = await cache.getOrSet("k", () => {
    throw new Error("db down");
  });
  assert.equal(value, "old");
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof CacheFactoryError);
  await cache.dispose();
});

test("softTimeout does not apply without a stale value: the caller waits for the factory", async () => {
  const { cache } = setup({ ...policy, softTimeout: 10 });
  assert.equal(
    await cache.getOrSet("k", async () => {
      await sleep(60);
      return "v";
    }),
    "v",
  );
  await cache.dispose();
});

test("hardTimeout aborts the factory's signal and fails with a CacheFactoryError naming the key and the timeout", async () => {
  const { cache } = setup();
  let signal: AbortSignal | undefined;
  let late = false;
  const started = performance.now();
  await assert.rejects(
    cache.getOrSet("users:1", async (s) => {
      signal = s;
      await sleep(300);
      late = true;
      throw new Error("too late to matter");
    }, { hardTimeout: 50 }),
    (error: unknown) => {
      assert.ok(error instanceof CacheFactoryError);
      assert.equal(
        error.message,
        "Cache factory timed out after 50 ms for key: users:1",
      );
      assert.equal(error.key, "users:1");
      assert.equal(error.timeout, 50);
      return true;
    },
  );
  assert.ok(performance.now() - started < 250);
  assert.equal(signal?.aborted, true);
  assert.ok(signal?.reason instanceof CacheFactoryError);
  // The abandoned run's late failure is swallowed (no unhandled rejection),
  // and its key is free for a new run at once.
  assert.equal(await cache.getOrSet("users:1", () => "fresh"), "fresh");
  await waitFor(() => late, "the abandoned run to end", 2_000);
  assert.equal(await cache.get("users:1"), "fresh");
  assert.equal(cache.stats().factoryErrors, 1);
  await cache.dispose();
});

test("hardTimeout from the policy; a late value of an aborted run is not stored", async () => {
  const { cache } = setup({ ...policy, hardTimeout: 30 });
  let finished = false;
  await assert.rejects(
    cache.getOrSet("k", async () => {
      await sleep(100);
      finished = true;
      return "late";
    }),
    CacheFactoryError,
  );
  await waitFor(() => finished, "the abandoned run to end", 2_000);
  await sleep(10);
  assert.equal(await cache.get("k"), undefined);
  await cache.dispose();
});

test("hardTimeout during a stale refresh keeps the stale value and reports the timeout", async () => {
  const { clock, cache, errors } = setup({
    ...policy,
    softTimeout: 20,
    hardTimeout: 60,
  });
  await cache.set("k", "old");
  clock.advance(2_000);
  assert.equal(await cache.getOrSet("k", () => sleep(1_000)), "old");
  await waitFor(() => errors.length === 1, "the timeout report", 2_000);
  assert.ok(errors[0] instanceof CacheFactoryError);
  assert.equal(
    errors[0].message,
    "Cache factory timed out after 60 ms for key: k",
  );
  assert.equal(await cache.getOrSet("k", () => "x", { softTimeout: 1 }), "x");
  await cache.dispose();
});

test("timeouts are validated, in options and in CachePolicy", async () => {
  assert.throws(
    () => new CachePolicy({ softTimeout: -1 }),
    new RangeError(
      "CachePolicy softTimeout must be 0 or a positive number of milliseconds: -1",
    ),
  );
  assert.throws(
    () => new CachePolicy({ hardTimeout: 0 }),
    new RangeError(
      "CachePolicy hardTimeout must be a positive number of milliseconds: 0",
    ),
  );
  const p = new CachePolicy({ softTimeout: 100, hardTimeout: 2_000 });
  assert.equal(p.softTimeout, 100);
  assert.equal(p.hardTimeout, 2_000);
  const { cache } = setup();
  await assert.rejects(
    cache.getOrSet("k", () => 1, { hardTimeout: Number.NaN }),
    new RangeError(
      "Cache hardTimeout must be a positive number of milliseconds: NaN",
    ),
  );
  await assert.rejects(
    cache.getOrSet("k", () => 1, { softTimeout: -5 }),
    new RangeError(
      "Cache softTimeout must be 0 or a positive number of milliseconds: -5",
    ),
  );
  await cache.dispose();
});

test(
  "softTimeout on Redis: the stale value is served and the late value reaches the store",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const clock = new FakeClock();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      { policy, clock: clock.read },
    );
    await cache.set("k", "old");
    clock.advance(2_000);
    const slow = deferred<string>();
    assert.equal(
      await cache.getOrSet("k", () => slow.promise, { softTimeout: 20 }),
      "old",
    );
    slow.resolve("new");
    const raw = await server.client();
    await waitFor(
      async () =>
        JSON.parse((await raw.get("kit:cache:k")) ?? "{}").value === "new",
      "the late value in Redis",
      2_000,
    );
    await cache.dispose();
  },
);

test("the timeout tests leave no socket, timer or process behind", async () => {
  await assertNothingLeft(baseline);
});
