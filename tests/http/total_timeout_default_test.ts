// The advice for a client timeout, "raise `timeout` or use `retryAttempts` and
// `retryDelay`", must hold without a `totalTimeout` of one's own: the default
// overall limit grows with `timeout`, so that a timed-out attempt is retried.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  HttpClient,
  type HttpRetryEvent,
  TimeoutError,
} from "../../http/mod.ts";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";

// Longer than a test runner's default limit (Bun's is 5 s).
const HALF_A_MINUTE_AND_MORE = { timeout: 90_000 };

test(
  "HttpClient retries a timed-out attempt with timeout 30000, retryAttempts 3, retryDelay 1000 and no totalTimeout",
  HALF_A_MINUTE_AND_MORE,
  async () => {
    // The first attempt hangs until its 30 s timeout; the second is answered.
    // This takes half a minute of real time: the attempt's timeout runs on real
    // time, and the overall limit must run on the same time for the test to
    // show anything (a FakeClock would stand still while the attempt waits).
    await using server = await startTestServer((_request, response) => {
      if (server.requests.length > 1) {
        sendJson(response, 200, { attempt: server.requests.length });
      }
    });
    const retries: HttpRetryEvent[] = [];
    const client = new HttpClient(server.url, {
      timeout: 30_000,
      retryAttempts: 3,
      retryDelay: 1_000,
      onRetry: (event) => retries.push(event),
    });
    const started = performance.now();
    assert.deepEqual(await client.get("/report"), { attempt: 2 });
    assert.ok(performance.now() - started >= 29_000);
    assert.equal(server.requests.length, 2);
    assert.equal(retries.length, 1);
    const [retry] = retries;
    assert.equal(retry.retry, 1);
    assert.ok(retry.delay <= 1_000);
    assert.ok(retry.error instanceof TimeoutError);
    assert.equal(retry.error.scope, "attempt");
    assert.equal(retry.error.message, "Request timeout of 30000ms exceeded");
  },
);

test("HttpClient's default totalTimeout: 30000, or timeout times the attempts (up to three) when longer", () => {
  const of = (options: ConstructorParameters<typeof HttpClient>[1]) =>
    new HttpClient("http://127.0.0.1:1", options).options.totalTimeout;
  // The troubleshooting example: three attempts of 30 s fit.
  assert.equal(
    of({ timeout: 30_000, retryAttempts: 3, retryDelay: 1_000 }),
    90_000,
  );
  assert.equal(of({ timeout: 45_000 }), 135_000);
  // Fewer attempts than three: each fits.
  assert.equal(of({ timeout: 30_000, retryAttempts: 1 }), 60_000);
  assert.equal(of({ timeout: 45_000, retryAttempts: 0 }), 45_000);
  // Short attempts keep the 30 s bound of a call to a silent server.
  assert.equal(of({}), 30_000);
  assert.equal(of({ timeout: 10_000, retryAttempts: 10 }), 30_000);
  assert.equal(of({ timeout: 0 }), 30_000);
  // Never past the longest timer (which would fire at once).
  assert.equal(of({ timeout: 2_147_483_647 }), 2_147_483_647);
  // Given, it is kept as it is.
  assert.equal(of({ timeout: 30_000, totalTimeout: 30_000 }), 30_000);
  assert.equal(of({ timeout: 30_000, totalTimeout: 0 }), 0);
});

test("HttpClient: a call's own timeout and retryAttempts set its default totalTimeout", async () => {
  // The default total of this call is three of its 20 s attempts (60 s); a
  // backoff of 70 s after the first 503 would pass it, so the call fails at
  // once with the total's error, which names that limit.
  await using server = await startCollector(503, {});
  const client = new HttpClient(server.url, {
    retryDelay: 70_000,
    maxRetryDelay: 70_000,
    retryJitter: 0,
  });
  await assert.rejects(
    client.get("/x", { timeout: 20_000, retryAttempts: 2 }),
    (error: unknown) => {
      assert.ok(error instanceof TimeoutError);
      assert.equal(error.scope, "total");
      assert.equal(error.message, "Request timeout of 60000ms exceeded");
      return true;
    },
  );
  assert.equal(server.requests.length, 1);
});
