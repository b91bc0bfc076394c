// Start-up with Redis down: `required: true` fails connect() (and so an
// eager service's creation, and the application's start-up) within the
// connect timeout, naming the address; the default runs degraded with a
// warning.
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { test } from "node:test";
import {
  CacheManager,
  CacheStoreUnavailableError,
  RemoteStoreCacheProvider,
} from "../../caching/mod.ts";
import { Application, ApplicationStartError } from "../../platform/mod.ts";
import { redisSkip, startRedisServer } from "./_redis_server.ts";
import {
  activeResources,
  assertNothingLeft,
  configFrom,
  errorLog,
} from "./_support.ts";

const baseline = activeResources();

/** A port nothing listens on (a server started, then stopped). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve())
  );
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and never answers. */
async function silentServer(): Promise<
  { port: number; close(): Promise<void> }
> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve())
  );
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test("required: connect() with nothing listening rejects with CacheStoreUnavailableError naming the address", async () => {
  const port = await deadPort();
  const provider = new RemoteStoreCacheProvider({
    host: "127.0.0.1",
    port,
    required: true,
    onError: () => {},
  });
  const started = performance.now();
  await assert.rejects(provider.connect(), (error: unknown) => {
    assert.ok(error instanceof CacheStoreUnavailableError);
    assert.equal(error.address, `127.0.0.1:${port}`);
    assert.match(
      error.message,
      new RegExp(`^Cache store unreachable: 127\\.0\\.0\\.1:${port}`),
    );
    return true;
  });
  assert.ok(performance.now() - started < 5_000);
  await provider.dispose();
});

test("required: a server that never answers fails connect() within connectTimeout + commandTimeout", async () => {
  const silent = await silentServer();
  const provider = new RemoteStoreCacheProvider({
    host: "127.0.0.1",
    port: silent.port,
    required: true,
    connectTimeout: 300,
    commandTimeout: 300,
    onError: () => {},
  });
  try {
    const started = performance.now();
    await assert.rejects(provider.connect(), CacheStoreUnavailableError);
    const took = performance.now() - started;
    assert.ok(took < 1_500, `took ${took} ms`);
  } finally {
    await provider.dispose();
    await silent.close();
  }
});

test("required: a refused password fails connect() and says what to do", {
  skip: redisSkip,
}, async () => {
  await using server = await startRedisServer({ password: "s3cret-pass" });
  const provider = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    password: "wrong-pass",
    required: true,
    onError: () => {},
  });
  await assert.rejects(provider.connect(), (error: unknown) => {
    assert.ok(error instanceof CacheStoreUnavailableError);
    assert.match(error.message, /password/);
    assert.doesNotMatch(error.message, /s3cret-pass|wrong-pass/);
    return true;
  });
  await provider.dispose();
});

test("required: with the store up, connect() resolves true", {
  skip: redisSkip,
}, async () => {
  await using server = await startRedisServer();
  const provider = new RemoteStoreCacheProvider({
    host: server.host,
    port: server.port,
    required: true,
  });
  assert.equal(await provider.connect(), true);
  await provider.dispose();
});

test("by default, connect() with the store down resolves false, warns once, and the cache runs on misses", async () => {
  const port = await deadPort();
  const log = errorLog();
  const provider = new RemoteStoreCacheProvider({ host: "127.0.0.1", port });
  const cache = new CacheManager(provider, { onError: log.onError });
  try {
    assert.equal(await provider.connect(), false);
    assert.equal(log.errors.length, 1);
    assert.ok(log.errors[0] instanceof CacheStoreUnavailableError);
    assert.equal(await cache.getOrSet("k", () => "made"), "made");
    assert.equal(
      (await cache.checkHealth()).status,
      "degraded",
    );
  } finally {
    await cache.dispose();
  }
});

test("fromConfiguration reads cache:redis:required; a bad value is an error naming the key", async () => {
  const port = await deadPort();
  const provider = RemoteStoreCacheProvider.fromConfiguration(
    configFrom({
      "cache:redis:host": "127.0.0.1",
      "cache:redis:port": String(port),
      "cache:redis:required": "true",
    }),
    { onError: () => {} },
  );
  await assert.rejects(provider.connect(), CacheStoreUnavailableError);
  await provider.dispose();
  const relaxed = RemoteStoreCacheProvider.fromConfiguration(
    configFrom({
      "cache:redis:host": "127.0.0.1",
      "cache:redis:port": String(port),
      "cache:redis:required": "false",
    }),
    { onError: () => {} },
  );
  assert.equal(await relaxed.connect(), false);
  await relaxed.dispose();
  assert.throws(
    () =>
      RemoteStoreCacheProvider.fromConfiguration(
        configFrom({ "cache:redis:required": "maybe" }),
      ),
    {
      name: "CacheSettingError",
      message: "cache:redis:required must be true or false: maybe",
    },
  );
  assert.throws(
    () =>
      new RemoteStoreCacheProvider({
        required: "yes" as unknown as boolean,
      }),
    {
      name: "CacheSettingError",
      message: "RemoteStoreCacheProvider required must be a boolean: yes",
    },
  );
});

test("the recipe: an eager cache service awaiting connect() fails the application's start-up, naming the service and the address", async () => {
  const port = await deadPort();
  const error = await Application.start({
    configuration: () => ({}),
    services: (services) => {
      services.register("cache", async () => {
        const provider = new RemoteStoreCacheProvider({
          host: "127.0.0.1",
          port,
          required: true,
          onError: () => {},
        });
        await provider.connect();
        return new CacheManager(provider);
      }, { eager: true });
    },
  }).then(() => assert.fail("start-up should fail"), (error: unknown) => error);
  assert.ok(error instanceof ApplicationStartError);
  assert.equal(error.serviceName, "cache");
  assert.match(
    error.message,
    new RegExp(
      `^Start-up step 4 \\(services\\) failed: Service 'cache' could not be created: Cache store unreachable: 127\\.0\\.0\\.1:${port}`,
    ),
  );
});

test("the start-up tests leave no socket, timer or process behind", async () => {
  await assertNothingLeft(baseline);
});
