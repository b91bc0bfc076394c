// The official OpenTelemetry SDK, registered for one test: a tracer provider
// with an in-memory span exporter behind a simple (synchronous) processor,
// a meter provider with a reader the test collects from, the
// AsyncLocalStorage context manager (what NodeSDK registers) and the W3C
// trace-context propagator. `uninstall()` unregisters every global, so the
// next test starts from the API's no-op state.
import {
  type Attributes,
  context,
  metrics,
  propagation,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import {
  type DataPoint,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";

/** A metric reader that only reads when the test asks. */
class TestMetricReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** One data point of a metric, flattened for assertions. */
export interface MetricPoint {
  name: string;
  scope: string;
  unit: string;
  attributes: Attributes;
  /** A counter's sum or a gauge's value. */
  value?: number;
  /** A histogram's count and sum. */
  count?: number;
  sum?: number;
}

/** The SDK of one test. */
export interface OtelSdk {
  /** Spans ended so far. */
  spans(): ReadableSpan[];
  /** The ended spans named `name`. */
  spansNamed(name: string): ReadableSpan[];
  /** Collects every metric now (observable gauges included). */
  collect(): Promise<MetricPoint[]>;
  /** Unregisters the globals and shuts the providers down. */
  uninstall(): Promise<void>;
}

/** Flattens collected metrics into points. */
export function pointsOf(resourceMetrics: ResourceMetrics): MetricPoint[] {
  const points: MetricPoint[] = [];
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      for (const point of metric.dataPoints as DataPoint<unknown>[]) {
        const value = point.value;
        const entry: MetricPoint = {
          name: metric.descriptor.name,
          scope: scope.scope.name,
          unit: metric.descriptor.unit,
          attributes: point.attributes,
        };
        if (typeof value === "number") entry.value = value;
        else if (value !== null && typeof value === "object") {
          const histogram = value as { count?: number; sum?: number };
          entry.count = histogram.count;
          entry.sum = histogram.sum;
        }
        points.push(entry);
      }
    }
  }
  return points;
}

/** Registers the SDK globally; call `uninstall()` in `finally`/`after`. */
export function installOtelSdk(): OtelSdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const reader = new TestMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans: () => exporter.getFinishedSpans(),
    spansNamed: (name) =>
      exporter.getFinishedSpans().filter((span) => span.name === name),
    collect: async () => {
      const { resourceMetrics } = await reader.collect();
      return pointsOf(resourceMetrics);
    },
    uninstall: async () => {
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      contextManager.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
