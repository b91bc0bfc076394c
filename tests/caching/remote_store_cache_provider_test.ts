import assert from "node:assert/strict";
import { test as nodeTest } from "node:test";
import {
  type CacheEntry,
  CacheManager,
  CacheSerializationError,
  CacheStoreRecovered,
  CacheStoreUnavailableError,
  CacheValueError,
  RemoteStoreCacheProvider,
} from "../../caching/mod.ts";
import { redisSkip, startRedisServer, waitFor } from "./_redis_server.ts";
import {
  activeResources,
  assertNothingLeft,
  configFrom,
  errorLog,
  FakeClock,
  grownResources,
} from "./_support.ts";
import { limited, RECONNECT_LIMIT } from "../_support/limits.ts";

// Tests here wait on Redis reconnecting after an outage they make: each has
// an explicit limit, on every runner (tests/_support/limits.ts).
const test = limited(nodeTest, RECONNECT_LIMIT);

// Taken before any test runs; the last test checks nothing outlived them.
const baseline = activeResources();

const skip = redisSkip;

test(
  "RemoteStoreCacheProvider stores JSON with its metadata under keyPrefix + key",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
      keyPrefix: "app:",
    });
    try {
      const entry: CacheEntry = {
        value: { name: "Ada", tags: ["x"] },
        storedAt: 1234,
        ttl: 60_000,
        maxStale: 5_000,
      };
      await provider.set("users:1", entry);
      const raw = await server.client();
      const text = await raw.get("app:users:1");
      assert.deepEqual(JSON.parse(String(text)), entry);
      assert.deepEqual(await provider.get("users:1"), entry);
      assert.equal(await provider.get("users:2"), undefined);
      assert.equal(
        await raw.exists("users:1"),
        0,
        "nothing stored without the prefix",
      );
      assert.equal(await provider.has("users:1"), true);
      await provider.delete("users:1");
      assert.equal(await provider.has("users:1"), false);
      assert.equal(await raw.exists("app:users:1"), 0);
    } finally {
      await provider.dispose();
    }
  },
);

test(
  "RemoteStoreCacheProvider's Redis expiry covers ttl + maxStale (PX, milliseconds)",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        keyPrefix: "p:",
      }),
      { policy: { ttl: 2_000, maxStale: 30_000 } },
    );
    try {
      await cache.set("k", "v");
      const raw = await server.client();
      const pttl = await raw.pTTL("p:k");
      assert.ok(
        pttl > 30_000 && pttl <= 32_000,
        `PTTL ${pttl} covers ttl + maxStale`,
      );
      // Without an explicit ttl the entry's own ttl + maxStale is used…
      const provider = cache.provider as RemoteStoreCacheProvider;
      await provider.set("own", {
        value: 1,
        storedAt: 0,
        ttl: 10_000,
        maxStale: 5_000,
      });
      const own = await raw.pTTL("p:own");
      assert.ok(own > 14_000 && own <= 15_000, `PTTL ${own}`);
      // …and an entry with no ttl at all gets defaultTtl (300000).
      await provider.set("plain", { value: 1, storedAt: 0 });
      const plain = await raw.pTTL("p:plain");
      assert.ok(plain > 299_000 && plain <= 300_000, `PTTL ${plain}`);
    } finally {
      await cache.dispose();
    }
  },
);

test("RemoteStoreCacheProvider entries expire in Redis after their ttl", {
  skip,
}, async () => {
  await using server = await startRedisServer();
  const provider = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
  });
  // The manager's clock stands still: only Redis's own expiry can make the
  // value go. (With the real clock, the lazy first connection of a loaded
  // machine could outlast a short ttl before the first read.)
  const clock = new FakeClock();
  const cache = new CacheManager(provider, { clock: clock.read });
  try {
    assert.equal(await provider.connect(), true);
    await cache.set("short", "gone soon", { ttl: 1_000 });
    const raw = await server.client();
    const pttl = await raw.pTTL("kit:cache:short");
    assert.ok(pttl > 0 && pttl <= 1_000, `PTTL ${pttl} is the ttl in ms`);
    assert.equal(await cache.get("short"), "gone soon");
    await waitFor(
      async () => (await raw.exists("kit:cache:short")) === 0,
      "Redis expiry",
    );
    assert.equal(await cache.get("short"), undefined);
  } finally {
    await cache.dispose();
  }
});

test(
  "RemoteStoreCacheProvider serves a stale value during its window, then refreshes",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      { policy: { ttl: 100, maxStale: 60_000 } },
    );
    try {
      let version = 0;
      const factory = () => ++version;
      assert.equal(await cache.getOrSet("v", factory), 1);
      const raw = await server.client();
      // Real time passes beyond the ttl: Redis still holds the value.
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(
        await raw.exists("kit:cache:v"),
        1,
        "kept past ttl for the stale window",
      );
      assert.equal(await cache.getOrSet("v", factory), 1, "stale value served");
      assert.equal(cache.stats().staleServed, 1);
      await waitFor(
        async () => (await cache.get("v")) === 2,
        "background refresh stored",
      );
      assert.equal(version, 2);
    } finally {
      await cache.dispose();
    }
  },
);

test("RemoteStoreCacheProvider keeps prefixes apart", { skip }, async () => {
  await using server = await startRedisServer();
  const a = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    keyPrefix: "a:",
  });
  const b = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    keyPrefix: "b:",
  });
  try {
    await a.set("k", { value: "from a", storedAt: 0 });
    await b.set("k", { value: "from b", storedAt: 0 });
    assert.equal((await a.get("k"))?.value, "from a");
    assert.equal((await b.get("k"))?.value, "from b");
    await a.delete("k");
    assert.equal(await a.get("k"), undefined);
    assert.equal((await b.get("k"))?.value, "from b");
  } finally {
    await Promise.all([a.dispose(), b.dispose()]);
  }
});

test("RemoteStoreCacheProvider selects its database", { skip }, async () => {
  await using server = await startRedisServer();
  const provider = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    database: 3,
    keyPrefix: "",
  });
  try {
    await provider.set("k", { value: 1, storedAt: 0 });
    const db0 = await server.client(0);
    const db3 = await server.client(3);
    assert.equal(await db0.exists("k"), 0);
    assert.equal(await db3.exists("k"), 1);
    await provider.clear();
    assert.equal(await db3.exists("k"), 0);
  } finally {
    await provider.dispose();
  }
});

test("RemoteStoreCacheProvider authenticates with the password (requirepass)", {
  skip,
}, async () => {
  await using server = await startRedisServer({ password: "s3cret" });
  const good = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    password: "s3cret",
  });
  const log = errorLog();
  const bad = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    password: "wrong",
    reconnectDelay: 10,
    maxReconnectDelay: 50,
    onError: log.onError,
  });
  const none = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    reconnectDelay: 10,
    maxReconnectDelay: 50,
    onError: () => {},
  });
  try {
    await good.set("k", { value: "ok", storedAt: 0 });
    assert.equal((await good.get("k"))?.value, "ok");
    // A refused password is an outage like any other: misses, skipped
    // writes, one report, nothing thrown.
    assert.equal(await bad.get("k"), undefined);
    await bad.set("k", { value: "never", storedAt: 0 });
    assert.equal(await bad.get("k"), undefined);
    assert.equal(log.errors.length, 1);
    assert.ok(log.errors[0] instanceof CacheStoreUnavailableError);
    assert.match(
      String((log.errors[0].cause as Error).message),
      /WRONGPASS|invalid/i,
    );
    assert.equal(await none.get("k"), undefined);
    assert.equal(
      (await good.get("k"))?.value,
      "ok",
      "the bad client wrote nothing",
    );
  } finally {
    await Promise.all([good.dispose(), bad.dispose(), none.dispose()]);
  }
});

test(
  "RemoteStoreCacheProvider.clear() removes only its prefix, with SCAN (never KEYS or FLUSHDB)",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    // A prefix with glob characters must be matched literally.
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        keyPrefix: "we*rd[1]:",
      }),
    );
    try {
      const raw = await server.client();
      const other = await server.client(1);
      await raw.set("we*rd[1]x", "no colon: not ours");
      await raw.set("weXrd1:k", "matches the unescaped glob: not ours");
      await raw.set("other:k", "foreign");
      await other.set("we*rd[1]:k", "other database");
      const users = cache.area("users");
      for (let i = 0; i < 2500; i++) await users.set(String(i), i);
      await cache.set("top", 1);
      await cache.area("orders").set("1", 1);

      await users.clear();
      assert.equal(await users.get("0"), undefined);
      assert.equal(await cache.get("top"), 1, "area clear leaves the rest");
      assert.equal(await cache.area("orders").get("1"), 1);

      await cache.clear();
      assert.equal(await cache.get("top"), undefined);
      assert.equal(await cache.area("orders").get("1"), undefined);
      assert.deepEqual((await raw.keys("*")).sort(), [
        "other:k",
        "we*rd[1]x",
        "weXrd1:k",
      ]);
      assert.equal(await other.get("we*rd[1]:k"), "other database");

      const stats = String(await raw.info("commandstats"));
      assert.match(stats, /cmdstat_scan:calls=\d+/);
      assert.doesNotMatch(stats, /cmdstat_flushdb|cmdstat_flushall/);
      // The test itself called KEYS once above, the provider never did.
      assert.match(stats, /cmdstat_keys:calls=1,/);
    } finally {
      await cache.dispose();
    }
  },
);

test("RemoteStoreCacheProvider treats bad values as misses and reports them", {
  skip,
}, async () => {
  await using server = await startRedisServer();
  const log = errorLog();
  const cache = new CacheManager(
    new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
      keyPrefix: "b:",
    }),
    { onError: log.onError },
  );
  try {
    const raw = await server.client();
    await raw.set("b:text", "not json {");
    await raw.set("b:shape", JSON.stringify({ hello: "world" }));
    await raw.set("b:number", "42");
    await raw.hSet("b:hash", "field", "value");
    for (const key of ["text", "shape", "number", "hash"]) {
      assert.equal(await cache.get(key), undefined, key);
    }
    assert.deepEqual(
      log.errors.map((
        error,
      ) => [error.constructor, error.key, (error as CacheValueError).reason]),
      [
        [CacheValueError, "b:text", "not JSON"],
        [CacheValueError, "b:shape", "not a cache entry"],
        [CacheValueError, "b:number", "not a cache entry"],
        [CacheValueError, "b:hash", "not a string key"],
      ],
    );
    assert.equal(log.errors[0].message, "Invalid cached value for key: b:text");
    assert.equal(cache.stats().providerErrors, 4);
    // getOrSet recomputes and overwrites the bad value.
    assert.equal(await cache.getOrSet("text", () => "fixed"), "fixed");
    assert.equal(await cache.get("text"), "fixed");
  } finally {
    await cache.dispose();
  }
});

test(
  "RemoteStoreCacheProvider reports a value JSON cannot hold and skips the write",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const log = errorLog();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      { onError: log.onError },
    );
    try {
      await cache.set("big", 10n);
      assert.equal(await cache.get("big"), undefined);
      assert.equal(log.errors.length, 1);
      assert.ok(log.errors[0] instanceof CacheSerializationError);
      assert.equal(
        log.errors[0].message,
        "Cannot serialize cache value for key: kit:cache:big",
      );
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "RemoteStoreCacheProvider while Redis is unreachable: misses, skipped writes, one report, no throw",
  {
    skip,
  },
  async () => {
    // Reserve a port, then stop the server: nothing listens there.
    const server = await startRedisServer();
    const port = server.port;
    await server.close();
    const log = errorLog();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({
        host: "127.0.0.1",
        port,
        reconnectDelay: 10,
        maxReconnectDelay: 50,
      }),
      { onError: log.onError },
    );
    try {
      let runs = 0;
      for (let i = 0; i < 20; i++) {
        assert.equal(await cache.get("k"), undefined);
        await cache.set("k", i);
        assert.equal(await cache.getOrSet("k", () => ++runs), runs);
        await cache.delete("k");
        await cache.clear();
      }
      assert.equal(runs, 20, "every getOrSet is a miss");
      assert.equal(log.errors.length, 1, "one report for the whole outage");
      assert.ok(log.errors[0] instanceof CacheStoreUnavailableError);
      assert.equal(
        log.errors[0].message,
        `Cache store unreachable: 127.0.0.1:${port}`,
      );
      assert.equal(cache.stats().providerErrors, 1);
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "RemoteStoreCacheProvider recovers by itself when Redis restarts mid-run",
  { skip },
  async () => {
    await using server = await startRedisServer();
    const log = errorLog();
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
      reconnectDelay: 10,
      maxReconnectDelay: 100,
    });
    const cache = new CacheManager(provider, { onError: log.onError });
    try {
      await cache.set("before", 1);
      assert.equal(await cache.get("before"), 1);

      await server.stop();
      await waitFor(() => !provider.isConnected, "the client to notice");
      let runs = 0;
      for (let i = 0; i < 10; i++) {
        assert.equal(await cache.get("before"), undefined);
        await cache.set("during", i);
        assert.equal(await cache.getOrSet("x", () => ++runs), runs);
      }
      assert.equal(log.errors.length, 1);
      assert.ok(log.errors[0] instanceof CacheStoreUnavailableError);

      await server.start(); // empty: no persistence
      await waitFor(() => provider.isConnected, "node-redis to reconnect");
      await cache.set("after", 2);
      assert.equal(await cache.get("after"), 2);
      assert.equal(await cache.getOrSet("after", () => 3), 2);
      assert.equal(log.errors.length, 2, "its end is reported, once");
      assert.ok(log.errors[1] instanceof CacheStoreRecovered);
      assert.match(
        log.errors[1].message,
        new RegExp(
          `^Cache store reachable again: 127\\.0\\.0\\.1:${server.port} after \\d+ ms$`,
        ),
      );
      assert.equal(cache.stats().providerErrors, 1, "a recovery is no error");

      // A second outage is reported again, once.
      await server.stop();
      for (let i = 0; i < 5; i++) {
        assert.equal(
          await cache.get("after"),
          undefined,
        );
      }
      await waitFor(() => log.errors.length === 3, "the second outage report");
      assert.ok(log.errors[2] instanceof CacheStoreUnavailableError);
      await server.start();
      await waitFor(async () => {
        await cache.set("again", 1);
        return (await cache.get("again")) === 1;
      }, "recovery after the second outage");
      assert.equal(log.errors.length, 4);
      assert.ok(log.errors[3] instanceof CacheStoreRecovered);
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "RemoteStoreCacheProvider shares one factory run among 100 concurrent getOrSet calls",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
    );
    try {
      let runs = 0;
      const factory = async () => {
        runs++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return "value";
      };
      const results = await Promise.all(
        Array.from({ length: 100 }, () => cache.getOrSet("cold", factory)),
      );
      assert.equal(runs, 1);
      assert.ok(results.every((value) => value === "value"));
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "RemoteStoreCacheProvider.fromConfiguration() reads cache:redis:host|port|password",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer({ password: "pw" });
    // A plain IConfiguration stands in for a ConfigurationManager fed by
    // REDIS_HOST / REDIS_PORT / REDIS_PASSWORD, so this test needs only the
    // read side.
    const config = configFrom({
      "cache:redis:host": server.host,
      "cache:redis:port": String(server.port),
      "cache:redis:password": "pw",
      "cache:redis:database": "2",
      "cache:redis:keyPrefix": "cfg:",
    });
    const provider = RemoteStoreCacheProvider.fromConfiguration(config);
    try {
      assert.equal(provider.address, `${server.host}:${server.port}`);
      assert.equal(provider.keyPrefix, "cfg:");
      await provider.set("k", { value: "v", storedAt: 0 });
      const db2 = await server.client(2);
      assert.equal(await db2.exists("cfg:k"), 1);
    } finally {
      await provider.dispose();
    }
  },
);

test("RemoteStoreCacheProvider.fromConfiguration() defaults and rejects a bad port", () => {
  const defaults = RemoteStoreCacheProvider.fromConfiguration(configFrom({}));
  assert.equal(defaults.address, "localhost:6379");
  assert.equal(defaults.keyPrefix, "kit:cache:");
  assert.throws(
    () =>
      RemoteStoreCacheProvider.fromConfiguration(
        configFrom({ "cache:redis:port": "abc" }),
      ),
    {
      name: "CacheSettingError",
      message: "cache:redis:port must be a number: abc",
    },
  );
  assert.throws(() => new RemoteStoreCacheProvider({ port: 70000 }), {
    name: "CacheSettingError",
    message:
      "RemoteStoreCacheProvider port must be an integer from 1 to 65535: 70000",
  });
});

// The rule shared by every fromConfiguration: an option written in code is
// deliberate, so it wins over configuration.
test("RemoteStoreCacheProvider.fromConfiguration(): an option given in code wins, configuration fills the rest", () => {
  const config = configFrom({
    "cache:redis:host": "cache.internal",
    "cache:redis:port": "6390",
    "cache:redis:keyPrefix": "cfg:",
    "cache:redis:database": "2",
  });
  const provider = RemoteStoreCacheProvider.fromConfiguration(config, {
    host: "127.0.0.1",
    keyPrefix: "code:",
    port: undefined, // unset: the configuration fills it
  });
  assert.equal(provider.address, "127.0.0.1:6390");
  assert.equal(provider.keyPrefix, "code:");
  // The database (2, from configuration) is part of the default channel.
  assert.equal(
    provider.invalidationChannel,
    "kit:cache:invalidation:2:code:",
  );
  const explicitZero = RemoteStoreCacheProvider.fromConfiguration(config, {
    database: 0,
    keyPrefix: "",
  });
  assert.equal(
    explicitZero.invalidationChannel,
    "kit:cache:invalidation:0:",
    "0 and an empty prefix given in code win too",
  );
});

test("RemoteStoreCacheProvider: every command is bounded (commandTimeout 0 is refused)", () => {
  assert.throws(() => new RemoteStoreCacheProvider({ commandTimeout: 0 }), {
    name: "CacheSettingError",
    message:
      "RemoteStoreCacheProvider commandTimeout must be an integer from 1 to 9007199254740991: 0",
  });
});

test(
  "RemoteStoreCacheProvider.dispose() leaves no connection, socket or timer behind",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const raw = await server.client();
    const before = activeResources();
    const clients = async () => (await raw.clientList()).length;
    assert.equal(await clients(), 1);

    // Connected, with an invalidation subscriber.
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
    });
    const subscription = provider.subscribeInvalidations(() => {});
    assert.equal(await subscription.ready, true);
    await provider.set("k", { value: 1, storedAt: 0 });
    assert.equal(await clients(), 3);
    await provider.dispose();
    await waitFor(
      async () => (await clients()) === 1,
      "the server to see both connections close",
    );

    // Disposed in the middle of reconnecting to a stopped server.
    const port = server.port;
    const reconnecting = new RemoteStoreCacheProvider({
      host: "127.0.0.1",
      port: port + 1 > 65535 ? port - 1 : port + 1,
      reconnectDelay: 50,
      maxReconnectDelay: 200,
      onError: () => {},
    });
    assert.equal(await reconnecting.connect(), false);
    await new Promise((resolve) => setTimeout(resolve, 120));
    await reconnecting.dispose();

    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(grownResources(before, activeResources()), []);
  },
);

test(
  "RemoteStoreCacheProvider: a getOrSet hit is one GET round trip and no other command",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      { policy: { ttl: 60_000, refreshThreshold: 0.8, maxStale: 10_000 } },
    );
    try {
      await cache.set("k", { a: 1 });
      const raw = await server.client();
      await raw.configResetStat();
      for (let i = 0; i < 25; i++) {
        assert.deepEqual(
          await cache.getOrSet("k", () => ({ a: 2 })),
          { a: 1 },
        );
      }
      const stats = String(await raw.info("commandstats"));
      const calls = [...stats.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)]
        .map(([, command, count]) => [command, Number(count)])
        .filter(([command]) =>
          command !== "info" && command !== "config|resetstat"
        );
      assert.deepEqual(calls, [["get", 25]]);
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "RemoteStoreCacheProvider reconnects with exponential backoff",
  { skip },
  async () => {
    // A fake server that refuses every handshake, recording when each
    // connection attempt arrives.
    const attempts: number[] = [];
    const sockets = new Set<import("node:net").Socket>();
    const { createServer } = await import("node:net");
    const fake = createServer((socket) => {
      attempts.push(performance.now());
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
      socket.once(
        "data",
        () => socket.end("-WRONGPASS invalid username-password pair\r\n"),
      );
    });
    await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
    const address = fake.address();
    const port = typeof address === "object" && address !== null
      ? address.port
      : 0;
    const log = errorLog();
    const provider = new RemoteStoreCacheProvider({
      host: "127.0.0.1",
      port,
      password: "x",
      reconnectDelay: 20,
      maxReconnectDelay: 160,
      onError: log.onError,
    });
    try {
      assert.equal(await provider.connect(), false);
      await waitFor(
        () => attempts.length >= 7,
        "7 connection attempts",
        20_000,
      );
      const gaps = attempts.slice(1).map((at, n) => at - attempts[n]);
      // Attempt n+1 waits at least half of min(20 × 2^n, 160) ("equal jitter"),
      // whatever the load: timers never fire early.
      gaps.slice(0, 6).forEach((gap, n) => {
        const floor = Math.min(20 * 2 ** n, 160) / 2;
        assert.ok(
          gap >= floor - 2,
          `gap ${n} = ${gap.toFixed(1)}ms, expected >= ${floor}ms`,
        );
      });
      assert.ok(gaps[5] >= 80 - 2, "the delay grew to the cap");
      assert.equal(log.errors.length, 1, "one report for all the attempts");
    } finally {
      await provider.dispose();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => fake.close(() => resolve()));
    }
  },
);

test(
  "RemoteStoreCacheProvider with commandTimeout treats a frozen server as an outage, then reports its end",
  {
    skip,
  },
  async () => {
    await using server = await startRedisServer();
    const log = errorLog();
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
      commandTimeout: 200,
      reconnectDelay: 20,
      maxReconnectDelay: 100,
      onError: log.onError,
    });
    try {
      await provider.set("k", { value: 1, storedAt: 0 });
      server.pause();
      try {
        assert.equal(await provider.get("k"), undefined);
        await provider.set("k", { value: 2, storedAt: 1 });
        assert.equal(provider.isConnected, false);
      } finally {
        server.resume();
      }
      assert.equal(log.errors.length, 1);
      assert.ok(log.errors[0] instanceof CacheStoreUnavailableError);
      assert.match(log.errors[0].message, /no reply within 200 ms/);
      await waitFor(
        () => provider.isConnected && provider.recoveryStats.pending === 0,
        "answers after SIGCONT and re-sends what it held back",
      );
      assert.equal(
        (await provider.get("k"))?.value,
        2,
        "the write made during the outage was re-sent",
      );
      assert.equal(log.errors.length, 2);
      assert.ok(log.errors[1] instanceof CacheStoreRecovered);
    } finally {
      await provider.dispose();
    }
  },
);

// Without a limit of its own: a limit is a timer, which this check counts
// (it is bounded by assertNothingLeft's deadline).
nodeTest(
  "no socket, ref'd timer or child process outlives the tests of this file",
  async () => {
    await assertNothingLeft(baseline);
  },
);
