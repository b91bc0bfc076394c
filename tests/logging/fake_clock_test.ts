// Remote log batching driven by the test kit's FakeClock, against a real
// collector on loopback: a RemoteLogProvider given the clock sends what it
// buffered once the flushInterval has passed on that clock, and waits its
// retryDelay on it before sending a failed batch again.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  type LogEntry,
  LogLevel,
  RemoteLogProvider,
} from "../../logging/mod.ts";
import { FakeClock } from "@vendor/kit-platform/testing";
import {
  type RecordedRequest,
  startCollector,
  startFailingFirst,
} from "../_support/http_server.ts";
import { delay, waitFor } from "../_support/wait_for.ts";

function entry(message: string): LogEntry {
  return {
    timestamp: new Date(),
    level: LogLevel.Info,
    category: "orders",
    message,
    properties: {},
  };
}

function messages(requests: RecordedRequest[]): string[] {
  return requests.flatMap((request) =>
    (JSON.parse(request.body).entries as { message: string }[]).map((e) =>
      e.message
    )
  );
}

describe("RemoteLogProvider with a FakeClock", () => {
  it("sends the buffered entries once the flushInterval has passed on the clock", async () => {
    await using server = await startCollector();
    const clock = new FakeClock();
    const provider = new RemoteLogProvider({
      endpoint: server.url,
      flushInterval: 60_000,
      clock,
    });
    const started = performance.now();
    await provider.log(entry("placed"));
    await provider.log(entry("paid"));
    await clock.advance(59_999);
    await delay(50);
    assert.equal(server.requests.length, 0);
    await clock.advance(1);
    await waitFor(() => server.requests.length === 1, "the batch", 5_000);
    assert.deepEqual(messages(server.requests), ["placed", "paid"]);
    assert.ok(performance.now() - started < 5_000);
    await provider.dispose({ timeout: 5_000 });
  });

  it("waits the retryDelay on the clock before sending a failed batch again", async () => {
    await using server = await startFailingFirst();
    const clock = new FakeClock();
    const provider = new RemoteLogProvider({
      endpoint: server.url,
      batchSize: 1,
      retryDelay: 60_000,
      maxRetryDelay: 60_000,
      onError: () => {},
      clock,
    });
    await provider.log(entry("placed"));
    await waitFor(() => server.requests.length === 1, "first attempt", 5_000);
    await delay(50);
    assert.equal(server.requests.length, 1);
    // The retry wait is set once the failed answer was read: advancing
    // before would move past it.
    await clock.waitForTimers(1, { within: 60_000 });
    await clock.advance(60_000);
    await waitFor(() => server.requests.length === 2, "the retry", 5_000);
    assert.deepEqual(messages(server.requests), ["placed", "placed"]);
    await provider.dispose({ timeout: 5_000 });
  });

  it("refuses a clock that is not a Clock, naming the option", () => {
    assert.throws(
      () =>
        new RemoteLogProvider({
          endpoint: "http://127.0.0.1:9/logs",
          clock: Date.now as never,
        }),
      {
        name: "LogProviderOptionError",
        message:
          "RemoteLogProvider: option 'clock' must be a Clock (now, setTimeout, clearTimeout) (got a function)",
      },
    );
  });
});
