// Telemetry of configuration reloads through the OpenTelemetry API (a no-op
// until an SDK, or Deno's built-in exporter, registers providers): a span
// "configuration reload" around each reload, and the counter
// kit.config.reload.failures per source. The tracer and the counter follow
// the global providers (internal/telemetry/telemetry.ts); the API itself is loaded
// only once something is registered.
import type { Span } from "@opentelemetry/api";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
} from "../internal/telemetry/open_telemetry.ts";
import {
  addCount,
  scopeCounter,
  scopeTracer,
} from "../internal/telemetry/telemetry.ts";
import { NON_RECORDING_SPAN } from "../internal/telemetry/non_recording_span.ts";

/** The instrumentation scope: the npm package's name. */
export const CONFIG_SCOPE = "@vendor/kit-platform-configuration";

const tracerOf = scopeTracer(CONFIG_SCOPE);

const failuresOf = scopeCounter(CONFIG_SCOPE, "kit.config.reload.failures", {
  description:
    "Configuration reloads that failed (the last good configuration stayed), by the source at fault",
  unit: "{reload}",
});

/** What started a reload: a `reload()` call or a watched source. */
export type ReloadTrigger = "call" | "watch";

/**
 * Runs a reload inside its span (active, so a URL source's request is its
 * child). A reload started by a watched file is a root span.
 */
export function inReloadSpan<R>(
  trigger: ReloadTrigger,
  run: (span: Span) => Promise<R>,
): Promise<R> {
  if (
    !isOpenTelemetryRegistered("trace") && !isOpenTelemetryRegistered("context")
  ) {
    return run(NON_RECORDING_SPAN);
  }
  const { context, ROOT_CONTEXT, trace } = loadOpenTelemetryApi();
  const parent = trigger === "watch" ? ROOT_CONTEXT : context.active();
  const span = tracerOf(trace.getTracerProvider()).startSpan(
    "configuration reload",
    {
      attributes: { "kit.config.trigger": trigger },
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), () => run(span))
    .finally(() => span.end());
}

/** Records how many values a reload changed. */
export function reloadSucceeded(span: Span, changes: number): void {
  if (span.isRecording()) span.setAttribute("kit.config.changes", changes);
}

/**
 * Records a failed reload on its span (masked message, error status) and
 * counts it in kit.config.reload.failures under the source at fault.
 */
export function reloadFailed(
  span: Span,
  source: string,
  errorName: string,
  maskedMessage: string,
): void {
  addCount(failuresOf, 1, { "kit.config.source": source });
  if (!span.isRecording()) return;
  // A recording span: a tracer provider is registered, the API is loaded.
  const { SpanStatusCode } = loadOpenTelemetryApi();
  span.setAttribute("kit.config.source", source);
  span.setAttribute("error.type", errorName);
  span.recordException({ name: errorName, message: maskedMessage });
  span.setStatus({ code: SpanStatusCode.ERROR, message: maskedMessage });
}
