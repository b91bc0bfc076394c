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
//
// The API itself comes from internal/telemetry/open_telemetry.ts (loadOpenTelemetryApi) only once something
// is registered, so that a process without an SDK never loads it (in
// Node.js it is about 25 ms of a cold start). What is registered may come
// from another copy of the API than the one loaded (the CommonJS bundle, or
// an application with its own copy): the providers are therefore
// recognised by their methods, never by the loaded copy's classes or
// singletons.
import type {
  Attributes,
  Context,
  Histogram,
  MeterProvider,
  Span,
  Tracer,
} from "@opentelemetry/api";
import { maskSecretText } from "../core/mod.ts";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
  type OpenTelemetryApi,
} from "../internal/telemetry/open_telemetry.ts";
import { HTTP_DURATION_BUCKETS } from "../internal/telemetry/http_duration_buckets.ts";
import { createScopeTracer } from "../internal/telemetry/scope_tracer.ts";
import { HttpError } from "./http_error.ts";
import { TimeoutError } from "./timeout_error.ts";

/** The instrumentation scope: the npm package's name. */
export const HTTP_SCOPE = "@vendor/kit-platform-http";

let meterProvider: MeterProvider | undefined;
let duration: Histogram | undefined;

/** The tracer, or undefined while no tracer provider is registered. */
const tracerOf = createScopeTracer(HTTP_SCOPE);

/**
 * The histogram, or undefined while no meter provider is registered or the
 * registered one is the API's no-op provider (then a call skips the clock
 * reads, as with nothing registered).
 */
function durationOf(api: OpenTelemetryApi): Histogram | undefined {
  if (!isOpenTelemetryRegistered("metrics")) {
    // Forgotten, as a change of provider would be: a provider registered
    // again gets a new histogram.
    meterProvider = undefined;
    return duration = undefined;
  }
  const provider = api.metrics.getMeterProvider();
  if (provider !== meterProvider) {
    meterProvider = provider;
    const meter = provider.getMeter(HTTP_SCOPE);
    duration = meter === api.createNoopMeter()
      ? undefined
      : meter.createHistogram(
        "http.client.request.duration",
        {
          description: "Duration of HTTP client requests (one per attempt).",
          unit: "s",
          advice: {
            explicitBucketBoundaries: [...HTTP_DURATION_BUCKETS],
          },
        },
      );
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
  const api = loadOpenTelemetryApi();
  const tracer = tracerOf(api);
  const histogram = durationOf(api);
  if (tracer === undefined && histogram === undefined) return undefined;
  return new CallTelemetry(api, tracer, histogram, method, url);
}

const ADDRESS =
  /^([a-z][a-z\d+\-.]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d+))?/i;

/**
 * One call's spans and measurements. The attempt methods are called in
 * order: `startAttempt`, then exactly one `endAttempt`.
 */
export class CallTelemetry {
  readonly #api: OpenTelemetryApi;
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
    api: OpenTelemetryApi,
    tracer: Tracer | undefined,
    histogram: Histogram | undefined,
    method: string,
    url: string,
  ) {
    this.#api = api;
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
    const active = api.context.active();
    if (tracer === undefined) {
      this.#context = active;
      return;
    }
    const span = tracer.startSpan(
      method,
      { kind: api.SpanKind.INTERNAL },
      active,
    );
    if (span.isRecording()) span.setAttribute("url.full", this.#urlFull());
    this.#span = span;
    this.#context = api.trace.setSpan(active, span);
  }

  /** The context of the current attempt (its span active), for its work. */
  get context(): Context {
    return this.#attemptContext ?? this.#context;
  }

  #urlFull(): string {
    return this.#fullUrl ??= telemetryUrl(this.#url);
  }

  /**
   * Marks the call's span with what the HTTP cache did
   * (`kit.http.cache`: `hit`, `revalidated` or `miss`).
   */
  cache(result: string): void {
    const span = this.#span;
    if (span !== undefined && span.isRecording()) {
      span.setAttribute("kit.http.cache", result);
    }
  }

  /** Runs `fn` with the current attempt's span active. */
  run<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): R {
    return this.#api.context.with(this.context, fn, undefined, ...args);
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
        { kind: this.#api.SpanKind.CLIENT },
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
      attemptContext = this.#api.trace.setSpan(this.#context, span);
    }
    this.#attemptContext = attemptContext;
    const carrier: Record<string, string> = {};
    this.#api.propagation.inject(attemptContext, carrier);
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
      if (type !== undefined) fail(this.#api, span, type, error, status);
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
    if (type !== undefined) fail(this.#api, span, type, error, status);
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
  api: OpenTelemetryApi,
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
  span.setStatus({ code: api.SpanStatusCode.ERROR, message });
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
