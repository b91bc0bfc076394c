// Bench helpers: the OpenTelemetry SDK registered with sampling on (spans
// exported to nowhere, metrics kept by an idle reader), and a Fetch handler
// instrumented by hand with @opentelemetry/api the way an application would
// (the traceparent extracted, a SERVER span with the same attributes as
// Kit's, active around the handler, status, end, a duration point).
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

class IdleReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Registers the SDK globally for the rest of the process. */
export function registerSdk(): void {
  const exporter: SpanExporter = {
    export: (_spans: ReadableSpan[], done) => done({ code: 0 }),
    shutdown: () => Promise.resolve(),
  };
  context.setGlobalContextManager(
    new AsyncLocalStorageContextManager().enable(),
  );
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    }),
  );
  metrics.setGlobalMeterProvider(
    new MeterProvider({ readers: [new IdleReader()] }),
  );
}

const getter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/** `handler` with a server span and a duration point made by hand. */
export function handTraced(
  handler: (request: Request) => Response | Promise<Response>,
): (request: Request) => Promise<Response> {
  const tracer = trace.getTracer("app");
  const histogram = metrics.getMeter("app").createHistogram(
    "http.server.request.duration",
    { unit: "s" },
  );
  return async (request) => {
    const started = performance.now();
    const parent = propagation.extract(
      context.active(),
      request.headers,
      getter,
    );
    const url = new URL(request.url);
    const scheme = url.protocol.slice(0, -1);
    const span = tracer.startSpan(request.method, {
      kind: SpanKind.SERVER,
      attributes: {
        "http.request.method": request.method,
        "url.scheme": scheme,
        "url.path": url.pathname,
        "server.address": url.hostname,
        "server.port": Number(url.port || (scheme === "https" ? 443 : 80)),
        "user_agent.original": request.headers.get("user-agent") ?? "",
        "kit.request_id": request.headers.get("x-request-id") ?? "",
      },
    }, parent);
    let status = 500;
    try {
      const response = await context.with(
        trace.setSpan(parent, span),
        () => handler(request),
      );
      status = response.status;
      return response;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      histogram.record((performance.now() - started) / 1000, {
        "http.request.method": request.method,
        "url.scheme": scheme,
        "http.response.status_code": status,
      });
    }
  };
}
