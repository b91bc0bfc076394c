// Caching's OpenTelemetry hooks, all through @opentelemetry/api (a no-op
// until an SDK, or Deno's built-in exporter, is registered):
// - the span "cache getOrSet" around each factory run of getOrSet (miss,
//   stale value served, refresh ahead of expiry), the factory inside it;
// - the event "cache.hit" on the caller's span, only when one is recording;
// - the counter `kit.cache.requests` per area and result.
//
// The counter is asynchronous: the CacheManager already counts hits, misses,
// stale values served, refreshes and factory errors for stats(), so the same
// counts are kept per area name for the whole process and read at each
// collection. With no context manager registered, a hit costs one more
// increment and two property reads (isOpenTelemetryRegistered), and no call
// into the API.
//
// The API's global meter provider is NOT a proxy (metrics.getMeter() before
// an SDK is registered returns a no-op meter for good), and trace.disable()
// replaces the proxy tracer provider: both are got again whenever the global
// provider changes (one global look-up when a scope is made, per factory run
// and at every 1,024th hit of an area for the meter provider).
//
// The API itself is reached only through loadOpenTelemetryApi() (internal/telemetry/open_telemetry.ts), and
// only once isOpenTelemetryRegistered() found something registered: in
// Node.js and Bun a process without an SDK never loads it.
import type {
  Attributes,
  MeterProvider,
  ObservableResult,
  Span,
} from "@opentelemetry/api";
import { maskSecretText } from "../core/mod.ts";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
} from "../internal/telemetry/open_telemetry.ts";
import { scopeTracer } from "../internal/telemetry/telemetry.ts";
import { NON_RECORDING_SPAN } from "../internal/telemetry/non_recording_span.ts";

/** The instrumentation scope: the npm package's name. */
export const CACHING_SCOPE = "@vendor/kit-platform-caching";

/** The name of the span around a factory run. */
export const SPAN_NAME = "cache getOrSet";

/** What a getOrSet call (or a get) came to, as `kit.cache.result`. */
export type CacheResult = "hit" | "miss" | "stale" | "refresh" | "error";

/** Counts of one scope, or of one area name across the process. */
export interface Counters {
  hits: number;
  misses: number;
  staleServed: number;
  backgroundRefreshes: number;
  factoryErrors: number;
}

export function newCounters(): Counters {
  return {
    hits: 0,
    misses: 0,
    staleServed: 0,
    backgroundRefreshes: 0,
    factoryErrors: 0,
  };
}

/** An area's counts for the whole process. */
export type AreaTotals = Counters;

/** The attribute sets of one area, made once. */
export interface AreaTelemetry {
  /** The area's counts for the whole process (every manager). */
  readonly totals: AreaTotals;
  readonly hit: Attributes;
  readonly miss: Attributes;
  readonly stale: Attributes;
  readonly refresh: Attributes;
  readonly error: Attributes;
}

function attributesOf(area: string, result: CacheResult): Attributes {
  return area === ""
    ? { "kit.cache.result": result }
    : { "kit.cache.area": area, "kit.cache.result": result };
}

const areas = new Map<string, AreaTelemetry>();

/**
 * The telemetry of an area ("" for keys outside any area, which carry no
 * `kit.cache.area`), shared by every manager of the process.
 */
export function areaTelemetry(area: string): AreaTelemetry {
  let found = areas.get(area);
  if (found === undefined) {
    found = {
      totals: newCounters(),
      hit: attributesOf(area, "hit"),
      miss: attributesOf(area, "miss"),
      stale: attributesOf(area, "stale"),
      refresh: attributesOf(area, "refresh"),
      error: attributesOf(area, "error"),
    };
    areas.set(area, found);
  }
  ensureMetrics();
  return found;
}

function observe(result: ObservableResult): void {
  for (const area of areas.values()) {
    const totals = area.totals;
    if (totals.hits > 0) result.observe(totals.hits, area.hit);
    if (totals.misses > 0) result.observe(totals.misses, area.miss);
    if (totals.staleServed > 0) result.observe(totals.staleServed, area.stale);
    if (totals.backgroundRefreshes > 0) {
      result.observe(totals.backgroundRefreshes, area.refresh);
    }
    if (totals.factoryErrors > 0) {
      result.observe(totals.factoryErrors, area.error);
    }
  }
}

let meterProvider: MeterProvider | undefined;

/** Registers `kit.cache.requests` with the global meter provider, once each. */
export function ensureMetrics(): void {
  if (!isOpenTelemetryRegistered("metrics")) return;
  const provider = loadOpenTelemetryApi().metrics.getMeterProvider();
  if (provider === meterProvider) return;
  meterProvider = provider;
  provider.getMeter(CACHING_SCOPE).createObservableCounter(
    "kit.cache.requests",
    {
      description:
        "Cache reads by area and result: hit, miss, stale (a stale value served), refresh (a background refresh started), error (a factory failed)",
      unit: "{request}",
    },
  ).addCallback(observe);
}

const tracerOf = scopeTracer(CACHING_SCOPE);

/**
 * Looks for a new meter provider (at every 1,024th hit of an area).
 */
export function checkTelemetry(): void {
  ensureMetrics();
}

/**
 * Adds the event `cache.hit` to the active span when it records; nothing
 * else (no span of its own) on a hit. Without a registered context manager
 * no span is active: two property reads, no call into the API.
 */
export function noteHit(attributes: Attributes): void {
  if (!isOpenTelemetryRegistered("context")) return;
  const span = loadOpenTelemetryApi().trace.getActiveSpan();
  if (span !== undefined && span.isRecording()) {
    span.addEvent("cache.hit", attributes);
  }
}

// A factory run with no tracer provider registered gets internal/'s
// NON_RECORDING_SPAN, so it never loads the API.
const UNTRACED: RunSpan = {
  span: NON_RECORDING_SPAN,
  run: (fn) => fn(),
};

/** One factory run's span and the context the factory runs in. */
export interface RunSpan {
  readonly span: Span;
  /** Runs `fn` with the span active. */
  run<T>(fn: () => T): T;
}

/**
 * Starts the span of a factory run, a child of the active span, with
 * `kit.cache.area` and `kit.cache.result` (`miss`, `stale` or `refresh`).
 */
export function startRun(attributes: Attributes): RunSpan {
  ensureMetrics();
  // Without a tracer provider, the span would be a non-recording copy of
  // the caller's: the factory then simply runs in the caller's context.
  if (!isOpenTelemetryRegistered("trace")) return UNTRACED;
  const { context, trace } = loadOpenTelemetryApi();
  const parent = context.active();
  const span = tracerOf(trace.getTracerProvider()).startSpan(SPAN_NAME, {
    attributes,
  }, parent);
  const active = trace.setSpan(parent, span);
  return { span, run: (fn) => context.with(active, fn) };
}

/** Ends a factory run's span as failed: result `error`, status ERROR. */
export function failRun(span: Span, error: unknown): void {
  try {
    if (!span.isRecording()) return;
    const message = maskSecretText(
      error instanceof Error ? error.message : String(error),
    );
    span.setAttribute("kit.cache.result", "error");
    span.recordException({
      name: error instanceof Error ? error.name : "Error",
      message,
      stack: error instanceof Error && error.stack !== undefined
        ? maskSecretText(error.stack)
        : undefined,
    });
    // A recording span comes from a registered tracer provider: startRun
    // has loaded the API already.
    span.setStatus({
      code: loadOpenTelemetryApi().SpanStatusCode.ERROR,
      message,
    });
  } finally {
    span.end();
  }
}
