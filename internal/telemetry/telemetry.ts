// The preamble Kit's instrumented modules share. A module's tracer and
// counters are made on first use and again whenever the global provider
// changes: the API's meter provider is not a proxy (an instrument made
// before an SDK registers would stay a no-op for good), trace.disable()
// replaces the proxy tracer provider, and a test may register and remove
// SDKs one after another. The API itself is loaded only on a path that
// already knows a provider is registered, so a process without an SDK never
// loads it.
import type {
  Attributes,
  Counter,
  MeterProvider,
  MetricOptions,
  Tracer,
  TracerProvider,
} from "@opentelemetry/api";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
} from "./open_telemetry.ts";
import { memoizeLast } from "../memoize_last.ts";

/**
 * The tracer of `scope` from a tracer provider, kept while the provider
 * stays the same.
 *
 * @param scope The instrumentation scope (the npm package's name).
 * @returns A getter taking the global tracer provider.
 *
 * @example Usage
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * import { scopeTracer } from "./telemetry.ts";
 *
 * const tracerOf = scopeTracer("@vendor/kit-platform-logging");
 * tracerOf(trace.getTracerProvider()).startSpan("work").end();
 * ```
 */
export function scopeTracer(
  scope: string,
): (provider: TracerProvider) => Tracer {
  return memoizeLast((provider: TracerProvider): Tracer =>
    provider.getTracer(scope)
  );
}

/**
 * A counter of `scope` from a meter provider, kept while the provider stays
 * the same.
 *
 * @param scope The instrumentation scope (the npm package's name).
 * @param name The counter's name.
 * @param options Its description and unit.
 * @returns A getter taking the global meter provider.
 *
 * @example Usage
 * ```ts
 * import { addCount, scopeCounter } from "./telemetry.ts";
 *
 * const recordsOf = scopeCounter("@vendor/kit-platform-logging", "kit.log.records", {
 *   unit: "{record}",
 * });
 * addCount(recordsOf, 3, { "kit.outcome": "delivered" });
 * ```
 */
export function scopeCounter(
  scope: string,
  name: string,
  options: MetricOptions,
): (provider: MeterProvider) => Counter {
  return memoizeLast((provider: MeterProvider): Counter =>
    provider.getMeter(scope).createCounter(name, options)
  );
}

/**
 * Adds `count` to a counter of the global meter provider. Nothing happens,
 * and the API is not loaded, when `count` is not positive or no meter
 * provider is registered (the API's global one would be a no-op).
 *
 * @param counterOf The counter's getter ({@linkcode scopeCounter}).
 * @param count How many to add.
 * @param attributes The data point's attributes.
 *
 * @example Usage
 * ```ts
 * import { addCount, scopeCounter } from "./telemetry.ts";
 *
 * const eventsOf = scopeCounter("scope", "kit.things", { unit: "{thing}" });
 * addCount(eventsOf, 1, { "kit.outcome": "dropped" });
 * ```
 */
export function addCount(
  counterOf: (provider: MeterProvider) => Counter,
  count: number,
  attributes: Attributes,
): void {
  if (count <= 0 || !isOpenTelemetryRegistered("metrics")) return;
  counterOf(loadOpenTelemetryApi().metrics.getMeterProvider()).add(
    count,
    attributes,
  );
}

/** `server.address` and `server.port` of an endpoint. */
export type ServerAttributes = Readonly<Record<string, string | number>>;

/**
 * The server attributes of an endpoint: its host name and port (the
 * scheme's default for http and https), never its credentials, path or
 * query, where a key may travel. Empty for an address that is no URL.
 *
 * @param endpoint The address requests go to.
 * @returns `server.address` and, where known, `server.port`.
 *
 * @example Usage
 * ```ts
 * import { serverAttributes } from "./telemetry.ts";
 *
 * serverAttributes("https://collector.example/v1/logs?key=secret");
 * // { "server.address": "collector.example", "server.port": 443 }
 * ```
 */
export function serverAttributes(endpoint: string): ServerAttributes {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return {};
  }
  const port = url.port !== ""
    ? Number(url.port)
    : url.protocol === "https:"
    ? 443
    : url.protocol === "http:"
    ? 80
    : undefined;
  return port === undefined
    ? { "server.address": url.hostname }
    : { "server.address": url.hostname, "server.port": port };
}
