// Telemetry of HttpClient through the OpenTelemetry API (a no-op until an
// SDK, or Deno's built-in exporter, registers providers): an INTERNAL span
// per call, a CLIENT span per attempt under it (siblings, with
// `http.request.resend_count` from the second on), `traceparent` and
// `tracestate` injected into each attempt's request through the registered
// propagator, and the histogram `http.client.request.duration` per attempt.
//
// The tracer and the histogram are made on first use and again whenever the
// global provider changes: the API's meter provider is not a proxy (an
// instrument made before an SDK registers would stay a no-op), and a test may
// register and unregister SDKs one after another. With nothing registered a
// call costs two property reads (isOpenTelemetryRegistered): no span, no
// context, no clock read.
import {
  type Attributes,
  type Context,
  context,
  createNoopMeter,
  type Histogram,
  type MeterProvider,
  metrics,
  propagation,
  ProxyTracerProvider,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { isOpenTelemetryRegistered, maskSecretText } from "../core/mod.ts";
import { HttpError } from "./http_error.ts";
import { TimeoutError } from "./timeout_error.ts";

/** The instrumentation scope: the npm package's name. */
export const SCOPE = "@vendor/kit-platform-http";

// What the tracer was taken from: the registered provider behind the API's
// proxy (or the provider itself, with another copy of the API).
let tracerSource: unknown;
let tracer: Tracer | undefined;
let meterProvider: MeterProvider | undefined;
let duration: Histogram | undefined;

/** The tracer, or undefined while no tracer provider is registered. */
function tracerOf(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  if (provider instanceof ProxyTracerProvider) {
    const delegate = provider.getDelegate();
    if (delegate !== tracerSource) {
      tracerSource = delegate;
      tracer = provider.getDelegateTracer(SCOPE);
    }
    return tracer;
  }
  if (provider !== tracerSource) {
    tracerSource = provider;
    tracer = provider.getTracer(SCOPE);
  }
  return tracer;
}

/** The histogram, or undefined while no meter provider is registered. */
function durationOf(): Histogram | undefined {
  const provider = metrics.getMeterProvider();
  if (provider !== meterProvider) {
    meterProvider = provider;
    const meter = provider.getMeter(SCOPE);
    duration = meter === createNoopMeter()
      ? undefined
      : meter.createHistogram("http.client.request.duration", {
        description: "Duration of HTTP client requests (one per attempt).",
        unit: "s",
        advice: {
          explicitBucketBoundaries: [
            0.005,
            0.01,
            0.025,
            0.05,
            0.075,
            0.1,
            0.25,
            0.5,
            0.75,
            1,
            2.5,
            5,
            7.5,
            10,
          ],
        },
      });
  }
  return duration;
}

/**
 * The telemetry of one call, or undefined when neither a tracer nor a meter
 * provider is registered (the call then records nothing).
 */
export function startCall(
  method: string,
  url: string,
): CallTelemetry | undefined {
  // Nothing registered: two property reads, not the API's look-ups.
  if (
    !isOpenTelemetryRegistered("trace") && !isOpenTelemetryRegistered("metrics")
  ) {
    return undefined;
  }
  const tracer = tracerOf();
  const histogram = durationOf();
  if (tracer === undefined && histogram === undefined) return undefined;
  return new CallTelemetry(tracer, histogram, method, url);
}

const ADDRESS =
  /^([a-z][a-z\d+\-.]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d+))?/i;

/**
 * One call's spans and measurements. The attempt methods are called in
 * order: `startAttempt`, then exactly one `endAttempt`.
 */
export class CallTelemetry {
  readonly #tracer: Tracer | undefined;
  readonly #histogram: Histogram | undefined;
  readonly #method: string;
  readonly #url: string;
  /** `url` as the spans show it, made once a span records. */
  #fullUrl: string | undefined;
  readonly #address: string;
  readonly #port: number | undefined;
  readonly #span: Span | undefined;
  readonly #context: Context;
  #attempt: Span | undefined;
  #attemptContext: Context | undefined;
  #attempts = 0;
  #started = 0;

  constructor(
    tracer: Tracer | undefined,
    histogram: Histogram | undefined,
    method: string,
    url: string,
  ) {
    this.#tracer = tracer;
    this.#histogram = histogram;
    this.#method = method;
    this.#url = url;
    const match = ADDRESS.exec(url);
    const scheme = match?.[1].toLowerCase();
    this.#address = match?.[2] ?? "";
    this.#port = match?.[3] !== undefined
      ? Number(match[3])
      : scheme === "https"
      ? 443
      : scheme === "http"
      ? 80
      : undefined;
    const active = context.active();
    if (tracer === undefined) {
      this.#context = active;
      return;
    }
    const span = tracer.startSpan(method, { kind: SpanKind.INTERNAL }, active);
    if (span.isRecording()) span.setAttribute("url.full", this.#urlFull());
    this.#span = span;
    this.#context = trace.setSpan(active, span);
  }

  /** The context of the current attempt (its span active), for its work. */
  get context(): Context {
    return this.#attemptContext ?? this.#context;
  }

  #urlFull(): string {
    return this.#fullUrl ??= telemetryUrl(this.#url);
  }

  /** Runs `fn` with the current attempt's span active. */
  run<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): R {
    return context.with(this.context, fn, undefined, ...args);
  }

  /**
   * Starts an attempt: its CLIENT span under the call's, and the trace
   * headers to send with it (undefined when the propagator adds none).
   */
  startAttempt(): Record<string, string> | undefined {
    const resends = this.#attempts++;
    let attemptContext = this.#context;
    const tracer = this.#tracer;
    if (tracer !== undefined) {
      const span = tracer.startSpan(
        this.#method,
        { kind: SpanKind.CLIENT },
        this.#context,
      );
      if (span.isRecording()) {
        const attributes: Attributes = {
          "http.request.method": this.#method,
          "url.full": this.#urlFull(),
          "server.address": this.#address,
        };
        if (this.#port !== undefined) {
          attributes["server.port"] = this.#port;
        }
        if (resends > 0) attributes["http.request.resend_count"] = resends;
        span.setAttributes(attributes);
      }
      this.#attempt = span;
      attemptContext = trace.setSpan(this.#context, span);
    }
    this.#attemptContext = attemptContext;
    const carrier: Record<string, string> = {};
    propagation.inject(attemptContext, carrier);
    if (this.#histogram !== undefined) this.#started = performance.now();
    for (const _ in carrier) return carrier;
    return undefined;
  }

  /**
   * Ends the current attempt with the status it got, or the error it failed
   * with (a status of 400 or more is a failure too).
   */
  endAttempt(status: number | undefined, error?: unknown): void {
    const type = status !== undefined && status >= 400
      ? String(status)
      : error === undefined
      ? undefined
      : errorType(error);
    const span = this.#attempt;
    if (span !== undefined) {
      this.#attempt = undefined;
      if (status !== undefined) {
        span.setAttribute("http.response.status_code", status);
      }
      if (type !== undefined) fail(span, type, error, status);
      span.end();
    }
    this.#attemptContext = undefined;
    const histogram = this.#histogram;
    if (histogram !== undefined) {
      const attributes: Attributes = {
        "http.request.method": this.#method,
        "server.address": this.#address,
      };
      if (this.#port !== undefined) attributes["server.port"] = this.#port;
      if (status !== undefined) {
        attributes["http.response.status_code"] = status;
      }
      if (type !== undefined) attributes["error.type"] = type;
      histogram.record((performance.now() - this.#started) / 1000, attributes);
    }
  }

  /** Ends the call: with the error it threw, or the final status. */
  end(status: number | undefined, error?: unknown): void {
    if (this.#attempt !== undefined || this.#attemptContext !== undefined) {
      this.endAttempt(status, error);
    }
    const span = this.#span;
    if (span === undefined) return;
    const type = error !== undefined
      ? errorType(error)
      : status !== undefined && status >= 400
      ? String(status)
      : undefined;
    if (type !== undefined) fail(span, type, error, status);
    span.end();
  }
}

/** `error.type` of a failure: a status, "timeout", or the error's name. */
function errorType(error: unknown): string {
  if (error instanceof TimeoutError) return "timeout";
  if (error instanceof HttpError) return String(error.status);
  const name = (error as { name?: unknown } | null)?.name;
  return typeof name === "string" && name !== "" ? name : "_OTHER";
}

function fail(
  span: Span,
  type: string,
  error: unknown,
  status: number | undefined,
): void {
  span.setAttribute("error.type", type);
  let message: string;
  if (error === undefined) {
    message = `HTTP ${status}`;
  } else {
    const raw = error instanceof Error ? error.message : String(error);
    message = maskSecretText(raw);
    span.recordException({
      name: (error as { name?: string } | null)?.name ?? "Error",
      message,
      stack: error instanceof Error && error.stack !== undefined
        ? maskSecretText(error.stack)
        : undefined,
    });
  }
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** The address as telemetry shows it: no credentials, query or fragment. */
function telemetryUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.origin + parsed.pathname;
  } catch {
    const cut = url.search(/[?#]/);
    return cut < 0 ? url : url.slice(0, cut);
  }
}
