import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import {
  type RecordedRequest,
  sendJson,
  startCollector,
  startTestServer,
  type TestServer,
} from "../_support/http_server.ts";
import {
  LogDeliveryError,
  type LogEntry,
  LogLevel,
  LogProviderOptionError,
  RemoteLogProvider,
  type RemoteLogProviderOptions,
} from "../../logging/mod.ts";
import { runChild, waitFor } from "./_helpers.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

interface SentEntry {
  timestamp: string;
  level: string;
  category: string;
  message: string;
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

function allIds(server: TestServer): number[] {
  return server.requests.flatMap((request) =>
    sent(request).filter((item) => item.category !== "kit.logging").map((
      item,
    ) => item.properties.id as number)
  );
}

async function withServer(
  run: (server: TestServer) => Promise<void>,
): Promise<void> {
  const server = await startCollector(200, { ok: true });
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

function provider(
  server: TestServer,
  options: Partial<RemoteLogProviderOptions> = {},
) {
  const errors: Error[] = [];
  const remote = new RemoteLogProvider({
    endpoint: `${server.url}/ingest`,
    apiKey: "k-123",
    batchSize: 100,
    flushInterval: 60_000,
    retryDelay: 10,
    onError: (error) => errors.push(error),
    ...options,
  });
  return { remote, errors };
}

test("RemoteLogProvider POSTs { entries } batches of batchSize with the key in X-API-Key, never in the URL", async () => {
  await withServer(async (server) => {
    const { remote, errors } = provider(server, { batchSize: 3 });
    for (let i = 0; i < 7; i++) await remote.log(entry(i));
    await waitFor(() => server.requests.length === 2, "two full batches");
    assert.equal(remote.buffered, 1);
    for (const request of server.requests) {
      assert.equal(request.method, "POST");
      assert.equal(request.url, "/ingest");
      assert.equal(request.headers["x-api-key"], "k-123");
      assert.match(
        String(request.headers["content-type"]),
        /^application\/json/,
      );
      assert.ok(!request.url.includes("k-123"));
      assert.deepEqual(Object.keys(JSON.parse(request.body)), ["entries"]);
    }
    assert.deepEqual(
      sent(server.requests[0]).map((item) => item.properties.id),
      [0, 1, 2],
    );
    assert.deepEqual(
      sent(server.requests[1]).map((item) => item.properties.id),
      [3, 4, 5],
    );
    const first = sent(server.requests[0])[0];
    assert.equal(first.level, "info");
    assert.equal(first.category, "remote");
    assert.equal(first.message, "entry 0");
    await remote.dispose();
    assert.deepEqual(allIds(server), [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(errors, []);
  });
});

test("RemoteLogProvider sends what is buffered after flushInterval without a full batch", async () => {
  await withServer(async (server) => {
    const { remote } = provider(server, { batchSize: 100, flushInterval: 50 });
    await remote.log(entry(1));
    await remote.log(entry(2));
    assert.equal(server.requests.length, 0);
    await waitFor(() => server.requests.length === 1, "the interval flush");
    assert.deepEqual(allIds(server), [1, 2]);
    await remote.log(entry(3));
    await waitFor(
      () => server.requests.length === 2,
      "the next interval flush",
    );
    assert.deepEqual(allIds(server), [1, 2, 3]);
    await remote.dispose();
  });
});

test("RemoteLogProvider retries a batch after a 500 with backoff", async () => {
  await withServer(async (server) => {
    const times: number[] = [];
    server.setHandler((_request, response) => {
      times.push(Date.now());
      if (times.length <= 2) sendJson(response, 500, { message: "down" });
      else sendJson(response, 200, {});
    });
    const { remote, errors } = provider(server, { retryDelay: 100 });
    await remote.log(entry(1));
    await remote.flush();
    assert.equal(server.requests.length, 3);
    // Exponential: about retryDelay before the first retry, twice that
    // before the second (lower bounds only, with room for timer rounding).
    const first = times[1] - times[0];
    const second = times[2] - times[1];
    assert.ok(first >= 90, `first retry after ${first} ms`);
    assert.ok(second >= 180, `second retry after ${second} ms`);
    assert.equal(
      server.requests[2].body,
      server.requests[0].body,
      "the same batch again",
    );
    assert.equal(remote.dropped, 0);
    assert.deepEqual(errors, []);
    await remote.dispose();
  });
});

test("RemoteLogProvider retries a batch after a dropped connection", async () => {
  await withServer(async (server) => {
    let calls = 0;
    server.setHandler((_request, response, raw) => {
      calls++;
      if (calls === 1) {
        raw.socket.destroy();
        return;
      }
      sendJson(response, 200, {});
    });
    const { remote, errors } = provider(server);
    await remote.log(entry(1));
    await remote.log(entry(2));
    await remote.flush();
    assert.equal(server.requests.length, 2);
    assert.deepEqual(
      sent(server.requests[1]).map((item) => item.properties.id),
      [1, 2],
    );
    assert.equal(remote.dropped, 0);
    assert.deepEqual(errors, []);
    await remote.dispose();
  });
});

test("RemoteLogProvider honours Retry-After on a 429", async () => {
  await withServer(async (server) => {
    const times: number[] = [];
    server.setHandler((_request, response) => {
      times.push(Date.now());
      if (times.length === 1) {
        sendJson(response, 429, {}, { "retry-after": "1" });
      } else sendJson(response, 200, {});
    });
    const { remote } = provider(server, { retryDelay: 10 });
    await remote.log(entry(1));
    await remote.flush();
    assert.equal(times.length, 2);
    // retryDelay alone would retry after 10 ms; Retry-After asks for 1 s.
    assert.ok(times[1] - times[0] >= 900, `waited ${times[1] - times[0]} ms`);
    await remote.dispose();
  });
});

test("RemoteLogProvider caps the backoff and Retry-After by maxRetryDelay", {
  // Without the cap the retry would wait an hour.
  timeout: 30_000,
}, async () => {
  await withServer(async (server) => {
    const times: number[] = [];
    server.setHandler((_request, response) => {
      times.push(Date.now());
      if (times.length === 1) {
        // An hour, by the server's wish.
        sendJson(response, 429, {}, { "retry-after": "3600" });
      } else if (times.length === 2) {
        // Backoff alone would wait retryDelay × 2 = 20 s.
        sendJson(response, 503, {});
      } else sendJson(response, 200, {});
    });
    const { remote, errors } = provider(server, {
      retryDelay: 10_000,
      maxRetryDelay: 200,
    });
    await remote.log(entry(1));
    await remote.flush();
    assert.equal(times.length, 3);
    const first = times[1] - times[0];
    const second = times[2] - times[1];
    assert.ok(first >= 180 && first < 5_000, `first retry after ${first} ms`);
    assert.ok(
      second >= 180 && second < 5_000,
      `second retry after ${second} ms`,
    );
    assert.equal(remote.dropped, 0);
    assert.deepEqual(errors, []);
    await remote.dispose();
  });
});

test("RemoteLogProvider does not retry a 401; the batch is dropped, counted and reported", async () => {
  await withServer(async (server) => {
    server.setHandler((_request, response) =>
      sendJson(response, 401, { message: "bad key" })
    );
    const { remote, errors } = provider(server, { maxRetries: 5 });
    await remote.log(entry(1));
    await remote.log(entry(2));
    await remote.flush();
    assert.equal(server.requests.length, 1);
    assert.equal(remote.dropped, 2);
    assert.equal(errors.length, 1);
    const error = errors[0] as LogDeliveryError;
    assert.ok(error instanceof LogDeliveryError);
    assert.equal(error.status, 401);
    assert.equal(error.dropped, 2);
    assert.equal(
      error.message,
      `RemoteLogProvider: ${server.url}/ingest answered 401; 2 entries dropped (not retried)`,
    );
    await remote.dispose();
  });
});

test("RemoteLogProvider gives up after maxRetries, counts the batch and announces it in the next batch", async () => {
  await withServer(async (server) => {
    server.setHandler((_request, response) => sendJson(response, 503, {}));
    const { remote, errors } = provider(server, { maxRetries: 2 });
    await remote.log(entry(1));
    await remote.flush();
    assert.equal(server.requests.length, 3, "one attempt and two retries");
    assert.equal(remote.dropped, 1);
    assert.match(
      errors[0].message,
      /^RemoteLogProvider: 1 entry dropped after 3 attempts: /,
    );
    server.setHandler((_request, response) => sendJson(response, 200, {}));
    await remote.log(entry(2));
    await remote.flush();
    const [report, next] = sent(server.requests.at(-1)!);
    assert.equal(report.category, "kit.logging");
    assert.equal(report.level, "warning");
    assert.deepEqual(report.properties, { dropped: 1 });
    assert.equal(next.properties.id, 2);
    await remote.dispose();
  });
});

test("RemoteLogProvider bounds its buffer: the oldest entries are dropped, counted and reported", async () => {
  await withServer(async (server) => {
    const { remote, errors } = provider(server, {
      maxBufferSize: 5,
      batchSize: 100,
    });
    for (let i = 0; i < 8; i++) await remote.log(entry(i));
    assert.equal(remote.buffered, 5);
    assert.equal(remote.dropped, 3);
    assert.equal(errors.length, 1, "one warning per overflow episode");
    assert.equal(
      errors[0].message,
      "RemoteLogProvider: buffer full (maxBufferSize 5); oldest entries are being dropped",
    );
    await remote.dispose();
    assert.equal(server.requests.length, 1);
    const entries = sent(server.requests[0]);
    assert.equal(entries[0].category, "kit.logging");
    assert.deepEqual(entries[0].properties, { dropped: 3 });
    assert.equal(entries[0].message, "RemoteLogProvider dropped 3 log entries");
    assert.deepEqual(allIds(server), [3, 4, 5, 6, 7]);
  });
});

test("RemoteLogProvider.flush() waiting on entries the full buffer then drops ends once the rest is sent", async () => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  await using server = await startTestServer(async (_request, response) => {
    await held;
    sendJson(response, 200, { ok: true });
  });
  const { remote, errors } = provider(server, {
    maxBufferSize: 2,
    batchSize: 1,
  });
  await remote.log(entry(0)); // sent; the server holds it
  await remote.log(entry(1));
  await remote.log(entry(2));
  const flushed = remote.flush().then(() => "flushed");
  // The buffer is full: 1 and then 2, which the flush waits for, are dropped.
  await remote.log(entry(3));
  await remote.log(entry(4));
  release();
  const outcome = await Promise.race([
    flushed,
    new Promise<string>((resolve) =>
      setTimeout(() => resolve("still waiting after 3 s"), 3_000)
    ),
  ]);
  assert.equal(outcome, "flushed");
  assert.equal(remote.dropped, 2);
  assert.equal(errors.length, 1, "the overflow warning");
  await remote.dispose();
});

test("RemoteLogProvider.dispose() delivers everything buffered, in order, exactly once", async () => {
  await withServer(async (server) => {
    const { remote, errors } = provider(server, {
      batchSize: 40,
      flushInterval: 60_000,
    });
    for (let i = 0; i < 250; i++) await remote.log(entry(i));
    await remote.dispose();
    assert.deepEqual(allIds(server), Array.from({ length: 250 }, (_, i) => i));
    assert.ok(server.requests.every((request) => sent(request).length <= 40));
    assert.equal(remote.buffered, 0);
    assert.equal(errors.length, 0);
    await remote.log(entry(999));
    assert.equal(
      remote.dropped,
      1,
      "after dispose an entry is counted as dropped",
    );
    assert.match(
      errors[0].message,
      /1 entry dropped: logged after dispose\(\)/,
    );
  });
});

test("RemoteLogProvider's flush timer does not keep the process alive", async () => {
  // One entry with a one-minute flush interval, then the script ends: the
  // process must exit at once.
  const result = await runChild(
    `import { LogLevel, RemoteLogProvider } from LOGGING;
const remote = new RemoteLogProvider({ endpoint: "http://127.0.0.1:9/never", flushInterval: 60000 });
await remote.log({ timestamp: new Date(), level: LogLevel.Info, category: "x", message: "m", properties: {} });
console.log("buffered", remote.buffered);
`,
  );
  assert.equal(result.code, 0, result.out);
  assert.match(result.out, /buffered 1/);
});

test("RemoteLogProvider's retry wait does not keep the process alive", async () => {
  await withServer(async (server) => {
    server.setHandler((_request, response) => sendJson(response, 503, {}));
    // The flush timer sends the batch, the server answers 503 and the next
    // attempt is a minute away; the script has ended, so the process exits
    // without waiting for it (call dispose() on shutdown to deliver).
    const result = await runChild(
      `import { LogLevel, RemoteLogProvider } from LOGGING;
const remote = new RemoteLogProvider({ endpoint: ${
        JSON.stringify(`${server.url}/ingest`)
      }, flushInterval: 10, retryDelay: 60000, maxRetryDelay: 60000, onError: () => {} });
await remote.log({ timestamp: new Date(), level: LogLevel.Info, category: "x", message: "m", properties: {} });
await new Promise((resolve) => setTimeout(resolve, 500));
console.log("script ended");
`,
    );
    assert.equal(result.code, 0, result.out);
    assert.match(result.out, /script ended/);
    assert.equal(
      server.requests.filter((request) => request.url === "/ingest").length,
      1,
      "one attempt, no retry",
    );
    assert.ok(result.ms < 20_000, `the child took ${result.ms} ms`);
  });
});

test("RemoteLogProvider.flush() keeps the process alive until the retried batch is delivered", async () => {
  await withServer(async (server) => {
    let calls = 0;
    server.setHandler((_request, response) => {
      calls++;
      if (calls === 1) sendJson(response, 503, {});
      else sendJson(response, 200, {});
    });
    // Only an unref'd retry wait is pending while flush() is awaited: the
    // process must stay until the second attempt delivers the entry.
    const result = await runChild(
      `import { LogLevel, RemoteLogProvider } from LOGGING;
const remote = new RemoteLogProvider({ endpoint: ${
        JSON.stringify(server.url)
      }, retryDelay: 300, onError: (error) => console.log("error", error.message) });
await remote.log({ timestamp: new Date(), level: LogLevel.Info, category: "x", message: "m", properties: {} });
await remote.flush();
console.log("flushed, dropped", remote.dropped);
`,
    );
    assert.equal(result.code, 0, result.out);
    assert.match(result.out, /flushed, dropped 0/);
    assert.equal(calls, 2);
  });
});

test("RemoteLogProvider validates its options", () => {
  assert.throws(
    () => new RemoteLogProvider({ endpoint: "ftp://example.com" }),
    (error: unknown) =>
      error instanceof LogProviderOptionError && error.option === "endpoint" &&
      error.message ===
        `RemoteLogProvider: option 'endpoint' must be an http(s) URL (got "ftp://example.com")`,
  );
  assert.throws(
    () => new RemoteLogProvider({ endpoint: "https://x.test", batchSize: 0 }),
    /option 'batchSize' must be a positive integer \(got 0\)/,
  );
  assert.throws(
    () => new RemoteLogProvider({} as RemoteLogProviderOptions),
    /option 'endpoint' is required/,
  );
});

test("RemoteLogProvider resolves a relative endpoint against the page, and needs an absolute one elsewhere", async () => {
  assert.throws(
    () => new RemoteLogProvider({ endpoint: "/logs" }),
    (error: unknown) =>
      error instanceof LogProviderOptionError &&
      error.message ===
        `RemoteLogProvider: option 'endpoint' must be an http(s) URL (got "/logs")`,
  );
  await withServer(async (server) => {
    // A browser page: `location` is the page's address.
    const globals = globalThis as { location?: { href: string } };
    const had = Object.hasOwn(globals, "location");
    const previous = globals.location;
    Object.defineProperty(globalThis, "location", {
      value: { href: `${server.url}/app/index.html` },
      configurable: true,
      writable: true,
    });
    let provider: RemoteLogProvider;
    try {
      provider = new RemoteLogProvider({ endpoint: "/logs", batchSize: 1 });
    } finally {
      if (had) globals.location = previous;
      else delete globals.location;
    }
    await provider.log(entry(1));
    await provider.dispose();
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0].url, "/logs");
    assert.deepEqual(allIds(server), [1]);
  });
});
