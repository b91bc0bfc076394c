// flush(options) and dispose(options) end at their signal or timeout while
// the endpoint refuses connections or never answers (what was not delivered
// is dropped, counted exactly and reported once), and the circuit breaker
// keeps per-batch retry schedules from stacking up (attempts counted by a
// real loopback server). Elapsed-time bounds are generous on purpose: they
// tell "bounded" from "the full retry schedule" (tens of seconds).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import {
  AnalyticsDeliveryAbortedError,
  AnalyticsDeliveryError,
  type AnalyticsEvent,
  type AnalyticsFlushResult,
  AnalyticsManager,
  AnalyticsProviderError,
  CustomAnalyticsProvider,
  ExternalAnalyticsProvider,
  type IAnalyticsProvider,
} from "../../analytics/mod.ts";
import type { DisposeOptions } from "../../core/mod.ts";
import {
  errorSink,
  gate,
  refusingEndpoint,
  startHangingServer,
  trackEvent,
} from "./_helpers.ts";
import { waitFor } from "../_support/wait_for.ts";

// A dispose that honours its deadline ends well within this; the retry
// schedule it replaces (default maxRetries 5, retryDelay 1000) takes 15-31 s
// per batch.
const BOUND_MS = 5_000;

test("dispose({ timeout }) ends at the deadline while the endpoint refuses connections: 500 events dropped, reported once", async () => {
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: await refusingEndpoint(),
    apiKey: "key-1",
    onError: sink.onError,
  });
  const analytics = new AnalyticsManager().addProvider(provider);
  for (let i = 0; i < 500; i++) analytics.track(`e${i}`);
  const started = Date.now();
  await analytics.dispose({ timeout: 300 });
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 250, `waited until the deadline (${elapsed} ms)`);
  assert.ok(elapsed < BOUND_MS, `bounded by the deadline (${elapsed} ms)`);
  assert.equal(provider.droppedCount, 500);
  assert.equal(provider.deliveredCount, 0);
  assert.equal(provider.pendingCount, 0);
  assert.equal(sink.errors.length, 1, sink.errors.map(String).join("\n"));
  const [error] = sink.errors;
  assert.ok(error instanceof AnalyticsDeliveryAbortedError);
  assert.equal(error.events, 500);
  assert.equal(error.provider, "CustomAnalyticsProvider");
  assert.match(
    error.message,
    /^Analytics delivery to http:\/\/127\.0\.0\.1:\d+\/v1\/events stopped before the end \(Timed out after 300 ms\); 500 event\(s\) dropped$/,
  );
});

test("flush({ signal }) aborts a request the server never answers and reports the exact counts", async () => {
  // The first request is answered, the others hang.
  const server = await startTestServer((request, response) => {
    if (server.requests.indexOf(request) === 0) sendJson(response, 200, {});
  });
  try {
    const sink = errorSink();
    const provider = new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 50,
      flushInterval: 0,
      maxConcurrentRequests: 1,
      onError: sink.onError,
    });
    for (let i = 0; i < 120; i++) {
      provider.track(event(`e${i}`));
    }
    await waitFor(() => server.requests.length === 2, "second batch", 5_000);
    const controller = new AbortController();
    const started = Date.now();
    const flushing = provider.flush({ signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const result = await flushing;
    const elapsed = Date.now() - started;
    assert.ok(elapsed < BOUND_MS, `bounded by the signal (${elapsed} ms)`);
    // The first batch was delivered before the call: not counted in it.
    assert.deepEqual(result, { delivered: 0, dropped: 70 });
    assert.equal(provider.deliveredCount, 50);
    assert.equal(provider.droppedCount, 70);
    assert.equal(sink.errors.length, 1);
    assert.ok(sink.errors[0] instanceof AnalyticsDeliveryAbortedError);
    assert.equal((sink.errors[0] as AnalyticsDeliveryAbortedError).events, 70);
    // Nothing more is tried after the signal: no third request.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(server.requests.length, 2);
    // The provider keeps working for later events.
    server.setHandler((_request, response) => sendJson(response, 200, {}));
    provider.track(event("later"));
    assert.deepEqual(await provider.flush(), { delivered: 1, dropped: 0 });
    await provider.dispose();
  } finally {
    await server.close();
  }
});

test("dispose({ timeout }) of ExternalAnalyticsProvider ends at the deadline against a server that never answers", async () => {
  await using server = await startHangingServer();
  const sink = errorSink();
  const provider = new ExternalAnalyticsProvider({
    trackingId: "G-TEST",
    apiSecret: "secret-1",
    endpoint: `${server.url}/mp/collect`,
    onError: sink.onError,
  });
  for (let i = 0; i < 60; i++) provider.track(event(`e${i}`));
  const started = Date.now();
  await provider.dispose({ timeout: 200 });
  const elapsed = Date.now() - started;
  assert.ok(elapsed < BOUND_MS, `bounded by the deadline (${elapsed} ms)`);
  assert.equal(provider.droppedCount, 60);
  assert.equal(sink.errors.length, 1);
  assert.equal((sink.errors[0] as AnalyticsDeliveryAbortedError).events, 60);
  assert.doesNotMatch(sink.errors[0].message, /secret-1/);
});

test("flush() with an already aborted signal sends nothing and drops what it waited for", async () => {
  await using server = await startCollector();
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    onError: sink.onError,
  });
  for (let i = 0; i < 5; i++) provider.track(event(`e${i}`));
  const result = await provider.flush({ signal: AbortSignal.abort() });
  assert.deepEqual(result, { delivered: 0, dropped: 5 });
  assert.equal(server.requests.length, 0);
  assert.equal(sink.errors.length, 1);
  await provider.dispose();
});

test("flush({ timeout }) rejects a negative timeout", async () => {
  const provider = new CustomAnalyticsProvider({
    endpoint: "http://127.0.0.1:9/",
  });
  provider.track(event("a"));
  await assert.rejects(provider.flush({ timeout: -1 }), RangeError);
  await provider.dispose({ signal: AbortSignal.abort() });
  assert.equal(provider.droppedCount, 1);
});

test("AnalyticsManager passes one signal to every provider and stops waiting for one that ignores it", async () => {
  const seen: (DisposeOptions | undefined)[] = [];
  const stuck = gate();
  const ignoring: IAnalyticsProvider = {
    name: "ignoring",
    track() {},
    page() {},
    identify() {},
    flush(options?: DisposeOptions): Promise<AnalyticsFlushResult> {
      seen.push(options);
      return stuck.promise.then(() => ({ delivered: 0, dropped: 0 }));
    },
    dispose(options?: DisposeOptions): Promise<void> {
      seen.push(options);
      return stuck.promise;
    },
  };
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: await refusingEndpoint(),
    onError: sink.onError,
  });
  const analytics = new AnalyticsManager({ onError: sink.onError })
    .addProvider(provider)
    .addProvider(ignoring);
  for (let i = 0; i < 10; i++) analytics.track(`e${i}`);
  const started = Date.now();
  const result = await analytics.flush({ timeout: 200 });
  assert.ok(Date.now() - started < BOUND_MS);
  assert.deepEqual(result, { delivered: 0, dropped: 10 });
  assert.equal(seen.length, 1);
  assert.ok(seen[0]?.signal instanceof AbortSignal);
  assert.equal(seen[0]?.signal?.aborted, true);
  const stopped = sink.errors.filter((error) =>
    error instanceof AnalyticsProviderError
  );
  assert.equal(stopped.length, 1);
  assert.match(
    stopped[0].message,
    /^Analytics provider ignoring failed in flush: Timed out after 200 ms$/,
  );
  assert.equal(
    sink.errors.filter((error) =>
      error instanceof AnalyticsDeliveryAbortedError
    ).length,
    1,
  );
  const disposing = Date.now();
  await analytics.dispose({ timeout: 100 });
  assert.ok(Date.now() - disposing < BOUND_MS);
  assert.equal(seen.length, 2);
  stuck.open();
});

test("AnalyticsManager.flush() without options still waits for every provider", async () => {
  const slow = gate();
  let finished = false;
  const provider: IAnalyticsProvider = {
    track() {},
    page() {},
    identify() {},
    async flush(): Promise<AnalyticsFlushResult> {
      await slow.promise;
      finished = true;
      return { delivered: 3, dropped: 0 };
    },
    dispose: () => Promise.resolve(),
  };
  const analytics = new AnalyticsManager().addProvider(provider);
  const flushing = analytics.flush();
  setTimeout(slow.open, 100);
  assert.deepEqual(await flushing, { delivered: 3, dropped: 0 });
  assert.equal(finished, true);
});

test("circuit breaker: with 5 batches and a dead endpoint only the first runs its retry schedule", async () => {
  await using server = await startCollector(503, { error: "down" });
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    batchSize: 10,
    flushInterval: 0,
    maxRetries: 3,
    // The lead's retries take at least 3 × 250 ms: time enough for the
    // batch in flight beside it to fail too, even on a busy machine.
    retryDelay: 500,
    maxRetryDelay: 500,
    maxConcurrentRequests: 2,
    onError: sink.onError,
  });
  for (let i = 0; i < 50; i++) provider.track(event(`e${i}`));
  const result = await provider.flush();
  assert.deepEqual(result, { delivered: 0, dropped: 50 });
  // The lead: 1 + 3 retries. The batch that was in flight beside it: one
  // attempt then back to the queue. Then every batch (that one included)
  // is a single probe: 4. Without the breaker: 5 × 4 = 20.
  assert.equal(server.requests.length, 4 + 1 + 4);
  const delivery = sink.errors as AnalyticsDeliveryError[];
  assert.equal(delivery.length, 5);
  assert.ok(delivery.every((error) => error instanceof AnalyticsDeliveryError));
  assert.deepEqual(delivery.map((error) => error.attempts), [4, 1, 1, 1, 1]);
  assert.equal(
    delivery.filter((error) => /not retried/.test(error.message)).length,
    4,
  );
  // The episode is over: a later batch gets its full schedule again.
  provider.track(event("later"));
  await provider.flush();
  assert.equal(server.requests.length, 9 + 4);
  await provider.dispose();
});

test("circuit breaker: the first probe that gets through closes it and the rest is delivered", async () => {
  let answered = 0;
  await using server = await startTestServer((_request, response) => {
    answered++;
    if (answered <= 3) sendJson(response, 503, {});
    else sendJson(response, 200, {});
  });
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    batchSize: 10,
    flushInterval: 0,
    maxRetries: 2,
    retryDelay: 20,
    maxRetryDelay: 20,
    maxConcurrentRequests: 1,
    onError: sink.onError,
  });
  for (let i = 0; i < 40; i++) provider.track(event(`e${i}`));
  const result = await provider.flush();
  // Batch 1: 3 attempts (503), dropped. Batches 2-4: delivered at once.
  assert.deepEqual(result, { delivered: 30, dropped: 10 });
  assert.equal(server.requests.length, 3 + 3);
  assert.equal(sink.errors.length, 1);
  assert.equal(provider.checkHealth().status, "degraded"); // 10 dropped
  assert.equal(provider.checkHealth().status, "healthy");
  await provider.dispose();
});

const event = (name: string): AnalyticsEvent => trackEvent(name);
