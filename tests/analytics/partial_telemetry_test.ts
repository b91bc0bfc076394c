// Analytics delivery with only part of OpenTelemetry registered: the counter
// kit.analytics.events needs only a meter provider, the delivery span only a
// tracer provider, and a context manager alone changes nothing that is sent.
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  type AnalyticsEvent,
  CustomAnalyticsProvider,
} from "../../analytics/mod.ts";
import { startCollector } from "../_support/http_server.ts";
import { pointsOf } from "../_support/otel_sdk.ts";
import { trackEvent } from "./_helpers.ts";

const PROVIDER = "CustomAnalyticsProvider";

/** A metric reader that only reads when the test asks. */
class TestMetricReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

let ids = 0;
const event = (name: string): AnalyticsEvent =>
  trackEvent(name, `partial-${++ids}`);

// Tracks `count` events and flushes them to a loopback intake answering 200.
async function deliver(
  count: number,
): Promise<{ delivered: number; dropped: number; requests: number }> {
  await using server = await startCollector();
  const provider = new CustomAnalyticsProvider({
    endpoint: `${server.url}/collect`,
    batchSize: 2,
    flushInterval: 0,
    onError: () => {},
  });
  try {
    for (let i = 0; i < count; i++) provider.track(event(`e${i}`));
    const result = await provider.flush({ timeout: 5_000 });
    return { ...result, requests: server.requests.length };
  } finally {
    await provider.dispose();
  }
}

describe("analytics delivery with part of OpenTelemetry registered", () => {
  afterEach(() => {
    trace.disable();
    metrics.disable();
    context.disable();
  });

  it("counts delivered events with only a meter provider", async () => {
    const reader = new TestMetricReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(meterProvider);
    try {
      assert.deepEqual(await deliver(3), {
        delivered: 3,
        dropped: 0,
        requests: 2,
      });
      const { resourceMetrics } = await reader.collect();
      const delivered = pointsOf(resourceMetrics).filter((point) =>
        point.name === "kit.analytics.events" &&
        point.attributes["kit.analytics.provider"] === PROVIDER &&
        point.attributes["kit.outcome"] === "delivered"
      );
      assert.equal(delivered.length, 1);
      assert.equal(delivered[0].value, 3);
    } finally {
      await meterProvider.shutdown();
    }
  });

  it("makes one root span per POST with only a tracer provider", async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    trace.setGlobalTracerProvider(tracerProvider);
    try {
      assert.deepEqual(await deliver(3), {
        delivered: 3,
        dropped: 0,
        requests: 2,
      });
      const spans = exporter.getFinishedSpans().filter((span) =>
        span.name === "analytics batch delivery"
      );
      assert.deepEqual(
        spans.map((span) => span.attributes["kit.batch.size"]).sort(),
        [1, 2],
      );
      for (const span of spans) {
        assert.equal(span.parentSpanContext, undefined, "a root span");
      }
    } finally {
      await tracerProvider.shutdown();
    }
  });

  it("delivers as usual with only a context manager", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      assert.deepEqual(await deliver(3), {
        delivered: 3,
        dropped: 0,
        requests: 2,
      });
    } finally {
      manager.disable();
    }
  });
});
