// A Redis that stops answering: frozen (SIGSTOP), a TCP listener that never
// replies, a password missing. Each must count as an outage (one report,
// misses, skipped writes, quick answers, one report of its end), health must
// say so, and dispose must keep to its deadline.
import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import { test as nodeTest } from "node:test";
import {
  CacheManager,
  CacheStoreRecovered,
  CacheStoreUnavailableError,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  TieredCacheProvider,
} from "../../caching/mod.ts";
import { redisSkip, startRedisServer, waitFor } from "./_redis_server.ts";
import { activeResources, assertNothingLeft, errorLog } from "./_support.ts";
import { limited, RECONNECT_LIMIT } from "../_support/limits.ts";

// Tests here wait on Redis reconnecting after an outage they make: each has
// an explicit limit, on every runner (tests/_support/limits.ts).
const test = limited(nodeTest, RECONNECT_LIMIT);

const baseline = activeResources();
const skip = redisSkip;

/** A TCP listener that accepts connections and never answers. */
async function silentListener(): Promise<
  { port: number; close(): Promise<void>; connections(): number }
> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null
    ? address.port
    : 0;
  return {
    port,
    connections: () => accepted,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function elapsed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

// A Redis that accepts the connection and never answers must not hang its
// callers: without a connect deadline, connect() and getOrSet would stay
// pending for as long as the server is frozen, and nothing would be reported.
test(
  "a frozen Redis with a password: connect() and getOrSet give up within connectTimeout, once reported, then recover",
  { skip },
  async () => {
    await using server = await startRedisServer({ password: "s3cret" });
    const log = errorLog();
    const provider = new RemoteStoreCacheProvider({
      host: server.host,
      port: server.port,
      password: "s3cret",
      connectTimeout: 300,
      reconnectDelay: 20,
      maxReconnectDelay: 100,
    });
    const cache = new CacheManager(provider, { onError: log.onError });
    server.pause();
    let resumed = false;
    try {
      const connectTime = await elapsed(async () => {
        assert.equal(await provider.connect(), false);
      });
      assert.ok(connectTime < 3_000, `connect() took ${connectTime} ms`);
      let runs = 0;
      const callsTime = await elapsed(async () => {
        for (let i = 0; i < 20; i++) {
          assert.equal(await cache.getOrSet(`k${i}`, () => ++runs), runs);
          await cache.set("other", i);
        }
      });
      assert.equal(runs, 20, "every getOrSet is a miss");
      assert.ok(
        callsTime < 3_000,
        `20 calls during the outage: ${callsTime} ms`,
      );
      assert.equal(log.errors.length, 1, "one report for the outage");
      const report = log.errors[0];
      assert.ok(report instanceof CacheStoreUnavailableError);
      assert.match(
        report.message,
        /handshake \(AUTH, SELECT\) got no reply within 300 ms/,
      );
      assert.doesNotMatch(report.message, /s3cret/);

      server.resume();
      resumed = true;
      await waitFor(() => provider.isConnected, "the store to answer again");
      await cache.set("back", 1);
      assert.equal(await cache.get("back"), 1);
      assert.equal(log.errors.length, 2);
      assert.ok(log.errors[1] instanceof CacheStoreRecovered);
      assert.equal(cache.stats().providerErrors, 1);
    } finally {
      if (!resumed) server.resume();
      await cache.dispose();
    }
  },
);

test(
  "a frozen Redis without options: each command is bounded by the default commandTimeout, then calls answer at once",
  { skip },
  async () => {
    await using server = await startRedisServer();
    const log = errorLog();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      { onError: log.onError },
    );
    let resumed = false;
    try {
      await cache.set("k", "v");
      server.pause();
      // Before: pending for as long as the server stayed frozen.
      const first = await elapsed(async () => {
        assert.equal(await cache.getOrSet("k", () => "fresh"), "fresh");
      });
      assert.ok(first < 5_000, `first call took ${first} ms (default 1000)`);
      const later = await elapsed(async () => {
        for (let i = 0; i < 50; i++) {
          assert.equal(await cache.getOrSet(`x${i}`, () => i), i);
        }
      });
      assert.ok(later < 2_000, `50 later calls took ${later} ms`);
      assert.equal(log.errors.length, 1);
      assert.ok(log.errors[0] instanceof CacheStoreUnavailableError);
      assert.match(log.errors[0].message, /no reply within 1000 ms/);
      server.resume();
      resumed = true;
      // The value getOrSet stored during the outage is re-sent over the
      // older one.
      await waitFor(
        async () => (await cache.get("k")) === "fresh",
        "the store to answer again",
      );
      assert.ok(log.errors[1] instanceof CacheStoreRecovered);
      assert.equal(log.errors.length, 2);
    } finally {
      if (!resumed) server.resume();
      await cache.dispose();
    }
  },
);

test(
  "a listener that never answers counts as an outage, with or without a password",
  { skip },
  async () => {
    const silent = await silentListener();
    const withPassword = errorLog();
    const without = errorLog();
    // The connection itself is made at once (the listener accepts it); the
    // limits leave a busy machine the time to see that, so that what runs
    // out is the wait for an answer: the handshake's (a), a command's (b).
    const a = new CacheManager(
      new RemoteStoreCacheProvider({
        host: "127.0.0.1",
        port: silent.port,
        password: "pw",
        connectTimeout: 1_000,
        reconnectDelay: 20,
        maxReconnectDelay: 100,
      }),
      { onError: withPassword.onError },
    );
    const b = new CacheManager(
      new RemoteStoreCacheProvider({
        host: "127.0.0.1",
        port: silent.port,
        connectTimeout: 5_000,
        commandTimeout: 200,
        reconnectDelay: 20,
        maxReconnectDelay: 100,
      }),
      { onError: without.onError },
    );
    try {
      const time = await elapsed(async () => {
        for (let i = 0; i < 10; i++) {
          assert.equal(await a.getOrSet("k", () => i), i);
          assert.equal(await b.getOrSet("k", () => i), i);
        }
      });
      assert.ok(time < 5_000, `20 calls took ${time} ms`);
      assert.equal(withPassword.errors.length, 1);
      assert.match(withPassword.errors[0].message, /handshake/);
      assert.equal(without.errors.length, 1);
      assert.match(without.errors[0].message, /no reply within 200 ms/);
      assert.ok(
        (await b.checkHealth()).status === "degraded",
        "health says so",
      );
      // Silent connections are dropped and retried, never piled up.
      const before = silent.connections();
      await waitFor(
        () => silent.connections() > before,
        "a new connection to the silent listener (it keeps retrying)",
      );
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
      await silent.close();
    }
  },
);

// A missing Redis password must not flood onError: without one outage
// state, every GET and every SET would report its own CacheStoreError.
test(
  "a missing password (NOAUTH) is one outage: 1,000 calls, one report that says what to do",
  { skip },
  async () => {
    await using server = await startRedisServer({ password: "s3cret" });
    const log = errorLog();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({ host: server.host, port: server.port }),
      { onError: log.onError },
    );
    try {
      let runs = 0;
      for (let i = 0; i < 1000; i++) {
        assert.equal(await cache.getOrSet(`k${i}`, () => ++runs), runs);
      }
      assert.equal(runs, 1000);
      assert.equal(log.errors.length, 1);
      const report = log.errors[0];
      assert.ok(report instanceof CacheStoreUnavailableError);
      assert.equal(
        report.message,
        `Cache store unreachable: 127.0.0.1:${server.port} (the server requires a password: set the password option (REDIS_PASSWORD / cache:redis:password with fromConfiguration))`,
      );
      assert.match(String((report.cause as Error).message), /^NOAUTH/);
      assert.equal(cache.stats().providerErrors, 1);
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "a refused password is one outage whose message says what to check, never the password",
  { skip },
  async () => {
    await using server = await startRedisServer({ password: "s3cret" });
    const log = errorLog();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        password: "wrong-secret",
        reconnectDelay: 10,
        maxReconnectDelay: 50,
      }),
      { onError: log.onError },
    );
    try {
      for (let i = 0; i < 50; i++) await cache.getOrSet(`k${i}`, () => i);
      assert.equal(log.errors.length, 1);
      assert.match(
        log.errors[0].message,
        /password \(or user name\) was refused/,
      );
      const health = await cache.checkHealth();
      assert.equal(health.status, "degraded");
      const text = JSON.stringify(health) + log.errors[0].message;
      assert.doesNotMatch(text, /wrong-secret|s3cret/);
    } finally {
      await cache.dispose();
    }
  },
);

test(
  "checkHealth(): healthy while Redis answers, degraded (with why) while it is down, healthy once back",
  { skip },
  async () => {
    await using server = await startRedisServer({ password: "s3cret" });
    const memory = new CacheManager(new MemoryCacheProvider());
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        password: "s3cret",
        reconnectDelay: 10,
        maxReconnectDelay: 100,
      }),
      { onError: () => {} },
    );
    try {
      assert.deepEqual(await memory.checkHealth(), { status: "healthy" });
      const up = await cache.checkHealth();
      assert.equal(up.status, "healthy");

      await server.stop();
      await cache.get("k"); // the outage is noticed on use or by the check
      const down = await cache.checkHealth();
      assert.equal(down.status, "degraded");
      const detail = down.detail as Record<string, unknown>;
      assert.equal(detail.address, `127.0.0.1:${server.port}`);
      assert.match(String(detail.reason), /ECONNREFUSED|closed|socket/i);
      assert.match(String(detail.effect), /misses/);
      assert.ok(!Number.isNaN(Date.parse(String(detail.since))));
      assert.doesNotMatch(JSON.stringify(down), /s3cret/);

      await server.start();
      await waitFor(
        async () => (await cache.checkHealth()).status === "healthy",
        "healthy again",
      );

      await cache.dispose();
      assert.equal((await cache.checkHealth()).status, "unhealthy");
    } finally {
      await Promise.all([memory.dispose(), cache.dispose()]);
    }
  },
);

test(
  "checkHealth() of a tiered provider reports the degraded layer",
  { skip },
  async () => {
    await using server = await startRedisServer();
    const cache = new CacheManager(
      new TieredCacheProvider(
        new MemoryCacheProvider(),
        new RemoteStoreCacheProvider({
          host: server.host,
          port: server.port,
          commandTimeout: 200,
          reconnectDelay: 10,
          maxReconnectDelay: 100,
          onError: () => {},
        }),
      ),
      { onError: () => {} },
    );
    let resumed = false;
    try {
      assert.deepEqual(await cache.checkHealth(), { status: "healthy" });
      server.pause();
      const health = await cache.checkHealth();
      assert.equal(health.status, "degraded");
      const detail = health.detail as Record<string, Record<string, unknown>>;
      assert.match(String(detail.l2.reason), /no reply within 200 ms/);
      assert.equal(detail.l1, undefined);
      server.resume();
      resumed = true;
      await waitFor(
        async () => (await cache.checkHealth()).status === "healthy",
        "healthy again",
      );
    } finally {
      if (!resumed) server.resume();
      await cache.dispose();
    }
  },
);

test(
  "dispose({ timeout }) does not wait on a frozen Redis beyond the deadline",
  { skip },
  async () => {
    await using server = await startRedisServer();
    // A long commandTimeout: only the deadline can cut the wait short.
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        commandTimeout: 60_000,
        onError: () => {},
      }),
      { policy: { ttl: 50, maxStale: 60_000 }, onError: () => {} },
    );
    try {
      assert.equal(await cache.getOrSet("k", () => 1), 1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // A stale hit starts a background refresh whose write reaches Redis
      // only once it is frozen.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      assert.equal(
        await cache.getOrSet("k", async () => {
          await gate;
          return 2;
        }),
        1,
      );
      server.pause();
      release();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const time = await elapsed(() => cache.dispose({ timeout: 200 }));
      assert.ok(time < 2_000, `dispose took ${time} ms`);
    } finally {
      server.resume();
      await cache.dispose();
    }
  },
);

test(
  "checkHealth(signal) answers degraded at the signal when the store is silent",
  { skip },
  async () => {
    await using server = await startRedisServer();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        commandTimeout: 60_000,
        onError: () => {},
      }),
      { onError: () => {} },
    );
    try {
      assert.equal((await cache.checkHealth()).status, "healthy");
      server.pause();
      let health: Awaited<ReturnType<CacheManager["checkHealth"]>> | undefined;
      const time = await elapsed(async () => {
        health = await cache.checkHealth(AbortSignal.timeout(100));
      });
      assert.ok(time < 2_000, `checkHealth took ${time} ms`);
      assert.equal(health?.status, "degraded");
      assert.match(
        String((health?.detail as Record<string, unknown>).reason),
        /deadline/,
      );
    } finally {
      server.resume();
      await cache.dispose();
    }
  },
);

test(
  "dispose() during a silent handshake returns at once; a signal bounds it too",
  { skip },
  async () => {
    await using server = await startRedisServer({ password: "pw" });
    server.pause();
    try {
      const provider = new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        password: "pw",
        connectTimeout: 5_000,
        onError: () => {},
      });
      const connecting = provider.connect();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const time = await elapsed(() =>
        provider.dispose({ signal: controller.signal })
      );
      assert.ok(time < 2_000, `dispose took ${time} ms`);
      assert.equal(await connecting, false);
    } finally {
      server.resume();
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
