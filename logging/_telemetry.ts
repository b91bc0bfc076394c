// Logging's OpenTelemetry hooks, all through @opentelemetry/api (a no-op
// until an SDK, or Deno's built-in exporter, is registered):
// - the active span's ids for every entry (traceIds);
// - the counter `kit.log.records` (delivered / dropped / retried);
// - the CLIENT span "log batch delivery" around each POST of a batch.
// The tracer and the counter are kept per global provider (memoizeLast): the
// API's global meter provider is NOT a proxy (metrics.getMeter() before an
// SDK is registered returns a no-op meter for good), and trace.disable()
// replaces the proxy tracer provider, so both are got again whenever the
// global provider changes (one global look-up per use; they are used per
// batch).
import {
  type Context,
  context,
  type Counter,
  createContextKey,
  isSpanContextValid,
  type MeterProvider,
  metrics,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import {
  isOpenTelemetryRegistered,
  maskSecretText,
  memoizeLast,
} from "../core/mod.ts";

/** The instrumentation scope: the npm package's name. */
export const SCOPE = "@vendor/kit-platform-logging";

// The entry's ids, from the last span context seen (entries of one span
// share it, so the validity check runs once per span).
let lastSpanContext: SpanContext | undefined;
let lastValid = false;

/**
 * The active span's context when it is valid, else `undefined`. Cheap when
 * nothing is registered: without a context manager no span is active, so
 * the API is not asked.
 */
export function activeSpanContext(): SpanContext | undefined {
  if (!isOpenTelemetryRegistered("context")) return undefined;
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const spanContext = span.spanContext();
  if (spanContext !== lastSpanContext) {
    lastSpanContext = spanContext;
    lastValid = isSpanContextValid(spanContext);
  }
  return lastValid ? spanContext : undefined;
}

const tracerOf = memoizeLast((provider: TracerProvider): Tracer =>
  provider.getTracer(SCOPE)
);

const recordsOf = memoizeLast((provider: MeterProvider): Counter =>
  provider.getMeter(SCOPE).createCounter("kit.log.records", {
    description:
      "Log entries of a provider that buffers and sends them, by outcome",
    unit: "{record}",
  })
);

/** Outcome of entries, for `kit.log.records`. */
export type RecordOutcome = "delivered" | "dropped" | "retried";

/** Adds `count` entries of `provider` with `outcome` to `kit.log.records`. */
export function countRecords(
  provider: string,
  outcome: RecordOutcome,
  count: number,
): void {
  if (count <= 0) return;
  recordsOf(metrics.getMeterProvider()).add(count, {
    "kit.log.provider": provider,
    "kit.outcome": outcome,
  });
}

// The key @opentelemetry/core's suppressTracing() sets (context keys are
// Symbol.for(description), so this is the same key): SDK exporters and
// auto-instrumentations (fetch, undici, http) record nothing under it.
const SUPPRESS_TRACING = createContextKey(
  "OpenTelemetry SDK Context Key SUPPRESS_TRACING",
);

/** `server.address` and `server.port` of an endpoint. */
export type ServerAttributes = Readonly<Record<string, string | number>>;

/**
 * The server attributes of an endpoint (no credentials, path or query).
 */
export function serverAttributes(endpoint: string): ServerAttributes {
  try {
    const url = new URL(endpoint);
    const port = url.port !== ""
      ? Number(url.port)
      : url.protocol === "https:"
      ? 443
      : 80;
    return { "server.address": url.hostname, "server.port": port };
  } catch {
    return {};
  }
}

/**
 * Starts the span of one POST of a batch. It is a root span (a batch holds
 * entries of many requests, so it belongs to none of them), and the POST
 * runs in `context`: a context without it where tracing is suppressed, so
 * that instrumented `fetch` records no span for it and entries logged while
 * it runs carry no ids and start no further delivery spans of their own.
 */
export function startDeliverySpan(
  size: number,
  resendCount: number,
  server: ServerAttributes,
): { span: Span; context: Context } {
  const attributes: Record<string, string | number> = {
    "kit.batch.size": size,
    "http.request.method": "POST",
    ...server,
  };
  if (resendCount > 0) attributes["http.request.resend_count"] = resendCount;
  const span = tracerOf(trace.getTracerProvider()).startSpan(
    "log batch delivery",
    {
      kind: SpanKind.CLIENT,
      attributes,
    },
    ROOT_CONTEXT,
  );
  return { span, context: ROOT_CONTEXT.setValue(SUPPRESS_TRACING, true) };
}

/** Ends a delivery span, with an error status when the POST failed. */
export function endDeliverySpan(
  span: Span,
  status: number | undefined,
  error: unknown,
): void {
  try {
    if (status !== undefined) {
      span.setAttribute("http.response.status_code", status);
    }
    if (error !== undefined) {
      const message = maskSecretText(
        error instanceof Error ? error.message : String(error),
      );
      span.setAttribute(
        "error.type",
        status !== undefined
          ? String(status)
          : error instanceof Error
          ? error.name
          : "Error",
      );
      span.recordException({
        name: error instanceof Error ? error.name : "Error",
        message,
      });
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    }
  } finally {
    span.end();
  }
}

/** Runs `fn` in `ctx` (the API's context.with). */
export function runIn<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}
