// Telemetry of analytics delivery through the OpenTelemetry API (a no-op
// until an SDK, or Deno's built-in exporter, registers providers): a span
// "analytics batch delivery" per POST and the counter kit.analytics.events
// (delivered, dropped, retried). The tracer and the counter follow the
// global providers (internal/telemetry/telemetry.ts).
//
// The API is reached only through core's loadOpenTelemetryApi(), once
// isOpenTelemetryRegistered() found something registered: in Node.js and Bun
// a process without an SDK never loads it. With nothing registered the API
// would only have handed out no-op counters and spans.
import type { Span } from "@opentelemetry/api";
import { maskSecretText } from "../core/mod.ts";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
} from "../internal/telemetry/open_telemetry.ts";
import {
  addCount,
  scopeCounter,
  scopeTracer,
  serverAttributes,
} from "../internal/telemetry/telemetry.ts";

/** The instrumentation scope: the npm package's name. */
export const ANALYTICS_SCOPE = "@vendor/kit-platform-analytics";

const tracerOf = scopeTracer(ANALYTICS_SCOPE);

const eventsOf = scopeCounter(ANALYTICS_SCOPE, "kit.analytics.events", {
  description:
    "Analytics events by outcome: delivered, dropped, or retried (once per retry of the batch holding them)",
  unit: "{event}",
});

/** What happened to analytics events. */
export type EventOutcome = "delivered" | "dropped" | "retried";

/** Adds `count` events with `outcome` to kit.analytics.events. */
export function countEvents(
  provider: string,
  outcome: EventOutcome,
  count: number,
): void {
  addCount(eventsOf, count, {
    "kit.analytics.provider": provider,
    "kit.outcome": outcome,
  });
}

/**
 * Runs one POST of a batch inside its span. The span is a root: a batch
 * holds events of many requests and belongs to none of them.
 */
export async function inDeliverySpan<R>(
  provider: string,
  endpoint: string,
  size: number,
  attempt: number,
  send: () => Promise<R>,
): Promise<R> {
  // With neither a tracer provider nor a context manager registered, the
  // API's span would record nothing and context.with() would only call
  // `send`.
  if (
    !isOpenTelemetryRegistered("trace") && !isOpenTelemetryRegistered("context")
  ) {
    return await send();
  }
  const { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } =
    loadOpenTelemetryApi();
  const span: Span = tracerOf(trace.getTracerProvider()).startSpan(
    "analytics batch delivery",
    {
      kind: SpanKind.CLIENT,
      root: true,
    },
    ROOT_CONTEXT,
  );
  if (span.isRecording()) {
    span.setAttribute("kit.analytics.provider", provider);
    span.setAttribute("kit.batch.size", size);
    if (attempt > 1) {
      span.setAttribute("http.request.resend_count", attempt - 1);
    }
    // Never the path or query: GA4's api_secret travels in the query.
    span.setAttributes(serverAttributes(endpoint));
  }
  try {
    return await context.with(trace.setSpan(ROOT_CONTEXT, span), send);
  } catch (error) {
    if (span.isRecording()) {
      const info = (error as { info?: { status?: number } }).info;
      const status = info?.status;
      if (status !== undefined) {
        span.setAttribute("http.response.status_code", status);
      }
      // Failures of the queue are already masked; anything else is here.
      const message = maskSecretText(
        error instanceof Error ? error.message : String(error),
      );
      span.setAttribute(
        "error.type",
        status !== undefined
          ? String(status)
          : /timed out/.test(message)
          ? "timeout"
          : error instanceof Error && error.name !== "SendFailure"
          ? error.name
          : "network",
      );
      span.recordException({ name: "AnalyticsDeliveryFailure", message });
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    }
    throw error;
  } finally {
    span.end();
  }
}
