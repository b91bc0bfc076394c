import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpClient, TimeoutError } from "../../http/mod.ts";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";

// A handler that never answers: the client's timeout or signal must end the
// call, and closing the server drops the connection.
const silent = (): void => {};

test("HttpClient throws TimeoutError 'Request timeout of <n>ms exceeded' when an attempt is too slow", async () => {
  // Answers /warm only: a first call loads the runtime's fetch and opens the
  // connection (in Node.js, loading fetch can take longer than the timeout
  // on a busy machine, and the request would never reach the server).
  await using server = await startTestServer((request, response) => {
    if (request.url === "/warm") sendJson(response, 200, {});
  });
  const client = new HttpClient(server.url, { timeout: 50, retryAttempts: 0 });
  await client.get("/warm", { timeout: 0 });
  await assert.rejects(client.get("/slow"), (error: unknown) => {
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.message, "Request timeout of 50ms exceeded");
    assert.equal(error.timeout, 50);
    assert.equal(error.scope, "attempt");
    assert.equal(error.method, "GET");
    assert.equal(error.url, `${server.url}/slow`);
    return true;
  });
  assert.deepEqual(server.requests.map((request) => request.url), [
    "/warm",
    "/slow",
  ]);
});

test("HttpClient timeout also covers a response body that stalls after the headers", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.write('{"partial":');
  });
  const client = new HttpClient(server.url, { timeout: 80, retryAttempts: 0 });
  await assert.rejects(client.get("/stall"), {
    name: "TimeoutError",
    message: "Request timeout of 80ms exceeded",
  });
});

test("HttpClient per-call timeout overrides the client's", async () => {
  await using server = await startTestServer(silent);
  const client = new HttpClient(server.url, {
    timeout: 60_000,
    retryAttempts: 0,
  });
  await assert.rejects(client.get("/slow", { timeout: 30 }), {
    message: "Request timeout of 30ms exceeded",
  });
});

test("HttpClient retries a timed-out GET, each attempt with its own timeout", async () => {
  let seen = 0;
  await using server = await startTestServer((_request, response) => {
    seen++;
    if (seen > 2) sendJson(response, 200, { seen });
  });
  const client = new HttpClient(server.url, {
    timeout: 300,
    retryAttempts: 3,
    retryDelay: 1,
  });
  assert.deepEqual(await client.get("/x"), { seen: 3 });
  assert.equal(server.requests.length, 3);
});

test("HttpClient throws the last TimeoutError when every attempt times out", async () => {
  await using server = await startTestServer(silent);
  const client = new HttpClient(server.url, {
    timeout: 30,
    retryAttempts: 2,
    retryDelay: 1,
  });
  await assert.rejects(client.get("/x"), {
    name: "TimeoutError",
    message: "Request timeout of 30ms exceeded",
  });
  assert.equal(server.requests.length, 3);
});

test("HttpClient totalTimeout bounds the whole call across retries", async () => {
  await using server = await startTestServer(silent);
  const client = new HttpClient(server.url, {
    timeout: 60,
    retryAttempts: 10,
    retryDelay: 1,
    totalTimeout: 200,
  });
  await assert.rejects(client.get("/x"), (error: unknown) => {
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.message, "Request timeout of 200ms exceeded");
    assert.equal(error.scope, "total");
    return true;
  });
  // 200 ms hold at most four 60 ms attempts, far fewer than 11.
  assert.ok(server.requests.length <= 4, `${server.requests.length}`);
});

test("HttpClient totalTimeout fails at once when the next backoff would pass it", async () => {
  await using server = await startCollector(503, {});
  const client = new HttpClient(server.url, {
    retryDelay: 60_000,
    totalTimeout: 5_000,
  });
  const started = Date.now();
  await assert.rejects(client.get("/x"), {
    name: "TimeoutError",
    message: "Request timeout of 5000ms exceeded",
  });
  assert.ok(Date.now() - started < 4_000);
  assert.equal(server.requests.length, 1);
});

test("HttpClient totalTimeout applies to a single slow attempt too", async () => {
  await using server = await startTestServer(silent);
  const client = new HttpClient(server.url, {
    timeout: 0,
    totalTimeout: 50,
  });
  await assert.rejects(client.get("/x"), {
    message: "Request timeout of 50ms exceeded",
  });
});

test("HttpClient rejects with the abort reason when the caller's signal aborts, without retrying", async () => {
  await using server = await startTestServer(silent);
  const client = new HttpClient(server.url, {
    retryAttempts: 3,
    retryDelay: 1,
  });
  const controller = new AbortController();
  const reason = new Error("user left the page");
  const call = client.get("/x", { signal: controller.signal });
  while (server.requests.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  controller.abort(reason);
  await assert.rejects(call, (error: unknown) => {
    assert.equal(error, reason);
    return true;
  });
  assert.equal(server.requests.length, 1);
});

test("HttpClient rejects at once for a signal that is already aborted", async () => {
  await using server = await startTestServer(silent);
  const client = new HttpClient(server.url);
  const reason = new Error("too late");
  await assert.rejects(
    client.get("/x", { signal: AbortSignal.abort(reason) }),
    (error: unknown) => error === reason,
  );
  assert.equal(server.requests.length, 0);
});

test("HttpClient cancellation during a retry wait rejects with the reason", async () => {
  await using server = await startCollector(503, {});
  const controller = new AbortController();
  const reason = new Error("cancelled while waiting");
  const client = new HttpClient(server.url, {
    retryDelay: 60_000,
    retryJitter: 0,
    totalTimeout: 0, // the 60 s wait would pass the default 30 s total
    onRetry: () => controller.abort(reason),
  });
  await assert.rejects(
    client.get("/x", { signal: controller.signal }),
    (error: unknown) => error === reason,
  );
  assert.equal(server.requests.length, 1);
});

test("HttpClient cancellation of a POST rejects with the reason", async () => {
  await using server = await startTestServer(silent);
  const client = new HttpClient(server.url);
  const controller = new AbortController();
  const call = client.post("/x", { json: {}, signal: controller.signal });
  while (server.requests.length === 0) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  controller.abort();
  await assert.rejects(call, { name: "AbortError" });
});
