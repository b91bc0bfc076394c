import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpClient, HttpError, type HttpRetryEvent } from "../../http/mod.ts";
import { sendJson, startTestServer } from "../_support/http_server.ts";

/** Answers `status` to the first `failures` requests, then 200. */
function failFirst(failures: number, status: number, headers = {}) {
  let seen = 0;
  return (
    _request: unknown,
    response: import("node:http").ServerResponse,
  ): void => {
    seen++;
    if (seen <= failures) sendJson(response, status, { seen }, headers);
    else sendJson(response, 200, { seen });
  };
}

test("HttpClient retries a GET that fails with 503 and returns the later success", async () => {
  await using server = await startTestServer(failFirst(2, 503));
  const client = new HttpClient(server.url, {
    retryAttempts: 3,
    retryDelay: 1,
  });
  assert.deepEqual(await client.get("/x"), { seen: 3 });
  assert.equal(server.requests.length, 3);
});

test("HttpClient makes retryAttempts extra attempts, then throws the last HttpError", async () => {
  await using server = await startTestServer(failFirst(100, 500));
  const client = new HttpClient(server.url, {
    retryAttempts: 2,
    retryDelay: 1,
  });
  await assert.rejects(client.get("/x"), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 500);
    return true;
  });
  assert.equal(server.requests.length, 3);
});

test("HttpClient with retryAttempts 0 sends once", async () => {
  await using server = await startTestServer(failFirst(100, 503));
  const client = new HttpClient(server.url, { retryAttempts: 0 });
  await assert.rejects(client.get("/x"), HttpError);
  assert.equal(server.requests.length, 1);
});

test("HttpClient retries 408, 429, 500, 502, 503 and 504 and nothing else", async () => {
  for (const status of [408, 429, 500, 502, 503, 504]) {
    await using server = await startTestServer(failFirst(1, status));
    const client = new HttpClient(server.url, { retryDelay: 1 });
    assert.deepEqual(await client.get("/x"), { seen: 2 }, `status ${status}`);
  }
  for (const status of [400, 401, 403, 404, 409, 413, 422, 501]) {
    await using server = await startTestServer(failFirst(1, status));
    const client = new HttpClient(server.url, { retryDelay: 1 });
    await assert.rejects(client.get("/x"), HttpError, `status ${status}`);
    assert.equal(server.requests.length, 1, `status ${status}`);
  }
});

test("HttpClient retries a dropped connection (network error)", async () => {
  let seen = 0;
  await using server = await startTestServer((_request, response) => {
    seen++;
    if (seen === 1) response.socket?.destroy();
    else sendJson(response, 200, { seen });
  });
  const client = new HttpClient(server.url, { retryDelay: 1 });
  assert.deepEqual(await client.get("/x"), { seen: 2 });
});

test("HttpClient gives up on a network error after the retries and throws it", async () => {
  await using server = await startTestServer((_request, response) => {
    response.socket?.destroy();
  });
  const client = new HttpClient(server.url, {
    retryAttempts: 1,
    retryDelay: 1,
  });
  await assert.rejects(client.get("/x"), TypeError);
  assert.equal(server.requests.length, 2);
});

test("HttpClient does not retry POST or PATCH unless the call is marked idempotent", async () => {
  await using server = await startTestServer(failFirst(1, 503));
  const client = new HttpClient(server.url, { retryDelay: 1 });
  await assert.rejects(client.post("/x", { json: { a: 1 } }), HttpError);
  assert.equal(server.requests.length, 1);
  server.setHandler(failFirst(1, 503));
  await assert.rejects(client.patch("/x", { json: { a: 1 } }), HttpError);
  assert.equal(server.requests.length, 2);
  server.setHandler(failFirst(1, 503));
  assert.deepEqual(
    await client.post("/x", { json: { a: 1 }, idempotent: true }),
    { seen: 2 },
  );
  assert.equal(server.requests.length, 4);
  assert.equal(server.requests[3].body, '{"a":1}');
});

test("HttpClient does not retry a POST after a network error", async () => {
  await using server = await startTestServer((_request, response) => {
    response.socket?.destroy();
  });
  const client = new HttpClient(server.url, { retryDelay: 1 });
  await assert.rejects(client.post("/x", { json: {} }), TypeError);
  assert.equal(server.requests.length, 1);
});

test("HttpClient retries PUT, DELETE, HEAD and OPTIONS", async () => {
  for (const method of ["PUT", "DELETE", "HEAD", "OPTIONS"]) {
    await using server = await startTestServer(failFirst(1, 502));
    const client = new HttpClient(server.url, { retryDelay: 1 });
    const response = await client.request(method, "/x");
    assert.equal(response.status, 200, method);
    await response.body?.cancel();
    assert.equal(server.requests.length, 2, method);
  }
});

test("HttpClient waits retryDelay * 2^(n-1) between attempts, capped at maxRetryDelay", async () => {
  await using server = await startTestServer(failFirst(4, 503));
  const events: HttpRetryEvent[] = [];
  const client = new HttpClient(server.url, {
    retryAttempts: 4,
    retryDelay: 4,
    maxRetryDelay: 20,
    retryJitter: 0,
    onRetry: (event) => events.push(event),
  });
  await client.get("/x");
  assert.deepEqual(events.map((e) => [e.retry, e.delay, e.status]), [
    [1, 4, 503],
    [2, 8, 503],
    [3, 16, 503],
    [4, 20, 503],
  ]);
  assert.equal(events[0].method, "GET");
  assert.equal(events[0].url, `${server.url}/x`);
});

test("HttpClient shortens backoff delays by a random jitter of at most retryJitter", async () => {
  await using server = await startTestServer(failFirst(3, 503));
  const delays: number[] = [];
  const client = new HttpClient(server.url, {
    retryAttempts: 3,
    retryDelay: 10,
    retryJitter: 0.5,
    onRetry: (event) => delays.push(event.delay),
  });
  await client.get("/x");
  const nominal = [10, 20, 40];
  delays.forEach((delay, i) => {
    assert.ok(delay <= nominal[i] && delay >= nominal[i] * 0.5, `${delay}`);
  });
  // Default jitter: at most 20 % shorter.
  server.setHandler(failFirst(1, 503));
  const defaults: number[] = [];
  const plain = new HttpClient(server.url, {
    retryDelay: 10,
    onRetry: (event) => defaults.push(event.delay),
  });
  await plain.get("/y");
  assert.ok(defaults[0] <= 10 && defaults[0] >= 8, `${defaults[0]}`);
});

test("HttpClient honours Retry-After in seconds instead of the backoff delay", async () => {
  await using server = await startTestServer(
    failFirst(1, 429, { "retry-after": "1" }),
  );
  const delays: number[] = [];
  const client = new HttpClient(server.url, {
    retryDelay: 5,
    retryJitter: 0,
    onRetry: (event) => delays.push(event.delay),
  });
  const started = Date.now();
  assert.deepEqual(await client.get("/x"), { seen: 2 });
  assert.deepEqual(delays, [1000]);
  assert.ok(Date.now() - started >= 950, "waited for Retry-After");
});

test("HttpClient honours Retry-After as an HTTP date", async () => {
  const when = new Date(Date.now() + 1500).toUTCString();
  await using server = await startTestServer(
    failFirst(1, 503, { "retry-after": when }),
  );
  const delays: number[] = [];
  const client = new HttpClient(server.url, {
    retryDelay: 60_000,
    onRetry: (event) => delays.push(event.delay),
  });
  assert.deepEqual(await client.get("/x"), { seen: 2 });
  assert.equal(delays.length, 1);
  // The date has whole seconds, so the wait is between 0.5 s and 1.5 s;
  // without Retry-After it would be close to a minute.
  assert.ok(delays[0] >= 0 && delays[0] <= 1500, `${delays[0]}`);
});

test("HttpClient does not retry when Retry-After asks for more than maxRetryAfter", async () => {
  await using server = await startTestServer(
    failFirst(1, 503, { "retry-after": "120" }),
  );
  const client = new HttpClient(server.url, {
    retryDelay: 1,
    maxRetryAfter: 5_000,
  });
  await assert.rejects(client.get("/x"), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 503);
    assert.equal(error.headers.get("retry-after"), "120");
    return true;
  });
  assert.equal(server.requests.length, 1);
});

test("HttpClient ignores an unreadable Retry-After and backs off normally", async () => {
  await using server = await startTestServer(
    failFirst(1, 503, { "retry-after": "soon" }),
  );
  const delays: number[] = [];
  const client = new HttpClient(server.url, {
    retryDelay: 3,
    retryJitter: 0,
    onRetry: (event) => delays.push(event.delay),
  });
  await client.get("/x");
  assert.deepEqual(delays, [3]);
});

test("HttpClient consumes the bodies of retried responses", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(503, { "content-type": "application/json" });
    response.end(JSON.stringify({ padding: "x".repeat(64 * 1024) }));
  });
  const seen: Response[] = [];
  const client = new HttpClient(server.url, {
    retryAttempts: 3,
    retryDelay: 1,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response);
      return response;
    },
  });
  const response = await client.request("GET", "/x");
  assert.equal(response.status, 503);
  assert.equal(seen.length, 4);
  // The three retried responses were read or cancelled; the last is ours.
  assert.deepEqual(seen.map((r) => r.bodyUsed), [true, true, true, false]);
  await response.body?.cancel();
});

test("HttpClient retryAttempts per call overrides the client's", async () => {
  await using server = await startTestServer(failFirst(100, 503));
  const client = new HttpClient(server.url, {
    retryAttempts: 5,
    retryDelay: 1,
  });
  await assert.rejects(client.get("/x", { retryAttempts: 1 }), HttpError);
  assert.equal(server.requests.length, 2);
});

test("HttpClient reports onRetry delays in whole milliseconds, jitter included", async () => {
  await using server = await startTestServer(failFirst(3, 503));
  const delays: number[] = [];
  const client = new HttpClient(server.url, {
    retryAttempts: 3,
    retryDelay: 3,
    retryJitter: 0.9,
    onRetry: (event) => delays.push(event.delay),
  });
  assert.deepEqual(await client.get("/x"), { seen: 4 });
  assert.equal(delays.length, 3);
  for (const delay of delays) {
    assert.ok(Number.isInteger(delay), `${delay} is not whole`);
  }
});
