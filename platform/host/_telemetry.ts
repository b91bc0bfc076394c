// Telemetry of the application host through the OpenTelemetry API (a no-op
// until an SDK, or Deno's built-in exporter, registers providers): the
// server span and `http.server.request.duration` of app.handle(), and the
// `kit.health.status` gauge fed by the last health report. The tracer and
// the instruments are made on first use and again whenever the global
// provider changes: the API's meter provider is not a proxy (an instrument
// made before an SDK registers would stay a no-op), and a test may register
// and unregister SDKs one after another.
//
// The API itself is loaded (loadOpenTelemetryApi) only on paths that know a
// provider is registered, so a process without an SDK never loads it. The
// registered providers may come from another copy of the API than the one
// loaded here (the CommonJS bundle, or an application with its own copy):
// they are told apart by shape, not by the loaded copy's classes.
import type {
  Attributes,
  Context,
  Histogram,
  MeterProvider,
  ObservableGauge,
  ObservableResult,
  Span,
  TextMapGetter,
} from "@opentelemetry/api";
import { maskSecretText } from "../../core/mod.ts";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
} from "../../internal/telemetry/open_telemetry.ts";
import { HTTP_DURATION_BUCKETS } from "../../internal/telemetry/http_duration_buckets.ts";
import { createScopeTracer } from "../../internal/telemetry/scope_tracer.ts";
import type { HealthReport, HealthStatus } from "./health.ts";

/** The instrumentation scope: the npm package's name. */
export const PLATFORM_SCOPE = "@vendor/kit-platform";

let meterProvider: MeterProvider | undefined;
let duration: Histogram | undefined;
let healthInstrument: ObservableGauge | undefined;

// Nothing registered: a request costs two property reads (see
// isOpenTelemetryRegistered), not the API's look-ups.
function nothingRegistered(): boolean {
  return !isOpenTelemetryRegistered("trace") &&
    !isOpenTelemetryRegistered("metrics");
}

/** The tracer, or undefined while no tracer provider is registered. */
const tracerOf = createScopeTracer(PLATFORM_SCOPE);

// Whether the meter provider in use is the API's no-op one (no SDK).
let meterIsNoop = true;

// The meter provider in use; the instruments are dropped when it changes.
// (A no-op meter of another copy of the API counts as a real one: its
// instruments record nothing, which is harmless.)
function meterProviderOf(): MeterProvider {
  const { metrics, createNoopMeter } = loadOpenTelemetryApi();
  const provider = metrics.getMeterProvider();
  if (provider !== meterProvider) {
    meterProvider = provider;
    meterIsNoop = provider.getMeter(PLATFORM_SCOPE) === createNoopMeter();
    duration = undefined;
    healthInstrument = undefined;
  }
  return provider;
}

function durationOf(): Histogram {
  const provider = meterProviderOf();
  return duration ??= provider.getMeter(PLATFORM_SCOPE).createHistogram(
    "http.server.request.duration",
    {
      description: "Duration of HTTP server requests handled by app.handle()",
      unit: "s",
      advice: {
        explicitBucketBoundaries: [...HTTP_DURATION_BUCKETS],
      },
    },
  );
}

function healthInstrumentOf(): ObservableGauge {
  const provider = meterProviderOf();
  return healthInstrument ??= provider.getMeter(PLATFORM_SCOPE)
    .createObservableGauge(
      "kit.health.status",
      {
        description:
          "Status of each health check in the last health report: 1 healthy, 0.5 degraded, 0 unhealthy",
      },
    );
}

const HEADERS_GETTER: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/** The span of one request, with what its metric point needs. */
export interface ServerSpan {
  /** Undefined while no tracer provider is registered. */
  readonly span: Span | undefined;
  /**
   * The context to run the handler in (the span active in it); undefined
   * when there is nothing to propagate.
   */
  readonly context: Context | undefined;
  /** Whether a meter provider is registered (the duration is recorded). */
  readonly measured: boolean;
}

function schemeOf(url: string): string {
  const colon = url.indexOf(":");
  return colon > 0 ? url.slice(0, colon) : "http";
}

/**
 * Starts the span of a request; undefined when neither a tracer nor a meter
 * provider is registered (then a request costs two property reads). When a
 * span is already active (the runtime's own server span, as Deno's with
 * `OTEL_DENO=true`, or a Node.js HTTP instrumentation's), Kit's span is its
 * child, of kind INTERNAL (one SERVER span per hop); otherwise it continues
 * the request's `traceparent`/`tracestate` through the registered
 * propagator.
 */
export function startServerSpan(
  request: Request,
  requestId: string,
  pathOf: (url: string) => string,
): ServerSpan | undefined {
  if (nothingRegistered()) return undefined;
  const tracer = tracerOf(loadOpenTelemetryApi());
  meterProviderOf();
  const measured = !meterIsNoop;
  if (tracer === undefined) {
    return measured
      ? { span: undefined, context: undefined, measured }
      : undefined;
  }
  const { context, isSpanContextValid, propagation, SpanKind, trace } =
    loadOpenTelemetryApi();
  const active = context.active();
  const activeSpan = trace.getSpanContext(active);
  const nested = activeSpan !== undefined && isSpanContextValid(activeSpan);
  const parent = nested
    ? active
    : propagation.extract(active, request.headers, HEADERS_GETTER);
  const method = request.method;
  const scheme = schemeOf(request.url);
  const span = tracer.startSpan(method, {
    kind: nested ? SpanKind.INTERNAL : SpanKind.SERVER,
    attributes: { "http.request.method": method, "url.scheme": scheme },
  }, parent);
  if (span.isRecording()) {
    span.setAttribute("url.path", pathOf(request.url));
    span.setAttribute("kit.request_id", requestId);
    try {
      const url = new URL(request.url);
      span.setAttribute("server.address", url.hostname);
      const port = url.port !== ""
        ? Number(url.port)
        : scheme === "https"
        ? 443
        : scheme === "http"
        ? 80
        : undefined;
      if (port !== undefined) span.setAttribute("server.port", port);
    } catch {
      // A relative or odd URL: no address.
    }
    const agent = request.headers.get("user-agent");
    if (agent !== null) span.setAttribute("user_agent.original", agent);
  }
  return {
    span,
    context: isSpanContextValid(span.spanContext())
      ? trace.setSpan(parent, span)
      : undefined,
    measured,
  };
}

/**
 * Records the outcome of a request on its span, ends it, and records its
 * duration (`started` is its `performance.now()` at the start).
 */
export function endServerSpan(
  server: ServerSpan,
  request: Request,
  status: number,
  error: unknown,
  started: number,
): void {
  const { span } = server;
  let errorType: string | undefined;
  if (error !== undefined) {
    errorType = error instanceof Error ? error.name : "Error";
  } else if (status >= 500) {
    errorType = String(status);
  }
  if (span !== undefined && span.isRecording()) {
    const { SpanStatusCode } = loadOpenTelemetryApi();
    span.setAttribute("http.response.status_code", status);
    if (errorType !== undefined) {
      span.setAttribute("error.type", errorType);
      if (error !== undefined) {
        const message = maskSecretText(
          error instanceof Error ? error.message : String(error),
        );
        span.recordException(
          error instanceof Error
            ? { name: error.name, message, stack: maskStack(error, message) }
            : { name: "Error", message },
        );
        span.setStatus({ code: SpanStatusCode.ERROR, message });
      } else {
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
  }
  span?.end();
  if (!server.measured) return;
  const attributes: Attributes = {
    "http.request.method": request.method,
    "url.scheme": schemeOf(request.url),
    "http.response.status_code": status,
  };
  if (errorType !== undefined) attributes["error.type"] = errorType;
  durationOf().record((performance.now() - started) / 1000, attributes);
}

function maskStack(error: Error, message: string): string | undefined {
  return error.stack === undefined ? undefined : maskSecretText(error.stack)
    .replace(maskSecretText(error.message), message);
}

const HEALTH_VALUES: Record<HealthStatus, number> = {
  healthy: 1,
  degraded: 0.5,
  unhealthy: 0,
};

/**
 * The `kit.health.status` gauge of one application: `update` keeps the last
 * report, the gauge's callback reports each of its checks (1 healthy, 0.5
 * degraded, 0 unhealthy); `close` stops reporting them.
 */
export interface HealthGauge {
  update(report: HealthReport): void;
  close(): void;
}

/** Starts reporting an application's last health report as a gauge. */
export function healthGauge(): HealthGauge {
  let last: HealthReport | undefined;
  let registeredOn: ObservableGauge | undefined;
  const observe = (result: ObservableResult): void => {
    if (last === undefined) return;
    for (const [name, check] of Object.entries(last.checks)) {
      result.observe(HEALTH_VALUES[check.status], { "kit.health.check": name });
    }
  };
  return {
    update(report) {
      last = report;
      // No meter provider registered: nothing could read the gauge (the
      // API's no-op one keeps no callback), and the API is not loaded.
      const gauge = isOpenTelemetryRegistered("metrics")
        ? healthInstrumentOf()
        : undefined;
      if (registeredOn !== gauge) {
        registeredOn?.removeCallback(observe);
        gauge?.addCallback(observe);
        registeredOn = gauge;
      }
    },
    close() {
      last = undefined;
      registeredOn?.removeCallback(observe);
      registeredOn = undefined;
    },
  };
}
