// Logging's OpenTelemetry hooks, all through @opentelemetry/api (a no-op
// until an SDK, or Deno's built-in exporter, is registered):
// - the active span's ids for every entry (traceIds);
// - the counter `kit.log.records` (delivered / dropped / retried);
// - the CLIENT span "log batch delivery" around each POST of a batch.
// The tracer and the counter follow the global providers
// (internal/telemetry/telemetry.ts): one global look-up per use, and they are used
// per batch.
//
// The API itself is got from internal/telemetry/open_telemetry.ts (loadOpenTelemetryApi) only on a path that
// already knows the part it needs is registered: in Node.js the npm package
// then never loads it in a process without an SDK (about 25 ms of a cold
// start). What the API would do with nothing registered is done here
// without it: no active span, no counting, no span, `fn()` run as it is.
import type { Context, Span, SpanContext } from "@opentelemetry/api";
import { maskSecretText } from "../core/mod.ts";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
} from "../internal/telemetry/open_telemetry.ts";
import {
  addCount,
  scopeCounter,
  scopeTracer,
  type ServerAttributes,
} from "../internal/telemetry/telemetry.ts";

/** The instrumentation scope: the npm package's name. */
export const LOGGING_SCOPE = "@vendor/kit-platform-logging";

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
  const api = loadOpenTelemetryApi();
  const span = api.trace.getActiveSpan();
  if (span === undefined) return undefined;
  const spanContext = span.spanContext();
  if (spanContext !== lastSpanContext) {
    lastSpanContext = spanContext;
    lastValid = api.isSpanContextValid(spanContext);
  }
  return lastValid ? spanContext : undefined;
}

const tracerOf = scopeTracer(LOGGING_SCOPE);

const recordsOf = scopeCounter(LOGGING_SCOPE, "kit.log.records", {
  description:
    "Log entries of a provider that buffers and sends them, by outcome",
  unit: "{record}",
});

/** Outcome of entries, for `kit.log.records`. */
export type RecordOutcome = "delivered" | "dropped" | "retried";

/** Adds `count` entries of `provider` with `outcome` to `kit.log.records`. */
export function countRecords(
  provider: string,
  outcome: RecordOutcome,
  count: number,
): void {
  addCount(recordsOf, count, {
    "kit.log.provider": provider,
    "kit.outcome": outcome,
  });
}

// The key @opentelemetry/core's suppressTracing() sets: SDK exporters and
// auto-instrumentations (fetch, undici, http) record nothing under it. The
// API 1.x's createContextKey(description) is Symbol.for(description), so
// this is the same key, made without loading the API.
const SUPPRESS_TRACING = Symbol.for(
  "OpenTelemetry SDK Context Key SUPPRESS_TRACING",
);

// The root context with tracing suppressed, from the loaded API's
// ROOT_CONTEXT (made once, when first needed).
let suppressed: Context | undefined;
function suppressedContext(): Context {
  return suppressed ??= loadOpenTelemetryApi().ROOT_CONTEXT.setValue(
    SUPPRESS_TRACING,
    true,
  );
}

/**
 * Starts the span of one POST of a batch. It is a root span (a batch holds
 * entries of many requests, so it belongs to none of them), and the POST
 * runs in `context`: a context without it where tracing is suppressed, so
 * that instrumented `fetch` records no span for it and entries logged while
 * it runs carry no ids and start no further delivery spans of their own.
 * `span` is `undefined` while no tracer provider is registered (the API's
 * span would record nothing), and `context` while no context manager is
 * (runIn then makes it if one has been registered since).
 */
export function startDeliverySpan(
  size: number,
  resendCount: number,
  server: ServerAttributes,
): { span: Span | undefined; context: Context | undefined } {
  const ctx = isOpenTelemetryRegistered("context")
    ? suppressedContext()
    : undefined;
  if (!isOpenTelemetryRegistered("trace")) {
    return { span: undefined, context: ctx };
  }
  const attributes: Record<string, string | number> = {
    "kit.batch.size": size,
    "http.request.method": "POST",
    ...server,
  };
  if (resendCount > 0) attributes["http.request.resend_count"] = resendCount;
  const api = loadOpenTelemetryApi();
  const span = tracerOf(api.trace.getTracerProvider()).startSpan(
    "log batch delivery",
    {
      kind: api.SpanKind.CLIENT,
      attributes,
    },
    api.ROOT_CONTEXT,
  );
  return { span, context: ctx };
}

/** Ends a delivery span, with an error status when the POST failed. */
export function endDeliverySpan(
  span: Span | undefined,
  status: number | undefined,
  error: unknown,
): void {
  if (span === undefined) return;
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
      span.setStatus({
        code: loadOpenTelemetryApi().SpanStatusCode.ERROR,
        message,
      });
    }
  } finally {
    span.end();
  }
}

/**
 * Runs `fn` in `ctx` (the API's context.with); without a context manager,
 * as the API would, just runs it.
 */
export function runIn<T>(ctx: Context | undefined, fn: () => T): T {
  if (!isOpenTelemetryRegistered("context")) return fn();
  return loadOpenTelemetryApi().context.with(ctx ?? suppressedContext(), fn);
}
