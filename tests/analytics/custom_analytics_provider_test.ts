import { test } from "node:test";
import assert from "node:assert/strict";
import { sendJson, startTestServer } from "../_support/http_server.ts";
import {
  AnalyticsConfigurationError,
  AnalyticsDeliveryError,
  AnalyticsManager,
  AnalyticsQueueFullError,
  CustomAnalyticsProvider,
  ExternalAnalyticsProvider,
} from "../../analytics/mod.ts";
import { ConfigurationManager, type IConfiguration } from "../../config/mod.ts";
import {
  delay,
  errorSink,
  eventsOf,
  gate,
  isSettled,
  receivedEvents,
  startCollector,
  trackEvent,
} from "./_helpers.ts";
import { waitFor } from "../_support/wait_for.ts";
import { withVariables } from "../_support/variables.ts";

function managerWith(provider: CustomAnalyticsProvider): AnalyticsManager {
  return new AnalyticsManager({ anonymousId: "anon-1" }).addProvider(provider);
}

test("CustomAnalyticsProvider POSTs { events } with X-API-Key and the normalized event fields", async () => {
  await using server = await startCollector();
  const analytics = managerWith(
    new CustomAnalyticsProvider({
      endpoint: `${server.url}/v1/events`,
      apiKey: "key-123",
      batchSize: 10,
      flushInterval: 60_000,
    }),
  );
  analytics.identify("user-7", { plan: "pro" });
  analytics.track("signed_up", { source: "ad" });
  analytics.page("Pricing", { url: "https://example.com/pricing" });
  const result = await analytics.flush();
  assert.deepEqual(result, { delivered: 3, dropped: 0 });
  assert.equal(server.requests.length, 1);
  const [request] = server.requests;
  assert.equal(request.method, "POST");
  assert.equal(request.url, "/v1/events");
  assert.equal(request.headers["x-api-key"], "key-123");
  assert.match(String(request.headers["content-type"]), /application\/json/);
  const body = JSON.parse(request.body);
  assert.deepEqual(Object.keys(body), ["events"]);
  const [identify, track, page] = body.events;
  assert.equal(identify.type, "identify");
  assert.equal(identify.userId, "user-7");
  assert.deepEqual(identify.properties, { plan: "pro" });
  assert.equal(track.type, "track");
  assert.equal(track.name, "signed_up");
  assert.deepEqual(track.properties, { source: "ad" });
  assert.equal(track.anonymousId, "anon-1");
  assert.equal(track.userId, "user-7");
  assert.equal(track.sampleRate, 1);
  assert.equal(typeof track.timestamp, "number");
  assert.match(track.messageId, /^[0-9a-f-]{36}$/);
  assert.equal(page.type, "page");
  assert.equal(page.name, "Pricing");
  await analytics.dispose();
});

test("CustomAnalyticsProvider sends a batch as soon as batchSize events are waiting", async () => {
  await using server = await startCollector();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    batchSize: 3,
    flushInterval: 60_000,
  });
  const analytics = managerWith(provider);
  for (let i = 0; i < 7; i++) analytics.track(`e${i}`);
  await waitFor(() => server.requests.length === 2, "two batches", 5_000);
  await delay(100);
  assert.equal(server.requests.length, 2, "the 7th event waits for more");
  assert.deepEqual(
    server.requests.map((request) => eventsOf(request).map((e) => e.name)),
    [["e0", "e1", "e2"], ["e3", "e4", "e5"]],
  );
  assert.equal(provider.pendingCount, 1);
  await analytics.dispose();
  assert.deepEqual(eventsOf(server.requests[2]).map((e) => e.name), ["e6"]);
});

test("CustomAnalyticsProvider sends a partial batch after flushInterval", async () => {
  await using server = await startCollector();
  const analytics = managerWith(
    new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 50,
      flushInterval: 100,
    }),
  );
  const started = Date.now();
  analytics.track("a");
  analytics.track("b");
  await waitFor(() => server.requests.length === 1, "interval batch", 5_000);
  assert.ok(Date.now() - started >= 90, "not before the interval");
  assert.deepEqual(eventsOf(server.requests[0]).map((e) => e.name), ["a", "b"]);
  // The timer re-arms for later events.
  analytics.track("c");
  await waitFor(() => server.requests.length === 2, "second interval", 5_000);
  assert.deepEqual(eventsOf(server.requests[1]).map((e) => e.name), ["c"]);
  await analytics.dispose();
});

test("CustomAnalyticsProvider retries a batch after a 500 and delivers it once the server recovers", async () => {
  let calls = 0;
  await using server = await startTestServer((_request, response) => {
    calls++;
    if (calls === 1) sendJson(response, 500, { message: "boom" });
    else sendJson(response, 200, {});
  });
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    batchSize: 10,
    flushInterval: 0,
    retryDelay: 20,
    onError: sink.onError,
  });
  const analytics = managerWith(provider);
  analytics.track("a");
  analytics.track("b");
  assert.deepEqual(await analytics.flush(), { delivered: 2, dropped: 0 });
  assert.equal(server.requests.length, 2);
  assert.equal(server.requests[0].body, server.requests[1].body, "same batch");
  assert.deepEqual(sink.errors, []);
  assert.equal(provider.deliveredCount, 2);
  await analytics.dispose();
});

test("CustomAnalyticsProvider retries after a dropped connection", async () => {
  let calls = 0;
  await using server = await startTestServer((_request, response, raw) => {
    calls++;
    if (calls === 1) raw.socket.destroy();
    else sendJson(response, 200, {});
  });
  const sink = errorSink();
  const analytics = managerWith(
    new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 10,
      flushInterval: 0,
      retryDelay: 20,
      onError: sink.onError,
    }),
  );
  analytics.track("survives");
  assert.deepEqual(await analytics.flush(), { delivered: 1, dropped: 0 });
  assert.equal(server.requests.length, 2);
  assert.deepEqual(eventsOf(server.requests[1]).map((e) => e.name), [
    "survives",
  ]);
  assert.deepEqual(sink.errors, []);
  await analytics.dispose();
});

test("CustomAnalyticsProvider never retries a 401 and reports the dropped batch", async () => {
  await using server = await startCollector(401, { message: "bad key" });
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: `${server.url}/collect`,
    apiKey: "wrong",
    batchSize: 10,
    flushInterval: 0,
    retryDelay: 1,
    onError: sink.onError,
  });
  const analytics = managerWith(provider);
  analytics.track("a");
  analytics.track("b");
  assert.deepEqual(await analytics.flush(), { delivered: 0, dropped: 2 });
  await delay(50);
  assert.equal(server.requests.length, 1, "exactly one attempt");
  assert.equal(provider.droppedCount, 2);
  assert.equal(sink.errors.length, 1);
  const error = sink.errors[0];
  assert.ok(error instanceof AnalyticsDeliveryError);
  assert.equal(error.status, 401);
  assert.equal(error.attempts, 1);
  assert.equal(error.events, 2);
  assert.match(
    error.message,
    /^Analytics delivery to http:\/\/127\.0\.0\.1:\d+\/collect failed after 1 attempt\(s\): HTTP 401 Unauthorized: \{"message":"bad key"\}; 2 event\(s\) dropped$/,
  );
  await analytics.dispose();
});

test("CustomAnalyticsProvider waits as long as Retry-After says on a 429", async () => {
  const times: number[] = [];
  await using server = await startTestServer((_request, response) => {
    times.push(Date.now());
    if (times.length === 1) {
      sendJson(response, 429, {}, { "retry-after": "1" });
    } else sendJson(response, 200, {});
  });
  const analytics = managerWith(
    new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 10,
      flushInterval: 0,
      retryDelay: 1, // the backoff alone would retry almost at once
    }),
  );
  analytics.track("limited");
  assert.deepEqual(await analytics.flush(), { delivered: 1, dropped: 0 });
  assert.equal(times.length, 2);
  assert.ok(
    times[1] - times[0] >= 950,
    `retried after ${times[1] - times[0]} ms, Retry-After asked for 1000`,
  );
  await analytics.dispose();
});

test("CustomAnalyticsProvider drops a batch after maxRetries failed retries of a 503", async () => {
  await using server = await startCollector(503, {});
  const sink = errorSink();
  const analytics = managerWith(
    new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 10,
      flushInterval: 0,
      maxRetries: 2,
      retryDelay: 5,
      onError: sink.onError,
    }),
  );
  analytics.track("doomed");
  assert.deepEqual(await analytics.flush(), { delivered: 0, dropped: 1 });
  assert.equal(server.requests.length, 3, "1 attempt + 2 retries");
  assert.equal((sink.errors[0] as AnalyticsDeliveryError).attempts, 3);
  await analytics.dispose();
});

test("CustomAnalyticsProvider.flush() waits for in-flight requests and counts only events queued before it", async () => {
  const release = gate();
  let calls = 0;
  await using server = await startTestServer(async (_request, response) => {
    calls++;
    if (calls === 1) await release.promise;
    sendJson(response, 200, {});
  });
  const analytics = managerWith(
    new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 2,
      flushInterval: 0,
      maxConcurrentRequests: 1,
    }),
  );
  analytics.track("e1");
  analytics.track("e2"); // batch 1 leaves and hangs on the server
  await waitFor(() => server.requests.length === 1, "first request", 5_000);
  analytics.track("e3");
  const flushing = analytics.flush();
  analytics.track("e4"); // after the flush call: not counted by it
  await delay(100);
  assert.equal(await isSettled(flushing), false, "still waiting for batch 1");
  release.open();
  assert.deepEqual(await flushing, { delivered: 3, dropped: 0 });
  const names = receivedEvents(server).map((e) => e.name);
  for (const name of ["e1", "e2", "e3"]) assert.ok(names.includes(name));
  await analytics.dispose();
  assert.deepEqual(receivedEvents(server).map((e) => e.name).sort(), [
    "e1",
    "e2",
    "e3",
    "e4",
  ]);
});

test("CustomAnalyticsProvider.dispose() delivers the tail, then drops later events", async () => {
  await using server = await startCollector();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    batchSize: 50,
    flushInterval: 60_000,
  });
  for (let i = 0; i < 7; i++) {
    provider.track({
      type: "track",
      name: `tail${i}`,
      properties: {},
      timestamp: Date.now(),
      anonymousId: "a",
      sampleRate: 1,
      messageId: String(i),
    });
  }
  assert.equal(server.requests.length, 0);
  await provider.dispose();
  assert.equal(server.requests.length, 1);
  assert.equal(eventsOf(server.requests[0]).length, 7);
  provider.track({
    type: "track",
    name: "late",
    properties: {},
    timestamp: Date.now(),
    anonymousId: "a",
    sampleRate: 1,
    messageId: "late",
  });
  assert.equal(provider.droppedCount, 1);
  await delay(50);
  assert.equal(server.requests.length, 1);
});

test("CustomAnalyticsProvider drops and counts events beyond maxQueueSize, reporting the overflow once", async () => {
  await using server = await startCollector();
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    batchSize: 100,
    flushInterval: 0,
    maxQueueSize: 5,
    onError: sink.onError,
  });
  const analytics = managerWith(provider);
  for (let i = 0; i < 8; i++) analytics.track(`e${i}`);
  assert.equal(provider.droppedCount, 3);
  assert.equal(sink.errors.length, 1);
  assert.ok(sink.errors[0] instanceof AnalyticsQueueFullError);
  assert.equal(
    sink.errors[0].message,
    "Analytics queue of CustomAnalyticsProvider is full (5 events); new events are dropped",
  );
  assert.deepEqual(await analytics.flush(), { delivered: 5, dropped: 0 });
  assert.deepEqual(receivedEvents(server).map((e) => e.name), [
    "e0",
    "e1",
    "e2",
    "e3",
    "e4",
  ]);
  await analytics.dispose();
});

test("CustomAnalyticsProvider drops only the event that cannot be serialized", async () => {
  await using server = await startCollector();
  const sink = errorSink();
  const analytics = managerWith(
    new CustomAnalyticsProvider({
      endpoint: server.url,
      batchSize: 10,
      flushInterval: 0,
      onError: sink.onError,
    }),
  );
  analytics.track("fine");
  analytics.track("bad", { big: 1n });
  assert.deepEqual(await analytics.flush(), { delivered: 1, dropped: 1 });
  assert.deepEqual(receivedEvents(server).map((e) => e.name), ["fine"]);
  assert.match(
    sink.errors[0].message,
    /^Analytics provider CustomAnalyticsProvider failed in track: /,
  );
  await analytics.dispose();
});

test("CustomAnalyticsProvider quotes a refused endpoint with its password masked", () => {
  assert.throws(
    () =>
      new CustomAnalyticsProvider({
        endpoint: "ftp://collector:hunter2@example.com/x",
      }),
    new AnalyticsConfigurationError(
      'CustomAnalyticsProvider: endpoint must be an http or https URL: "ftp://collector:***@example.com/x"',
    ),
  );
  assert.throws(
    () =>
      new CustomAnalyticsProvider({
        endpoint: "http://collector:hunter2@[bad/x",
      }),
    (error: unknown) =>
      error instanceof AnalyticsConfigurationError &&
      error.message.startsWith(
        "CustomAnalyticsProvider: endpoint is not a valid URL: ",
      ) && !error.message.includes("hunter2"),
  );
});

test("CustomAnalyticsProvider rejects invalid options with clear errors", () => {
  assert.throws(
    () => new CustomAnalyticsProvider({ endpoint: "" }),
    new AnalyticsConfigurationError(
      "CustomAnalyticsProvider: endpoint is required",
    ),
  );
  assert.throws(
    () => new CustomAnalyticsProvider({ endpoint: "ftp://example.com/x" }),
    new AnalyticsConfigurationError(
      'CustomAnalyticsProvider: endpoint must be an http or https URL: "ftp://example.com/x"',
    ),
  );
  assert.throws(
    () =>
      new CustomAnalyticsProvider({
        endpoint: "http://127.0.0.1/",
        batchSize: 0,
      }),
    new AnalyticsConfigurationError(
      "CustomAnalyticsProvider: batchSize must be an integer of at least 1: 0",
    ),
  );
  assert.throws(
    () =>
      new CustomAnalyticsProvider({
        endpoint: "http://127.0.0.1/",
        flushInterval: -1,
      }),
    /flushInterval must be a number of at least 0: -1/,
  );
});

function configOf(values: Record<string, unknown>): IConfiguration {
  return {
    hasValue: (key) => key in values,
    getValue<T>(key: string, defaultValue?: T): T {
      if (key in values) return values[key] as T;
      if (arguments.length > 1) return defaultValue as T;
      throw new Error(`Configuration value not found: ${key}`);
    },
  };
}

test("CustomAnalyticsProvider.fromConfiguration() reads analytics:endpoint, apiKey, batchSize and flushInterval", async () => {
  await using server = await startCollector();
  const provider = CustomAnalyticsProvider.fromConfiguration(configOf({
    "analytics:endpoint": `${server.url}/from-config`,
    "analytics:apiKey": "cfg-key",
    "analytics:batchSize": "2",
    "analytics:flushInterval": "60000",
  }));
  const analytics = managerWith(provider);
  analytics.track("a");
  analytics.track("b"); // batchSize 2 from configuration
  await waitFor(() => server.requests.length === 1, "size batch", 5_000);
  assert.equal(server.requests[0].url, "/from-config");
  assert.equal(server.requests[0].headers["x-api-key"], "cfg-key");
  await analytics.dispose();
});

test("CustomAnalyticsProvider.fromConfiguration() reports a missing endpoint with the configuration's message", () => {
  assert.throws(
    () => CustomAnalyticsProvider.fromConfiguration(configOf({})),
    { message: "Configuration value not found: analytics:endpoint" },
  );
});

test("fromConfiguration(): a bad number or switch names its key and variable, its value masked", async () => {
  const values: Record<string, string> = {
    APP_ANALYTICS__ENDPOINT: "https://collector.example.com/events",
    APP_ANALYTICS__TRACKING_ID: "G-TEST",
    APP_ANALYTICS__BATCH_SIZE: "redis://app:hunter2@cache:6379/0",
    APP_ANALYTICS__ANONYMIZE_IP: "x".repeat(1000),
  };
  const config = await withVariables(values, async () => {
    const config = new ConfigurationManager();
    config.addEnvironmentVariables("APP");
    await config.loadConfiguration();
    return config;
  });
  assert.throws(
    () => CustomAnalyticsProvider.fromConfiguration(config),
    (error: unknown) => {
      assert.ok(error instanceof AnalyticsConfigurationError);
      assert.equal(error.key, "analytics:batchSize");
      assert.equal(error.source, "APP_ANALYTICS__BATCH_SIZE");
      assert.equal(
        error.message,
        'analytics:batchSize must be a number: "redis://app:***@cache:6379/0"',
      );
      return true;
    },
  );
  assert.throws(
    () => ExternalAnalyticsProvider.fromConfiguration(config),
    (error: unknown) => {
      assert.ok(error instanceof AnalyticsConfigurationError);
      assert.equal(error.key, "analytics:anonymizeIp");
      assert.equal(error.source, "APP_ANALYTICS__ANONYMIZE_IP");
      assert.equal(
        error.message,
        `analytics:anonymizeIp must be a boolean: "${"x".repeat(57)}..."`,
      );
      return true;
    },
  );
});

test("CustomAnalyticsProvider.fromConfiguration(): code options win, and a key they override is not read", async () => {
  await using server = await startCollector();
  const read: string[] = [];
  const values: Record<string, unknown> = {
    "analytics:endpoint": "not a url",
    "analytics:apiKey": "cfg-key",
    "analytics:batchSize": "oops",
    "analytics:flushInterval": "60000",
  };
  const config: IConfiguration = {
    hasValue: (key) => key in values,
    getValue<T>(key: string, defaultValue?: T): T {
      read.push(key);
      return (key in values ? values[key] : defaultValue) as T;
    },
  };
  const provider = CustomAnalyticsProvider.fromConfiguration(config, {
    endpoint: `${server.url}/from-code`,
    apiKey: "code-key",
    batchSize: 2,
  });
  assert.deepEqual(read, ["analytics:flushInterval"]);
  provider.track(eventNamed("a"));
  provider.track(eventNamed("b")); // batchSize 2 from the code
  await waitFor(() => server.requests.length === 1, "size batch", 5_000);
  assert.equal(server.requests[0].url, "/from-code");
  assert.equal(server.requests[0].headers["x-api-key"], "code-key");
  await provider.dispose();
});

function eventNamed(name: string): ReturnType<typeof trackEvent> {
  return trackEvent(name, `m-${name}`);
}
