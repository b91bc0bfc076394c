// app.handle() with the OpenTelemetry SDK registered and sampling on,
// against the same trivial handler instrumented by hand with
// @opentelemetry/api the way an application would (extract the
// traceparent, a SERVER span with the same attributes, active around the
// handler, status, end, a duration histogram point), in the same run. Kit's
// wrapper does more besides (request id, request context, X-Request-ID), so
// "no worse" means Kit's row is not slower than the hand-written one.
// Run: deno bench -A bench/telemetry_bench.ts
import {
  context,
  metrics,
  propagation,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { Application } from "../platform/mod.ts";

// Spans are exported to nowhere (the cost measured is recording them).
const exporter: SpanExporter = {
  export: (_spans: ReadableSpan[], done) => done({ code: 0 }),
  shutdown: () => Promise.resolve(),
};
class IdleReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(
  new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  }),
);
metrics.setGlobalMeterProvider(
  new MeterProvider({ readers: [new IdleReader()] }),
);

let sink = 0;
const bare = (_request: Request): Response => new Response("ok");
const request = new Request("http://localhost:8080/orders/7", {
  headers: {
    "x-request-id": "bench-1",
    "user-agent": "bench/1.0",
    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
  },
});

// By hand, with the API only.
const tracer = trace.getTracer("app");
const histogram = metrics.getMeter("app").createHistogram(
  "http.server.request.duration",
  { unit: "s" },
);
const getter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};
async function byHand(request: Request): Promise<Response> {
  const started = performance.now();
  const parent = propagation.extract(context.active(), request.headers, getter);
  const url = new URL(request.url);
  const span = tracer.startSpan(request.method, {
    kind: SpanKind.SERVER,
    attributes: {
      "http.request.method": request.method,
      "url.scheme": url.protocol.slice(0, -1),
      "url.path": url.pathname,
      "server.address": url.hostname,
      "server.port": Number(url.port),
      "user_agent.original": request.headers.get("user-agent") ?? "",
      "kit.request_id": request.headers.get("x-request-id") ?? "",
    },
  }, parent);
  let status = 500;
  try {
    const response = await context.with(
      trace.setSpan(parent, span),
      () => bare(request),
    );
    status = response.status;
    return response;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.setAttribute("http.response.status_code", status);
    span.end();
    histogram.record((performance.now() - started) / 1000, {
      "http.request.method": request.method,
      "url.scheme": url.protocol.slice(0, -1),
      "http.response.status_code": status,
    });
  }
}

const app = await Application.start({
  configuration: () => ({}),
  logging: () => ({
    debug: () => {},
    info: () => {},
    warning: () => {},
    error: () => {},
    isEnabled: () => false,
  }),
});
const wrapped = app.handle(bare);

Deno.bench({
  name: "trivial handler instrumented by hand (@opentelemetry/api), SDK on",
  group: "app-handle-sdk",
  baseline: true,
  async fn() {
    sink += (await byHand(request)).status;
  },
});

Deno.bench({
  name: "Kit app.handle(handler), SDK on",
  group: "app-handle-sdk",
  async fn() {
    sink += (await wrapped(request)).status;
  },
});

globalThis.addEventListener("unload", () => {
  if (sink === -1) console.log(sink);
});
