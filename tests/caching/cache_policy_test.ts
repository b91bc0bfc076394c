import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CacheFactoryError,
  CacheManager,
  CachePolicy,
  type CachePolicyOptions,
  MemoryCacheProvider,
} from "../../caching/mod.ts";
import {
  activeResources,
  assertNothingLeft,
  deferred,
  errorLog,
  FakeClock,
  flush,
} from "./_support.ts";

// Taken before any test runs; the last test checks nothing outlived them.
const baseline = activeResources();

// ttl 1000, refresh from 800, stale until 1500.
const policy: CachePolicyOptions = {
  ttl: 1_000,
  refreshThreshold: 0.8,
  maxStale: 500,
};

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

/** A factory that counts its runs and returns `v<run>`. */
function counter() {
  const factory = () => {
    factory.runs++;
    return `v${factory.runs}`;
  };
  factory.runs = 0;
  return factory;
}

test("CachePolicy keeps its options, defaults them, and rejects bad ones", () => {
  const spec = new CachePolicy({
    ttl: 900_000,
    refreshThreshold: 0.8,
    maxStale: 300_000,
  });
  assert.deepEqual({ ...spec }, {
    ttl: 900_000,
    refreshThreshold: 0.8,
    maxStale: 300_000,
    softTimeout: undefined,
    hardTimeout: undefined,
    lock: false,
    lockTimeout: 5_000,
  });
  assert.deepEqual({ ...new CachePolicy() }, {
    ttl: 300_000,
    refreshThreshold: 1,
    maxStale: 0,
    softTimeout: undefined,
    hardTimeout: undefined,
    lock: false,
    lockTimeout: 5_000,
  });
  assert.equal(CachePolicy.from(spec), spec);
  assert.ok(CachePolicy.from({ ttl: 5 }) instanceof CachePolicy);
  assert.throws(() => new CachePolicy({ ttl: 0 }), {
    name: "RangeError",
    message: "CachePolicy ttl must be a positive number of milliseconds: 0",
  });
  assert.throws(() => new CachePolicy({ refreshThreshold: 1.5 }), {
    message:
      "CachePolicy refreshThreshold must be greater than 0 and at most 1: 1.5",
  });
  assert.throws(() => new CachePolicy({ maxStale: -1 }), {
    message:
      "CachePolicy maxStale must be 0 or a positive number of milliseconds: -1",
  });
});

test("CachePolicy band 1: below ttl × refreshThreshold the value is fresh, no factory run", async () => {
  const { clock, cache } = setup();
  const factory = counter();
  assert.equal(await cache.getOrSet("k", factory), "v1");
  clock.advance(799);
  assert.equal(await cache.getOrSet("k", factory), "v1");
  await flush();
  assert.equal(factory.runs, 1);
  assert.deepEqual(cache.stats(), {
    hits: 1,
    misses: 1,
    staleServed: 0,
    backgroundRefreshes: 0,
    factoryErrors: 0,
    providerErrors: 0,
  });
});

test("CachePolicy band 2: from ttl × refreshThreshold to ttl the value is returned and refreshed in the background", async () => {
  const { clock, cache } = setup();
  const factory = counter();
  await cache.getOrSet("k", factory);
  clock.advance(800); // exactly the threshold: refresh band
  assert.equal(
    await cache.getOrSet("k", factory),
    "v1",
    "the current value, at once",
  );
  await flush();
  assert.equal(factory.runs, 2);
  assert.equal(await cache.getOrSet("k", factory), "v2", "the refreshed value");
  const stats = cache.stats();
  assert.equal(stats.backgroundRefreshes, 1);
  assert.equal(stats.staleServed, 0);
});

test("CachePolicy band 3: from ttl to ttl + maxStale the stale value is returned and refreshed in the background", async () => {
  const { clock, cache } = setup();
  const factory = counter();
  await cache.getOrSet("k", factory);
  clock.advance(1_000); // exactly ttl: stale band
  assert.equal(
    await cache.get("k"),
    undefined,
    "get() never returns a stale value",
  );
  assert.equal(await cache.getOrSet("k", factory), "v1");
  assert.equal(cache.stats().staleServed, 1);
  await flush();
  assert.equal(factory.runs, 2);
  assert.equal(await cache.getOrSet("k", factory), "v2");
  clock.advance(1_499); // last millisecond of the window
  assert.equal(await cache.getOrSet("k", factory), "v2");
  assert.equal(cache.stats().staleServed, 2);
});

test("CachePolicy band 4: from ttl + maxStale on, the caller waits for the factory", async () => {
  const { clock, cache } = setup();
  const factory = counter();
  await cache.getOrSet("k", factory);
  clock.advance(1_500);
  const slow = deferred<string>();
  const pending = cache.getOrSet("k", () => slow.promise);
  let settled = false;
  pending.then(() => (settled = true));
  await flush();
  assert.equal(settled, false, "no stale value returned");
  slow.resolve("new");
  assert.equal(await pending, "new");
  assert.equal(cache.stats().misses, 2);
});

test("CachePolicy without early refresh (threshold 1) and without stale window", async () => {
  const { clock, cache } = setup({ ttl: 1_000 });
  const factory = counter();
  await cache.getOrSet("k", factory);
  clock.advance(999);
  assert.equal(await cache.getOrSet("k", factory), "v1");
  await flush();
  assert.equal(factory.runs, 1);
  clock.advance(1);
  assert.equal(await cache.getOrSet("k", factory), "v2", "waited at ttl");
});

for (
  const [band, age] of [
    ["a cold key", undefined],
    ["the refresh band", 900],
    ["the stale band", 1_200],
    ["past the stale window", 2_000],
  ] as const
) {
  test(`CacheManager.getOrSet() runs the factory once for 100 concurrent calls in ${band}`, async () => {
    const { clock, cache } = setup();
    if (age !== undefined) {
      await cache.set("k", "old");
      clock.advance(age);
    }
    let runs = 0;
    const gate = deferred<string>();
    const factory = () => {
      runs++;
      return gate.promise;
    };
    const calls = Array.from(
      { length: 100 },
      () => cache.getOrSet("k", factory),
    );
    await flush();
    assert.equal(runs, 1);
    gate.resolve("new");
    const results = await Promise.all(calls);
    const expected = age === undefined || age >= 1_500 ? "new" : "old";
    assert.ok(
      results.every((value) => value === expected),
      `all got ${expected}`,
    );
    // Still one run after the shared one finished and was stored.
    await flush();
    assert.equal(runs, 1);
    assert.equal(await cache.getOrSet("k", factory), "new");
  });
}

test("CachePolicy fail-safe: a throwing factory inside the stale window serves the stale value and reports", async () => {
  const { clock, cache, errors } = setup();
  await cache.getOrSet("k", () => "good");
  clock.advance(1_200);
  const failure = new Error("database down");
  for (let i = 0; i < 3; i++) {
    assert.equal(
      await cache.getOrSet("k", () => {
        throw failure;
      }),
      "good",
    );
    await flush();
  }
  assert.equal(errors.length, 3);
  assert.ok(errors[0] instanceof CacheFactoryError);
  assert.equal(errors[0].message, "Cache factory failed for key: k");
  assert.equal(errors[0].cause, failure);
  assert.equal(cache.stats().factoryErrors, 3);
  assert.equal(cache.stats().staleServed, 3);
  // The stale value stays until a refresh succeeds.
  assert.equal(
    await cache.getOrSet("k", () => Promise.resolve("better")),
    "good",
  );
  await flush();
  assert.equal(await cache.getOrSet("k", () => "unused"), "better");
});

test("CachePolicy fail-safe also covers a failing refresh in the refresh band", async () => {
  const { clock, cache, errors } = setup();
  await cache.getOrSet("k", () => "good");
  clock.advance(900);
  assert.equal(
    await cache.getOrSet("k", () => Promise.reject(new Error("x"))),
    "good",
  );
  await flush();
  assert.equal(errors.length, 1);
  assert.equal(await cache.getOrSet("k", () => "unused"), "good");
});

test("CachePolicy: past the stale window the factory's error reaches every waiting caller, from one run", async () => {
  const { clock, cache, errors } = setup();
  await cache.getOrSet("k", () => "good");
  clock.advance(1_500);
  let runs = 0;
  const failure = new Error("database down");
  const factory = async () => {
    runs++;
    await flush();
    throw failure;
  };
  const results = await Promise.allSettled(
    Array.from({ length: 100 }, () => cache.getOrSet("k", factory)),
  );
  assert.equal(runs, 1);
  assert.ok(
    results.every((r) => r.status === "rejected" && r.reason === failure),
  );
  assert.equal(errors.length, 0, "thrown to callers, not reported");
  assert.equal(cache.stats().factoryErrors, 1);
  // A cold key behaves the same, and a sync throw is a rejection too.
  await assert.rejects(
    cache.getOrSet("cold", () => {
      throw failure;
    }),
    failure,
  );
});

test("CachePolicy set under an area name applies to that area, looked up at each call", async () => {
  const { clock, cache } = setup({ ttl: 10_000 });
  const products = cache.area("products");
  cache.setPolicy("products", { ttl: 100, maxStale: 100 });
  const factory = counter();
  await products.getOrSet("1", factory);
  clock.advance(150); // stale for the area policy, fresh for the default
  assert.equal(await products.getOrSet("1", factory), "v1");
  assert.equal(products.stats().staleServed, 1);
  const plain = counter();
  await cache.getOrSet("plain", plain);
  clock.advance(150);
  assert.equal(
    await cache.getOrSet("plain", plain),
    "v1",
    "fresh under the default policy",
  );
  await flush();
  assert.equal(plain.runs, 1);
  assert.equal(cache.stats().staleServed, 1);
});

test("CacheManager.getOrSet() takes a policy object or name; an unknown name rejects", async () => {
  const { clock, cache } = setup({ ttl: 10_000 });
  cache.setPolicy("short", new CachePolicy({ ttl: 10 }));
  const factory = counter();
  await cache.getOrSet("a", factory, { policy: "short" });
  await cache.getOrSet("b", factory, { policy: { ttl: 10 } });
  clock.advance(10);
  assert.equal(await cache.getOrSet("a", factory, { policy: "short" }), "v3");
  assert.equal(
    await cache.getOrSet("b", factory, { policy: { ttl: 10 } }),
    "v4",
  );
  await assert.rejects(cache.getOrSet("c", factory, { policy: "nope" }), {
    name: "CachePolicyNotFoundError",
    message: "Cache policy not found: nope",
  });
  assert.equal(cache.getPolicy("short")?.ttl, 10);
});

test("no socket, ref'd timer or child process outlives the tests of this file", async () => {
  await assertNothingLeft(baseline);
});
