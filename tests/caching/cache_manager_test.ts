import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type CacheEntry,
  type CacheError,
  CacheManager,
  CacheStoreError,
  CacheValueError,
  type ICacheProvider,
  MemoryCacheProvider,
} from "../../caching/mod.ts";
import { Signal } from "../../platform/mod.ts";
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

test("CacheManager get/set/delete/clear round-trip values", async () => {
  const cache = new CacheManager(new MemoryCacheProvider());
  try {
    assert.equal(await cache.get("a"), undefined);
    await cache.set("a", { n: 1 });
    await cache.set("b", "two");
    assert.deepEqual(await cache.get("a"), { n: 1 });
    await cache.delete("a");
    assert.equal(await cache.get("a"), undefined);
    assert.equal(await cache.get("b"), "two");
    await cache.clear();
    assert.equal(await cache.get("b"), undefined);
    assert.deepEqual(
      { hits: cache.stats().hits, misses: cache.stats().misses },
      { hits: 2, misses: 3 },
    );
  } finally {
    await cache.dispose();
  }
});

test("CacheManager.set() honours ttl, measured with the injected clock", async () => {
  const clock = new FakeClock();
  const cache = new CacheManager(new MemoryCacheProvider(), {
    clock: clock.read,
  });
  try {
    await cache.set("k", "v", { ttl: 1_000 });
    const stored = (cache.provider as MemoryCacheProvider).get("k");
    assert.deepEqual(stored, {
      value: "v",
      storedAt: clock.now,
      ttl: 1_000,
      maxStale: 0,
    });
    clock.advance(999);
    assert.equal(await cache.get("k"), "v");
    clock.advance(1);
    assert.equal(await cache.get("k"), undefined);
    await assert.rejects(cache.set("k", "v", { ttl: 0 }), {
      name: "RangeError",
      message: "Cache ttl must be a positive number of milliseconds: 0",
    });
    await assert.rejects(cache.getOrSet("k", () => 1, { ttl: -5 }), RangeError);
  } finally {
    await cache.dispose();
  }
});

test("CacheManager.set() settles once the provider has stored the value, synchronous or not, and rejects only a bad ttl", async () => {
  const stored = deferred<void>();
  const map = new Map<string, CacheEntry>();
  const slow: ICacheProvider = {
    get: (key) => map.get(key),
    async set(key, entry) {
      await stored.promise;
      map.set(key, entry);
    },
    delete: (key) => void map.delete(key),
    has: (key) => map.has(key),
    clear: () => map.clear(),
  };
  const cache = new CacheManager(slow);
  let settled = false;
  const write = cache.set("k", "v").then(() => settled = true);
  await flush();
  assert.equal(settled, false, "still waiting for the provider");
  stored.resolve();
  await write;
  assert.equal(map.get("k")?.value, "v");
  await cache.dispose();

  const memory = new CacheManager(new MemoryCacheProvider());
  const first = memory.set("a", 1, { ttl: 1_000 });
  const second = memory.set("b", 2);
  assert.ok(first instanceof Promise && second instanceof Promise);
  await Promise.all([first, second]);
  assert.equal(await memory.get("a"), 1, "readable once set() settles");
  assert.equal(await memory.get("b"), 2);
  // A bad ttl is a rejection, never a synchronous throw, and stores nothing.
  const bad = memory.set("c", 3, { ttl: Number.NaN });
  await assert.rejects(bad, RangeError);
  assert.equal(await memory.get("c"), undefined);
  await memory.dispose();
});

test("CacheManager.area() prefixes keys with the area name and clears only its own", async () => {
  const provider = new MemoryCacheProvider();
  const cache = new CacheManager(provider);
  try {
    const users = cache.area("users");
    assert.equal(cache.area("users"), users, "same name, same area");
    assert.equal(users.name, "users");
    await users.set("1", "ada");
    await cache.area("orders").set("1", "order");
    await cache.set("1", "root");
    assert.equal(provider.get("users:1")?.value, "ada");
    assert.equal(provider.get("orders:1")?.value, "order");
    assert.equal(await users.get("1"), "ada");
    assert.equal(await cache.get("1"), "root");
    assert.equal(await users.getOrSet("2", () => "grace"), "grace");
    assert.equal(provider.get("users:2")?.value, "grace");
    await users.delete("2");
    assert.equal(provider.has("users:2"), false);
    await users.clear();
    assert.equal(provider.has("users:1"), false);
    assert.equal(provider.has("orders:1"), true);
    assert.equal(provider.has("1"), true);
    assert.throws(() => cache.area(""), {
      name: "TypeError",
      message: "Cache area name must be a non-empty string",
    });
  } finally {
    await cache.dispose();
  }
});

test("CacheManager.stats() counts per area and in total", async () => {
  const cache = new CacheManager(new MemoryCacheProvider());
  try {
    const users = cache.area("users");
    await users.getOrSet("1", () => 1); // miss
    await users.getOrSet("1", () => 1); // hit
    await cache.get("x"); // miss
    assert.deepEqual(users.stats(), {
      hits: 1,
      misses: 1,
      staleServed: 0,
      backgroundRefreshes: 0,
      factoryErrors: 0,
      providerErrors: 0,
    });
    assert.equal(cache.stats().misses, 2);
    assert.equal(cache.stats().hits, 1);
    const snapshot = cache.stats();
    await cache.get("x");
    assert.equal(snapshot.misses, 2, "a snapshot");
  } finally {
    await cache.dispose();
  }
});

test("CacheManager.set() during a factory run wins: the run's result is not stored", async () => {
  const cache = new CacheManager(new MemoryCacheProvider());
  try {
    const slow = deferred<string>();
    const pending = cache.getOrSet("k", () => slow.promise);
    await cache.set("k", "explicit");
    slow.resolve("from factory");
    assert.equal(
      await pending,
      "from factory",
      "its callers still get its value",
    );
    await flush();
    assert.equal(await cache.get("k"), "explicit");
    // A call after the set does not join the superseded run.
    assert.equal(await cache.getOrSet("k", () => "unused"), "explicit");
  } finally {
    await cache.dispose();
  }
});

/** A provider whose every method throws (a broken custom provider). */
class BrokenProvider implements ICacheProvider {
  readonly errorOccurred = new Signal<CacheError>();
  disposed = false;
  get(): CacheEntry | undefined {
    throw new Error("get broke");
  }
  set(): Promise<void> {
    return Promise.reject(new Error("set broke"));
  }
  delete(): void {
    throw new Error("delete broke");
  }
  has(): boolean {
    throw new Error("has broke");
  }
  clear(): Promise<void> {
    return Promise.reject(new Error("clear broke"));
  }
  dispose(): void {
    this.disposed = true;
  }
}

test("CacheManager never throws a provider's failure: misses, skipped writes, counted and reported", async () => {
  const log = errorLog();
  const provider = new BrokenProvider();
  const cache = new CacheManager(provider, { onError: log.onError });
  assert.equal(await cache.get("k"), undefined);
  await cache.set("k", 1);
  await cache.delete("k");
  await cache.clear();
  assert.equal(await cache.getOrSet("k", () => "computed"), "computed");
  await flush();
  assert.deepEqual(
    log.errors.map((e) => e.message),
    [
      "Cache store command failed: get k",
      "Cache store command failed: set k",
      "Cache store command failed: delete k",
      "Cache store command failed: clear",
      "Cache store command failed: get k",
      "Cache store command failed: set k",
    ],
  );
  assert.ok(log.errors.every((e) => e instanceof CacheStoreError));
  assert.equal(cache.stats().providerErrors, 6);
  // Errors the provider reports itself are forwarded and counted too.
  provider.errorOccurred.dispatch(new CacheValueError("k", "not JSON"));
  assert.equal(cache.stats().providerErrors, 7);
  assert.equal(log.errors.length, 7);
  await cache.dispose();
  assert.equal(provider.disposed, true);
  assert.equal(
    provider.errorOccurred.size,
    0,
    "dispose() detached the manager",
  );
});

test("CacheManager reads through an asynchronous provider, sharing one pending read per key", async () => {
  let reads = 0;
  const map = new Map<string, CacheEntry>();
  const provider: ICacheProvider = {
    async get(key) {
      reads++;
      await flush();
      return map.get(key);
    },
    async set(key, entry) {
      await flush();
      map.set(key, entry);
    },
    delete: (key) => void map.delete(key),
    has: (key) => map.has(key),
    clear: () => map.clear(),
  };
  const cache = new CacheManager(provider);
  await cache.set("k", "v");
  const values = await Promise.all(
    Array.from({ length: 50 }, () => cache.getOrSet("k", () => "x")),
  );
  assert.ok(values.every((v) => v === "v"));
  assert.equal(reads, 1);
  await cache.dispose();
});

test("CacheManager.dispose() waits for a background refresh's write before disposing the provider", async () => {
  const clock = new FakeClock();
  const writes: string[] = [];
  const gate = deferred<void>();
  const map = new Map<string, CacheEntry>();
  let disposedAfter = -1;
  const provider: ICacheProvider = {
    get: (key) => map.get(key),
    async set(key, entry) {
      if (map.has(key)) await gate.promise;
      map.set(key, entry);
      writes.push(String(entry.value));
    },
    delete: (key) => void map.delete(key),
    has: (key) => map.has(key),
    clear: () => map.clear(),
    dispose: () => {
      disposedAfter = writes.length;
    },
  };
  const cache = new CacheManager(provider, {
    clock: clock.read,
    policy: { ttl: 100, maxStale: 100 },
  });
  await cache.set("k", "old");
  clock.advance(150);
  assert.equal(await cache.getOrSet("k", () => "new"), "old");
  await flush();
  const disposing = cache.dispose();
  await flush();
  assert.equal(disposedAfter, -1, "still waiting for the write");
  gate.resolve();
  await disposing;
  assert.deepEqual(writes, ["old", "new"]);
  assert.equal(disposedAfter, 2);
});

test("CacheManager.dispose({ signal }) stops waiting for a background write at the deadline and hands the signal to the provider", async () => {
  const clock = new FakeClock();
  const map = new Map<string, CacheEntry>();
  const never = deferred<void>(); // a write to a store that never answers
  let received: unknown = "not called";
  const provider: ICacheProvider = {
    get: (key) => map.get(key),
    set: (key, entry) => {
      if (entry.value === "new") return never.promise;
      map.set(key, entry);
    },
    delete: (key) => void map.delete(key),
    has: (key) => map.has(key),
    clear: () => map.clear(),
    dispose: (options) => {
      received = options?.signal?.aborted;
    },
  };
  const cache = new CacheManager(provider, {
    clock: clock.read,
    policy: { ttl: 100, maxStale: 100 },
  });
  await cache.set("k", "old");
  clock.advance(150);
  assert.equal(await cache.getOrSet("k", () => "new"), "old");
  await flush();
  const controller = new AbortController();
  const disposing = cache.dispose({ signal: controller.signal });
  await flush();
  assert.equal(received, "not called", "still waiting for the write");
  controller.abort();
  await disposing;
  assert.equal(received, true, "the provider got the (aborted) signal");
  await assert.rejects(
    () => new CacheManager(provider).dispose({ timeout: -1 }),
    {
      name: "RangeError",
    },
  );
});

test("CacheManager.checkHealth(): the provider's check, healthy without one, unhealthy when it throws or once disposed", async () => {
  const memory = new CacheManager(new MemoryCacheProvider());
  assert.deepEqual(await memory.checkHealth(), { status: "healthy" });
  await memory.dispose();
  assert.equal((await memory.checkHealth()).status, "unhealthy");
  const base: ICacheProvider = {
    get: () => undefined,
    set: () => {},
    delete: () => {},
    has: () => false,
    clear: () => {},
  };
  let seen: AbortSignal | undefined;
  const degraded = new CacheManager({
    ...base,
    checkHealth: (signal) => {
      seen = signal;
      return { status: "degraded", detail: "down" };
    },
  });
  const signal = new AbortController().signal;
  assert.deepEqual(await degraded.checkHealth(signal), {
    status: "degraded",
    detail: "down",
  });
  assert.equal(seen, signal);
  const throwing = new CacheManager({
    ...base,
    checkHealth: () => {
      throw new Error("boom");
    },
  });
  assert.deepEqual(await throwing.checkHealth(), {
    status: "unhealthy",
    detail: "the provider's checkHealth threw: boom",
  });
  await Promise.all([degraded.dispose(), throwing.dispose()]);
});

test("no socket, ref'd timer or child process outlives the tests of this file", async () => {
  await assertNothingLeft(baseline);
});
