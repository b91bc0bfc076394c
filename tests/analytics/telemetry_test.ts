// Analytics delivery with the official OpenTelemetry SDK registered: one
// "analytics batch delivery" span per POST (retries carry
// http.request.resend_count, failures are errors without the API key), and
// kit.analytics.events counts delivered, retried and dropped events, against
// a real loopback intake.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  type AnalyticsEvent,
  CustomAnalyticsProvider,
} from "../../analytics/mod.ts";
import { startCollector } from "../_support/http_server.ts";
import {
  installOtelSdk,
  type MetricPoint,
  type OtelSdk,
} from "../_support/otel_sdk.ts";
import { trackEvent } from "./_helpers.ts";

const SCOPE = "@vendor/kit-platform-analytics";
const PROVIDER = "CustomAnalyticsProvider";

const event = (name: string): AnalyticsEvent => trackEvent(name);

function counts(points: MetricPoint[]): Record<string, number | undefined> {
  return Object.fromEntries(
    points
      .filter((point) =>
        point.name === "kit.analytics.events" &&
        point.attributes["kit.analytics.provider"] === PROVIDER
      )
      .map((point) => [point.attributes["kit.outcome"], point.value]),
  );
}

describe("analytics delivery with an OpenTelemetry SDK", () => {
  let sdk: OtelSdk;
  beforeEach(() => {
    sdk = installOtelSdk();
  });
  afterEach(async () => {
    await sdk.uninstall();
  });

  it("makes one span per POST and counts delivered events", async () => {
    await using server = await startCollector();
    const provider = new CustomAnalyticsProvider({
      endpoint: `${server.url}/collect`,
      apiKey: "key-1",
      batchSize: 3,
      flushInterval: 0,
      onError: () => {},
    });
    try {
      for (let i = 0; i < 5; i++) provider.track(event(`e${i}`));
      const result = await provider.flush({ timeout: 5_000 });
      assert.deepEqual(result, { delivered: 5, dropped: 0 });
      const spans = sdk.spansNamed("analytics batch delivery");
      assert.equal(spans.length, 2);
      assert.equal(server.requests.length, 2);
      const sizes = spans.map((span) => span.attributes["kit.batch.size"])
        .sort();
      assert.deepEqual(sizes, [2, 3]);
      for (const span of spans) {
        assert.equal(span.kind, SpanKind.CLIENT);
        assert.equal(span.instrumentationScope.name, SCOPE);
        assert.equal(span.parentSpanContext, undefined, "a root span");
        assert.equal(span.status.code, SpanStatusCode.UNSET);
        assert.equal(span.attributes["kit.analytics.provider"], PROVIDER);
        assert.equal(span.attributes["server.address"], "127.0.0.1");
        assert.equal(
          span.attributes["server.port"],
          Number(new URL(server.url).port),
        );
        assert.equal(span.attributes["http.request.resend_count"], undefined);
      }
      assert.deepEqual(counts(await sdk.collect()), { delivered: 5 });
    } finally {
      await provider.dispose();
    }
  });

  it("gives each retry its own span with http.request.resend_count, and counts retried and dropped events", async () => {
    await using server = await startCollector(503, {
      error: "busy, key-secret-1 rejected",
    });
    const provider = new CustomAnalyticsProvider({
      endpoint: server.url,
      apiKey: "key-secret-1",
      batchSize: 2,
      flushInterval: 0,
      maxRetries: 2,
      retryDelay: 1,
      maxRetryDelay: 5,
      onError: () => {},
    });
    try {
      provider.track(event("a"));
      provider.track(event("b"));
      const result = await provider.flush({ timeout: 5_000 });
      assert.deepEqual(result, { delivered: 0, dropped: 2 });
      const spans = sdk.spansNamed("analytics batch delivery");
      assert.equal(spans.length, 3, "the first attempt and two retries");
      assert.deepEqual(
        spans.map((span) => span.attributes["http.request.resend_count"]),
        [undefined, 1, 2],
      );
      for (const span of spans) {
        assert.equal(span.status.code, SpanStatusCode.ERROR);
        assert.equal(span.attributes["http.response.status_code"], 503);
        assert.equal(span.attributes["error.type"], "503");
        assert.match(span.status.message ?? "", /HTTP 503/);
        assert.ok(
          !JSON.stringify([span.attributes, span.status, span.events])
            .includes("key-secret-1"),
          "no API key in the span",
        );
      }
      // Two events retried twice; then dropped.
      assert.deepEqual(counts(await sdk.collect()), { retried: 4, dropped: 2 });
    } finally {
      await provider.dispose({ timeout: 1_000 });
    }
  });

  it("counts events dropped by a full queue", async () => {
    const provider = new CustomAnalyticsProvider({
      endpoint: "http://127.0.0.1:9/never",
      batchSize: 100,
      flushInterval: 0,
      maxQueueSize: 2,
      onError: () => {},
    });
    try {
      for (let i = 0; i < 5; i++) provider.track(event(`e${i}`));
      assert.deepEqual(counts(await sdk.collect()), { dropped: 3 });
    } finally {
      await provider.dispose({ timeout: 1 });
    }
  });
});
