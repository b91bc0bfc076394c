// RemoteLogProvider and LoggerManager when the endpoint is down or slow:
// bounded flush()/dispose(), the circuit breaker, idempotency ids, health.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type RecordedRequest,
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import {
  type DisposeOptions,
  type ILogProvider,
  type LogDeliveryError,
  type LogEntry,
  LoggerManager,
  LogLevel,
  RemoteLogProvider,
  type RemoteLogProviderOptions,
} from "../../logging/mod.ts";

interface SentEntry {
  id: string;
  category: string;
  properties: Record<string, unknown>;
}

function entry(id: number): LogEntry {
  return {
    timestamp: new Date(),
    level: LogLevel.Info,
    category: "remote",
    message: `entry ${id}`,
    properties: { id },
  };
}

function sent(request: RecordedRequest): SentEntry[] {
  return JSON.parse(request.body).entries;
}

// An address where nothing listens: connections are refused at once.
async function refusingUrl(): Promise<string> {
  const server = await startTestServer();
  const url = `${server.url}/ingest`;
  await server.close();
  return url;
}

function remote(
  endpoint: string,
  options: Partial<RemoteLogProviderOptions> = {},
): { provider: RemoteLogProvider; errors: LogDeliveryError[] } {
  const errors: LogDeliveryError[] = [];
  const provider = new RemoteLogProvider({
    endpoint,
    apiKey: "secret-key-123",
    flushInterval: 60_000,
    onError: (error) => errors.push(error as LogDeliveryError),
    ...options,
  });
  return { provider, errors };
}

function lost(errors: LogDeliveryError[]): number {
  return errors.reduce((sum, error) => sum + error.dropped, 0);
}

test("RemoteLogProvider.dispose({ timeout }) with a refusing endpoint resolves at the deadline; every entry is counted once", async () => {
  // Default retries (5, from 1 s doubling): without the deadline dispose()
  // would take half a minute or more.
  const { provider, errors } = remote(await refusingUrl());
  for (let i = 0; i < 250; i++) await provider.log(entry(i));
  const started = Date.now();
  await provider.dispose({ timeout: 300 });
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 5_000, `dispose() took ${elapsed} ms`);
  assert.equal(provider.dropped, 250);
  assert.equal(lost(errors), 250, "reported once, in total 250");
  const deadline = errors.filter((error) => error.dropped > 0);
  assert.equal(deadline.length, 1, "one report");
  assert.match(
    deadline[0].message,
    /^RemoteLogProvider: 250 entries dropped: dispose\(\) stopped \(Timed out after 300 ms\) before /,
  );
});

test("RemoteLogProvider.flush({ signal }) with a hanging endpoint resolves when the signal aborts", async () => {
  const server = await startTestServer(() => {
    // Never answers.
  });
  try {
    const { provider, errors } = remote(`${server.url}/ingest`, {
      batchSize: 10,
    });
    for (let i = 0; i < 35; i++) await provider.log(entry(i));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("shutting down")), 300);
    const started = Date.now();
    await provider.flush({ signal: controller.signal });
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 5_000, `flush() took ${elapsed} ms`);
    assert.ok(server.requests.length >= 1, "a batch was in flight");
    assert.equal(provider.dropped, 35);
    assert.equal(provider.buffered, 0);
    assert.equal(lost(errors), 35);
    assert.match(errors[0].message, /flush\(\) stopped \(shutting down\)/);
    await provider.dispose();
  } finally {
    await server.close();
  }
});

test("RemoteLogProvider stops stacking retries: after one batch used up its retries, one failed probe drops the rest of the flush", async () => {
  const server = await startCollector(503, {});
  try {
    const { provider, errors } = remote(`${server.url}/ingest`, {
      batchSize: 10,
      maxRetries: 2,
      retryDelay: 20,
    });
    for (let i = 0; i < 100; i++) await provider.log(entry(i));
    await provider.flush();
    // The first batch: one attempt and two retries; then one probe. Without
    // the breaker every one of the 10 batches would make 3 attempts.
    assert.equal(server.requests.length, 4);
    assert.equal(provider.dropped, 100);
    assert.equal(lost(errors), 100);
    assert.equal(errors.length, 2);
    assert.match(
      errors[1].message,
      /^RemoteLogProvider: 90 entries dropped: .* is unreachable/,
    );
    await provider.dispose();
  } finally {
    await server.close();
  }
});

test("RemoteLogProvider: a probe that gets through closes the circuit and the rest is delivered", async () => {
  let calls = 0;
  const server = await startTestServer((_request, response) => {
    calls++;
    sendJson(response, calls <= 3 ? 503 : 200, {});
  });
  try {
    const { provider } = remote(`${server.url}/ingest`, {
      batchSize: 10,
      maxRetries: 2,
      retryDelay: 20,
    });
    for (let i = 0; i < 50; i++) await provider.log(entry(i));
    await provider.flush();
    assert.equal(provider.dropped, 10);
    const delivered = server.requests.slice(3).flatMap(sent).filter((item) =>
      item.category !== "kit.logging"
    ).map((item) => item.properties.id);
    assert.deepEqual(delivered, Array.from({ length: 40 }, (_, i) => i + 10));
    await provider.dispose();
  } finally {
    await server.close();
  }
});

test("RemoteLogProvider sends entry ids and an Idempotency-Key that stay the same on a retry", async () => {
  let calls = 0;
  const server = await startTestServer((_request, response, raw) => {
    calls++;
    // The first attempt arrives but its answer is lost.
    if (calls === 1) raw.socket.destroy();
    else sendJson(response, 200, {});
  });
  try {
    const { provider, errors } = remote(`${server.url}/ingest`, {
      batchSize: 3,
      retryDelay: 10,
    });
    for (let i = 0; i < 6; i++) await provider.log(entry(i));
    await provider.flush();
    assert.equal(server.requests.length, 3, "batch 1 twice, batch 2 once");
    const [first, retry, second] = server.requests;
    const key = first.headers["idempotency-key"];
    assert.match(String(key), /^[0-9a-f-]{36}$/);
    assert.equal(retry.headers["idempotency-key"], key);
    assert.notEqual(second.headers["idempotency-key"], key);
    const ids = sent(first).map((item) => item.id);
    assert.deepEqual(sent(retry).map((item) => item.id), ids);
    const all = [...ids, ...sent(second).map((item) => item.id)];
    for (const id of all) assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(new Set(all).size, 6);
    assert.equal(Object.keys(sent(first)[0])[0], "id", "the id comes first");
    assert.deepEqual(errors, []);
    await provider.dispose();
  } finally {
    await server.close();
  }
});

test("RemoteLogProvider.checkHealth() is degraded while deliveries fail or after drops, never showing the API key", async () => {
  let fail = true;
  const server = await startTestServer((_request, response) =>
    sendJson(response, fail ? 503 : 200, {})
  );
  try {
    const { provider } = remote(`${server.url}/ingest`, {
      maxRetries: 1,
      retryDelay: 10,
    });
    assert.deepEqual(provider.checkHealth(), {
      status: "healthy",
      detail: { dropped: 0, failed: 0, buffered: 0 },
    });
    await provider.log(entry(1));
    await provider.flush();
    const degraded = provider.checkHealth();
    assert.equal(degraded.status, "degraded");
    assert.deepEqual(degraded.detail, { dropped: 1, failed: 2, buffered: 0 });
    assert.ok(!JSON.stringify(degraded).includes("secret-key-123"));
    fail = false;
    await provider.log(entry(2));
    await provider.flush();
    assert.deepEqual(provider.checkHealth(), {
      status: "healthy",
      detail: { dropped: 0, failed: 0, buffered: 0 },
    });
    await provider.dispose();
  } finally {
    await server.close();
  }
});

test("LoggerManager.dispose({ timeout }) passes one signal to every provider and resolves at the deadline", async () => {
  const seen: (DisposeOptions | undefined)[] = [];
  const stuck: ILogProvider = {
    log: () => Promise.resolve(),
    isEnabled: () => true,
    dispose(options) {
      seen.push(options);
      return new Promise(() => {}); // never settles
    },
  };
  const { provider, errors } = remote(await refusingUrl());
  const manager = new LoggerManager().configure({
    level: "info",
    providers: [provider, stuck],
  });
  const logger = manager.getLogger("app");
  for (let i = 0; i < 120; i++) logger.info("m", { id: i });
  const started = Date.now();
  await manager.dispose({ timeout: 300 });
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 5_000, `dispose() took ${elapsed} ms`);
  assert.equal(seen.length, 1);
  assert.ok(seen[0]?.signal instanceof AbortSignal);
  assert.equal(seen[0]?.signal?.aborted, true);
  assert.equal(provider.dropped, 120);
  assert.equal(lost(errors), 120);
});

test("LoggerManager.checkHealth() is the worst of its providers' checks, healthy when none has one", async () => {
  const manager = new LoggerManager();
  assert.deepEqual(await manager.checkHealth(), {
    status: "healthy",
    detail: { providers: [] },
  });
  const plain: ILogProvider = {
    log: () => Promise.resolve(),
    isEnabled: () => true,
  };
  const degraded: ILogProvider = {
    ...plain,
    checkHealth: () => ({ status: "degraded", detail: { dropped: 3 } }),
  };
  const healthy: ILogProvider = {
    ...plain,
    checkHealth: () => Promise.resolve({ status: "healthy" as const }),
  };
  manager.configure({ providers: [plain, healthy, degraded] });
  const result = await manager.checkHealth();
  assert.equal(result.status, "degraded");
  assert.deepEqual(
    (result.detail as { providers: { status: string }[] }).providers.map((
      item,
    ) => item.status),
    ["healthy", "degraded"],
  );
  await manager.dispose();
});
