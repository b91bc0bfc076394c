import type { OpenTelemetryTracer } from "./scope_tracer.ts";

/** A span of `@opentelemetry/api`, as `tracer.startSpan()` returns it. */
export type OpenTelemetrySpan = ReturnType<OpenTelemetryTracer["startSpan"]>;

// The API's INVALID_SPAN_CONTEXT: the all-zero ids and no flags (sampled
// off) that W3C Trace Context calls invalid.
const INVALID_SPAN_CONTEXT = Object.freeze({
  traceId: "00000000000000000000000000000000",
  spanId: "0000000000000000",
  traceFlags: 0,
});

/**
 * A span that records nothing, as the API's
 * `trace.wrapSpanContext(INVALID_SPAN_CONTEXT)` gives, made without loading
 * the API: for code that hands a span to its callers whether or not
 * anything is registered (see {@linkcode isOpenTelemetryRegistered}).
 *
 * @example A span for callers while nothing is registered
 * ```ts
 * import { NON_RECORDING_SPAN } from "./non_recording_span.ts";
 *
 * NON_RECORDING_SPAN.setAttribute("ignored", 1).end();
 * console.log(NON_RECORDING_SPAN.isRecording()); // false
 * ```
 */
export const NON_RECORDING_SPAN: OpenTelemetrySpan = Object.freeze({
  spanContext: () => INVALID_SPAN_CONTEXT,
  setAttribute: () => NON_RECORDING_SPAN,
  setAttributes: () => NON_RECORDING_SPAN,
  addEvent: () => NON_RECORDING_SPAN,
  addLink: () => NON_RECORDING_SPAN,
  addLinks: () => NON_RECORDING_SPAN,
  setStatus: () => NON_RECORDING_SPAN,
  updateName: () => NON_RECORDING_SPAN,
  end: () => {},
  isRecording: () => false,
  recordException: () => {},
});
