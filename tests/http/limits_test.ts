// The default limits of HttpClient: a total timeout (a silent server no
// longer costs timeout × attempts + backoff, ~46 s) and maxResponseSize (a
// huge body no longer fills the memory). Real loopback servers throughout.
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { gzipSync } from "node:zlib";
import type { ServerResponse } from "node:http";
import {
  ErrorInterceptor,
  HttpClient,
  HttpError,
  ResponseTooLargeError,
  TimeoutError,
} from "../../http/mod.ts";
import { startTestServer } from "../_support/http_server.ts";
import { waitFor } from "../_support/wait_for.ts";

const MiB = 1024 * 1024;

// Writes `megabytes` MiB of a JSON array of strings in chunks (no
// Content-Length, so chunked), honouring backpressure and stopping when the
// client goes away.
function streamJson(response: ServerResponse, megabytes: number): void {
  response.writeHead(200, { "content-type": "application/json" });
  const item = '"' + "x".repeat(MiB - 3) + '"';
  let sent = 0;
  let closed = false;
  response.on("close", () => {
    closed = true;
  });
  const next = (): void => {
    while (!closed && sent < megabytes) {
      const ok = response.write((sent === 0 ? "[" : ",") + item);
      sent++;
      if (!ok) {
        response.once("drain", next);
        return;
      }
    }
    if (!closed) response.end("]");
  };
  next();
}

test("HttpClient defaults: totalTimeout 30000 ms and maxResponseSize 50 MiB", () => {
  const client = new HttpClient("http://127.0.0.1:1");
  assert.equal(client.options.totalTimeout, 30_000);
  assert.equal(client.options.maxResponseSize, 50 * MiB);
  assert.equal(client.options.timeout, 10_000);
  assert.equal(client.options.retryAttempts, 3);
  assert.ok(Object.isFrozen(client.options));
  // A longer attempt timeout stretches the default total so that three
  // attempts fit (a timed-out attempt is then retried).
  assert.equal(
    new HttpClient("http://127.0.0.1:1", { timeout: 45_000 }).options
      .totalTimeout,
    135_000,
  );
  const off = new HttpClient("http://127.0.0.1:1", {
    totalTimeout: 0,
    maxResponseSize: Infinity,
  });
  assert.equal(off.options.totalTimeout, 0);
  assert.equal(off.options.maxResponseSize, 0);
  assert.throws(
    () => new HttpClient("http://127.0.0.1:1", { maxResponseSize: -1 }),
    {
      name: "RangeError",
      message:
        "Invalid maxResponseSize: -1; expected a whole number of bytes >= 0",
    },
  );
});

test("HttpClient: a call to a silent server ends at totalTimeout, retries and backoff included", async () => {
  await using server = await startTestServer(() => {});
  // Default timeout (10 s), retries (3) and backoff: only the total ends it.
  const client = new HttpClient(server.url, { totalTimeout: 300 });
  const started = Date.now();
  await assert.rejects(client.get("/never"), (error: unknown) => {
    assert.ok(error instanceof TimeoutError);
    assert.equal(error.scope, "total");
    assert.equal(error.message, "Request timeout of 300ms exceeded");
    return true;
  });
  // Far below one attempt timeout: the total ended it, not the attempts.
  assert.ok(Date.now() - started < 9_000);
  assert.equal(server.requests.length, 1);
});

test("HttpClient refuses a 60 MiB chunked body at maxResponseSize without holding it", async () => {
  await using server = await startTestServer((_request, response) =>
    streamJson(response, 60)
  );
  const client = new HttpClient(server.url, {
    retryAttempts: 0,
    timeout: 60_000,
    totalTimeout: 120_000,
  });
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  await assert.rejects(
    client.get("/export?token=s3cr3t"),
    (error: unknown) => {
      assert.ok(error instanceof ResponseTooLargeError);
      assert.ok(error instanceof HttpError);
      assert.equal(error.status, 200);
      assert.equal(error.limit, 50 * MiB);
      assert.equal(error.declared, false);
      assert.ok(error.size > 50 * MiB);
      assert.equal(
        error.message,
        `The response to GET ${server.url}/export?… is larger than ` +
          "maxResponseSize (52428800 bytes): more than 52428800 bytes arrived " +
          "(no Content-Length); raise maxResponseSize (in the HttpClient " +
          "options or for this call; 0 turns the limit off) to accept it",
      );
      assert.ok(!error.message.includes("s3cr3t"));
      return true;
    },
  );
  const grown = (process.memoryUsage().rss - before) / MiB;
  // Reading it whole would cost several bytes of memory per byte of body;
  // the refused body costs at most its 50 MiB plus the server's buffers.
  assert.ok(grown < 160, `RSS grew by ${grown.toFixed(0)} MB`);
});

test("HttpClient refuses a Content-Length above maxResponseSize before reading", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": String(200 * MiB),
    });
    response.write("[1,"); // and never more: reading would hang
  });
  const client = new HttpClient(server.url, { retryAttempts: 0 });
  await assert.rejects(client.get("/big"), (error: unknown) => {
    assert.ok(error instanceof ResponseTooLargeError);
    assert.equal(error.declared, true);
    assert.equal(error.size, 200 * MiB);
    assert.match(
      error.message,
      /larger than maxResponseSize \(52428800 bytes\): its Content-Length is 209715200 bytes; raise maxResponseSize/,
    );
    return true;
  });
  assert.equal(server.requests.length, 1);
});

test("HttpClient counts the decoded bytes of a compressed body", async () => {
  const json = JSON.stringify({ data: "0".repeat(4 * MiB) });
  const packed = gzipSync(new TextEncoder().encode(json));
  assert.ok(packed.length < 64 * 1024);
  await using server = await startTestServer((_request, response) => {
    response.writeHead(200, {
      "content-type": "application/json",
      "content-encoding": "gzip",
      "content-length": String(packed.length),
    });
    response.end(packed);
  });
  const client = new HttpClient(server.url, {
    retryAttempts: 0,
    maxResponseSize: MiB,
  });
  await assert.rejects(client.get("/zip"), (error: unknown) => {
    assert.ok(error instanceof ResponseTooLargeError);
    assert.equal(error.declared, false);
    assert.equal(error.limit, MiB);
    return true;
  });
  // The same body within a larger per-call limit is read as usual.
  const body = await client.get<{ data: string }>("/zip", {
    maxResponseSize: 8 * MiB,
  });
  assert.equal(body.data.length, 4 * MiB);
});

test("HttpClient maxResponseSize per call, 0 turns it off, request() is not limited", async () => {
  const payload = { text: "y".repeat(2_000) };
  await using server = await startTestServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(payload));
  });
  const client = new HttpClient(server.url, { maxResponseSize: 1_000 });
  await assert.rejects(client.get("/x"), ResponseTooLargeError);
  assert.deepEqual(await client.get("/x", { maxResponseSize: 0 }), payload);
  assert.deepEqual(await client.get("/x", { maxResponseSize: 4_000 }), payload);
  const response = await client.request("GET", "/x");
  assert.deepEqual(await response.json(), payload);
});

test("HttpClient limits error bodies too, also the one ErrorInterceptor reads", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(500, { "content-type": "application/json" });
    response.write('{"message":"');
    response.end("z".repeat(10_000) + '"}');
  });
  const plain = new HttpClient(server.url, {
    retryAttempts: 0,
    maxResponseSize: 1_000,
  });
  await assert.rejects(plain.get("/fail"), (error: unknown) => {
    assert.ok(error instanceof ResponseTooLargeError);
    assert.equal(error.status, 500);
    return true;
  });
  const intercepted = new HttpClient(server.url, {
    retryAttempts: 0,
    maxResponseSize: 1_000,
  }).addInterceptor(new ErrorInterceptor());
  await assert.rejects(
    intercepted.request("DELETE", "/fail"),
    (error: unknown) => {
      assert.ok(error instanceof ResponseTooLargeError);
      assert.equal(error.status, 500);
      assert.equal(error.method, "DELETE");
      assert.equal(typeof error.requestId, "string");
      return true;
    },
  );
  // Within the limit the usual HttpError comes with its message.
  await assert.rejects(
    intercepted.get("/fail", { maxResponseSize: 0 }),
    (error: unknown) =>
      error instanceof HttpError && !(error instanceof ResponseTooLargeError) &&
      error.message === "z".repeat(10_000),
  );
});

test("HttpError.fromResponse reads at most maxBodySize of an error body and cancels the rest", async () => {
  let closed = false;
  await using server = await startTestServer((_request, response) => {
    response.on("close", () => {
      closed = true;
    });
    // An error body that never ends: only a bounded read can finish.
    response.writeHead(502, "Bad Gateway", {
      "content-type": "application/json",
    });
    const chunk = "x".repeat(64 * 1024);
    const next = (): void => {
      while (!closed && response.write(chunk));
      if (!closed) response.once("drain", next);
    };
    next();
  });
  const response = await fetch(server.url);
  const error = await HttpError.fromResponse(response);
  assert.equal(error.status, 502);
  // The start of a body is not the body: no half a document as `body`.
  assert.equal(error.body, undefined);
  assert.equal(error.message, "Bad Gateway");
  await waitFor(() => closed, "the server to see the body cancelled");

  const small = await HttpError.fromResponse(
    new Response('{"message":"' + "m".repeat(2_000) + '"}', { status: 500 }),
    {},
    { maxBodySize: 1_000 },
  );
  assert.equal(small.body, undefined);
  assert.equal(small.message, "Internal Server Error");
  const fits = await HttpError.fromResponse(
    new Response('{"message":"nope"}', { status: 409 }),
    {},
    { maxBodySize: 1_000 },
  );
  assert.deepEqual(fits.body, { message: "nope" });
  assert.equal(fits.message, "nope");
});

test("HttpError.fromResponse stops waiting for a silent body at its signal", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(503, "Service Unavailable");
    response.write("{"); // then nothing
  });
  const response = await fetch(server.url);
  const error = await HttpError.fromResponse(response, {}, {
    signal: AbortSignal.timeout(200),
  });
  assert.equal(error.status, 503);
  assert.equal(error.body, undefined);
  assert.equal(error.message, "Service Unavailable");
});
