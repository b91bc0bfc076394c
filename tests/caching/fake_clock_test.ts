// The cache driven by the test kit's FakeClock: a CacheManager and a
// MemoryCacheProvider given the clock object decide fresh, refresh-ahead,
// stale and expired by its time, run their soft and hard factory timeouts
// on its timers, and stamp tag invalidations with it; 15 minutes pass in a
// few milliseconds. The older form (`clock: () => number`) keeps working.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  CacheFactoryError,
  CacheManager,
  CachePolicy,
  MemoryCacheProvider,
} from "../../caching/mod.ts";
import { FakeClock } from "@vendor/kit-platform/testing";
import { errorLog } from "./_support.ts";

const MINUTE = 60_000;

function setup(policy?: CachePolicy) {
  const clock = new FakeClock();
  const log = errorLog();
  const provider = new MemoryCacheProvider({ clock });
  const cache = new CacheManager(provider, {
    clock,
    policy,
    onError: log.onError,
  });
  return { clock, provider, cache, errors: log.errors };
}

describe("caching with a FakeClock", () => {
  it("an entry is stale after 15 minutes and gone after the time it is kept, without real waiting", async () => {
    const { clock, provider, cache } = setup(
      new CachePolicy({ ttl: 15 * MINUTE, maxStale: 5 * MINUTE }),
    );
    let runs = 0;
    const factory = () => Promise.resolve(`v${++runs}`);
    const started = performance.now();
    assert.equal(await cache.getOrSet("k", factory), "v1");
    await clock.advance(15 * MINUTE - 1);
    assert.equal(await cache.get("k"), "v1");
    await clock.advance(1);
    // Stale: get() no longer serves it; getOrSet() serves it and refreshes.
    assert.equal(await cache.get("k"), undefined);
    assert.equal(await cache.getOrSet("k", factory), "v1");
    assert.equal(cache.stats().staleServed, 1);
    await clock.advance(0);
    assert.equal(runs, 2);
    assert.equal(await cache.get("k"), "v2");
    // Past ttl + maxStale with no read: the provider has dropped it.
    await clock.advance(20 * MINUTE - 1);
    assert.equal(provider.has("k"), true);
    await clock.advance(2);
    assert.equal(provider.has("k"), false);
    assert.equal(await cache.getOrSet("k", factory), "v3");
    assert.ok(performance.now() - started < 5_000);
    await cache.dispose();
  });

  it("refreshes ahead once the refresh threshold is passed", async () => {
    const { clock, cache } = setup(
      new CachePolicy({ ttl: 10 * MINUTE, refreshThreshold: 0.8 }),
    );
    let runs = 0;
    const factory = () => Promise.resolve(++runs);
    await cache.getOrSet("k", factory);
    await clock.advance(8 * MINUTE - 1);
    assert.equal(await cache.getOrSet("k", factory), 1);
    assert.equal(cache.stats().backgroundRefreshes, 0);
    await clock.advance(1);
    assert.equal(await cache.getOrSet("k", factory), 1);
    assert.equal(cache.stats().backgroundRefreshes, 1);
    await clock.advance(0);
    assert.equal(await cache.get("k"), 2);
    await cache.dispose();
  });

  it("a stale value is served after the softTimeout, measured on the clock", async () => {
    const { clock, cache } = setup(
      new CachePolicy({ ttl: MINUTE, maxStale: MINUTE, softTimeout: 1_000 }),
    );
    await cache.set("k", "old");
    await clock.advance(MINUTE);
    const slow = () =>
      new Promise<string>((resolve) =>
        clock.setTimeout(() => resolve("new"), 5_000)
      );
    let answer: string | undefined;
    const pending = cache.getOrSet("k", slow).then((value) => answer = value);
    await clock.advance(999);
    assert.equal(answer, undefined);
    await clock.advance(1);
    assert.equal(answer, "old");
    await pending;
    await clock.advance(4_000);
    assert.equal(await cache.get("k"), "new");
    await cache.dispose();
  });

  it("a factory past its hardTimeout fails with the timeout error, on the clock", async () => {
    const { clock, cache } = setup();
    let aborted = false;
    const never = (signal: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        signal.addEventListener("abort", () => {
          aborted = true;
          reject(signal.reason);
        });
      });
    const call = cache.getOrSet("k", never, { hardTimeout: 30_000 });
    const outcome = assert.rejects(call, (error: unknown) => {
      assert.ok(error instanceof CacheFactoryError);
      assert.equal(error.timeout, 30_000);
      return true;
    });
    await clock.advance(29_999);
    assert.equal(aborted, false);
    await clock.advance(1);
    await outcome;
    assert.equal(aborted, true);
    await cache.dispose();
  });

  it("tag invalidations are stamped with the clock's time", async () => {
    const { clock, cache } = setup();
    await cache.set("before", 1, { tags: ["t"], ttl: MINUTE });
    await clock.advance(10);
    await cache.invalidateTags(["t"]);
    await clock.advance(10);
    await cache.set("after", 2, { tags: ["t"], ttl: MINUTE });
    assert.equal(await cache.get("before"), undefined);
    assert.equal(await cache.get("after"), 2);
    await clock.advance(MINUTE);
    assert.equal(await cache.get("after"), undefined);
    await cache.dispose();
  });

  it("still takes a plain function as its clock", async () => {
    let now = 1_000;
    const cache = new CacheManager(
      new MemoryCacheProvider({ clock: () => now }),
      { clock: () => now },
    );
    await cache.set("k", "v", { ttl: 100 });
    now += 99;
    assert.equal(await cache.get("k"), "v");
    now += 1;
    assert.equal(await cache.get("k"), undefined);
    await cache.dispose();
  });

  it("refuses a clock that is neither a function nor a Clock, naming the option", () => {
    assert.throws(
      () => new CacheManager(new MemoryCacheProvider(), { clock: {} as never }),
      {
        name: "TypeError",
        message:
          "CacheManager clock must be a function returning milliseconds or a Clock (now, setTimeout, clearTimeout): [object Object]",
      },
    );
    assert.throws(() => new MemoryCacheProvider({ clock: 5 as never }), {
      name: "TypeError",
      message:
        "MemoryCacheProvider clock must be a function returning milliseconds or a Clock (now, setTimeout, clearTimeout): 5",
    });
  });
});
