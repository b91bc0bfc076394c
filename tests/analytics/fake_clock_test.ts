// Analytics batching driven by the test kit's FakeClock, against a real
// collector on loopback: a provider given the clock sends its batch when the
// flushInterval has passed on that clock (not before), and waits its
// retryDelay on it between attempts, so 30 seconds of batching and a backoff
// pass without real waiting.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type AnalyticsEvent,
  CustomAnalyticsProvider,
  ExternalAnalyticsProvider,
} from "../../analytics/mod.ts";
import { FakeClock } from "@vendor/kit-platform/testing";
import { startFailingFirst } from "../_support/http_server.ts";
import {
  delay,
  receivedEvents,
  startCollector,
  trackEvent,
} from "./_helpers.ts";
import { waitFor } from "../_support/wait_for.ts";

const event = (name: string): AnalyticsEvent => trackEvent(name);

describe("analytics batching with a FakeClock", () => {
  it("a batch leaves when the flushInterval has passed on the clock", async () => {
    await using server = await startCollector();
    const clock = new FakeClock();
    const provider = new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 50,
      flushInterval: 30_000,
      clock,
    });
    const started = performance.now();
    provider.track(event("a"));
    provider.track(event("b"));
    await clock.advance(29_999);
    await delay(50);
    assert.equal(server.requests.length, 0);
    await clock.advance(1);
    await waitFor(() => server.requests.length === 1, "the batch", 5_000);
    assert.deepEqual(receivedEvents(server).map((e) => e.name), ["a", "b"]);
    assert.ok(performance.now() - started < 5_000);
    await provider.dispose({ timeout: 5_000 });
  });

  it("waits the retryDelay on the clock before sending a failed batch again", async () => {
    await using server = await startFailingFirst();
    const clock = new FakeClock();
    const provider = new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 1,
      flushInterval: 0,
      retryDelay: 60_000,
      maxRetryDelay: 60_000,
      clock,
    });
    provider.track(event("a"));
    await waitFor(() => server.requests.length === 1, "first attempt", 5_000);
    await delay(50);
    assert.equal(server.requests.length, 1);
    // The backoff waits between half and all of retryDelay, on a timer set
    // once the failed answer was read: advancing before would move past it.
    await clock.waitForTimers(1, { within: 60_000 });
    await clock.advance(60_000);
    await waitFor(() => server.requests.length === 2, "the retry", 5_000);
    await waitFor(() => provider.deliveredCount === 1, "delivery", 5_000);
    await provider.dispose({ timeout: 5_000 });
  });

  it("the GA4 provider takes the clock too", async () => {
    await using server = await startCollector();
    const clock = new FakeClock();
    const provider = new ExternalAnalyticsProvider({
      trackingId: "G-TEST",
      endpoint: server.url,
      apiSecret: "s3cret",
      flushInterval: 60_000,
      clock,
    });
    provider.track(event("a"));
    await clock.advance(59_999);
    await delay(50);
    assert.equal(server.requests.length, 0);
    await clock.advance(1);
    await waitFor(() => server.requests.length === 1, "the batch", 5_000);
    await provider.dispose({ timeout: 5_000 });
  });

  it("refuses a clock that is not a Clock, naming the option", () => {
    assert.throws(
      () =>
        new CustomAnalyticsProvider({
          endpoint: "http://127.0.0.1:9/collect",
          clock: { now: () => 0 } as never,
        }),
      {
        name: "AnalyticsConfigurationError",
        message:
          "CustomAnalyticsProvider: clock must be a Clock (now, setTimeout, clearTimeout): [object Object]",
      },
    );
  });
});
