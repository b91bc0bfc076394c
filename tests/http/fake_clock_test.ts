// HttpClient's waits between attempts driven by the test kit's FakeClock,
// against a real server on loopback: given the clock, the client waits its
// retryDelay (and a Retry-After) on that clock, so a one-minute backoff
// passes without real waiting, and the total timeout is measured on it too.
// The client sets its wait only once it has read the answer, after the
// server saw the request: each test waits for that timer
// (clock.waitForTimers) before it advances, or on a busy machine the clock
// could move past nothing and the call wait for ever.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  HttpClient,
  type HttpRetryEvent,
  TimeoutError,
} from "../../http/mod.ts";
import { FakeClock } from "@vendor/kit-platform/testing";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import { delay, waitFor } from "../_support/wait_for.ts";

// Each test is a few real requests on loopback: far less than this even on
// a busy machine, and a wait that never ends fails here, with its name.
const BOUND = { timeout: 60_000 };

describe("HttpClient with a FakeClock", () => {
  it(
    "waits retryDelay on the clock between attempts, with no real wait",
    BOUND,
    async () => {
      await using server = await startTestServer((_request, response) =>
        sendJson(response, server.requests.length === 1 ? 503 : 200, {
          attempt: server.requests.length,
        })
      );
      const clock = new FakeClock();
      const retries: HttpRetryEvent[] = [];
      const client = new HttpClient(server.url, {
        retryDelay: 60_000,
        maxRetryDelay: 60_000,
        retryJitter: 0,
        totalTimeout: 300_000,
        onRetry: (event) => retries.push(event),
        clock,
      });
      const started = performance.now();
      const call = client.get<{ attempt: number }>("/orders");
      await waitFor(() => retries.length === 1, "the retry event", 5_000);
      assert.equal(retries[0].delay, 60_000);
      await clock.waitForTimers(1, { within: 60_000 });
      await delay(50);
      assert.equal(server.requests.length, 1);
      await clock.advance(59_999);
      await delay(20);
      assert.equal(server.requests.length, 1);
      await clock.advance(1);
      assert.deepEqual(await call, { attempt: 2 });
      assert.ok(performance.now() - started < 5_000);
    },
  );

  it(
    "waits a Retry-After on the clock, even when the 429 is read well after the server saw the request",
    BOUND,
    async () => {
      await using server = await startTestServer(async (_request, response) => {
        if (server.requests.length === 1) {
          // What a busy machine does: the answer comes a while after the
          // request was seen.
          await delay(100);
          sendJson(response, 429, {}, { "retry-after": "45" });
        } else sendJson(response, 200, { ok: true });
      });
      const clock = new FakeClock();
      const client = new HttpClient(server.url, {
        totalTimeout: 300_000,
        clock,
      });
      const started = performance.now();
      const call = client.get("/orders");
      await waitFor(
        () => server.requests.length === 1,
        "the first attempt",
        5_000,
      );
      // The client sets its 45 s wait once it has read the 429; the total
      // timeout it keeps on the same clock is further off.
      await clock.waitForTimers(1, { within: 45_000 });
      await clock.advance(44_999);
      await delay(20);
      assert.equal(server.requests.length, 1);
      await clock.advance(1);
      assert.deepEqual(await call, { ok: true });
      assert.ok(performance.now() - started < 5_000);
    },
  );

  it(
    "the total timeout is measured on the clock: a wait that would end past it fails the call",
    BOUND,
    async () => {
      await using server = await startCollector(503, {});
      const clock = new FakeClock();
      const client = new HttpClient(server.url, {
        retryAttempts: 5,
        retryDelay: 40_000,
        maxRetryDelay: 40_000,
        retryJitter: 0,
        totalTimeout: 100_000,
        clock,
      });
      const outcome = assert.rejects(
        client.get("/orders"),
        (error: unknown) => {
          assert.ok(error instanceof TimeoutError, String(error));
          return true;
        },
      );
      await waitFor(
        () => server.requests.length === 1,
        "the first attempt",
        5_000,
      );
      await clock.waitForTimers(1, { within: 40_000 });
      await clock.advance(40_000);
      await waitFor(
        () => server.requests.length === 2,
        "the second attempt",
        5_000,
      );
      await clock.waitForTimers(1, { within: 40_000 });
      await clock.advance(40_000);
      await waitFor(
        () => server.requests.length === 3,
        "the third attempt",
        5_000,
      );
      // 80 s have passed: a third wait of 40 s would end past the 100 s.
      await outcome;
      assert.equal(server.requests.length, 3);
    },
  );

  it("refuses a clock that is not a Clock, naming the option", () => {
    assert.throws(
      () => new HttpClient("http://127.0.0.1:9", { clock: {} as never }),
      {
        name: "TypeError",
        message:
          "Invalid clock: [object Object]; expected a Clock (now, setTimeout, clearTimeout)",
      },
    );
  });
});
