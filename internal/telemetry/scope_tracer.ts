import type { TracerProvider } from "@opentelemetry/api";
import {
  isOpenTelemetryRegistered,
  type OpenTelemetryApi,
} from "./open_telemetry.ts";

/** A tracer of `@opentelemetry/api`, as `trace.getTracer()` returns it. */
export type OpenTelemetryTracer = ReturnType<
  OpenTelemetryApi["trace"]["getTracer"]
>;
type Tracer = OpenTelemetryTracer;

// The API's ProxyTracerProvider, of whichever copy of the API registered it:
// the API registers its proxy and hands it the SDK's provider as delegate.
interface ProxyLike extends TracerProvider {
  getDelegate(): TracerProvider;
  getDelegateTracer(name: string): Tracer | undefined;
}

function isProxy(provider: TracerProvider): provider is ProxyLike {
  return typeof (provider as Partial<ProxyLike>).getDelegate === "function" &&
    typeof (provider as Partial<ProxyLike>).getDelegateTracer === "function";
}

/**
 * Makes a getter for the tracer of one instrumentation scope, for code that
 * starts spans on a hot path. The getter answers `undefined` while no
 * tracer provider is registered; otherwise it takes the registered
 * provider's own tracer from behind the API's proxy (so each span skips the
 * proxy), recognising the proxy of any copy of the API by its methods, and
 * makes the tracer again whenever the registered provider changes (an SDK
 * registered, replaced or removed later, as tests do).
 *
 * @param scope The instrumentation scope (a package name).
 * @returns The getter; it takes the loaded API (see
 * {@linkcode loadOpenTelemetryApi}).
 *
 * @example A span only while a tracer provider is registered
 * ```ts
 * import { createScopeTracer } from "./scope_tracer.ts";
 * import {
 *   isOpenTelemetryRegistered,
 *   loadOpenTelemetryApi,
 * } from "./open_telemetry.ts";
 *
 * const tracerOf = createScopeTracer("my-library");
 * if (isOpenTelemetryRegistered("trace")) {
 *   tracerOf(loadOpenTelemetryApi())?.startSpan("work").end();
 * }
 * ```
 */
export function createScopeTracer(
  scope: string,
): (api: OpenTelemetryApi) => OpenTelemetryTracer | undefined {
  // What the tracer was taken from: the provider behind the proxy, or the
  // registered provider itself.
  let source: unknown;
  let tracer: Tracer | undefined;
  return (api) => {
    if (!isOpenTelemetryRegistered("trace")) {
      // Forgotten, as a change of provider would be.
      source = undefined;
      return tracer = undefined;
    }
    const provider = api.trace.getTracerProvider();
    if (isProxy(provider)) {
      const delegate = provider.getDelegate();
      if (delegate !== source) {
        source = delegate;
        tracer = provider.getDelegateTracer(scope);
      }
      return tracer;
    }
    if (provider !== source) {
      source = provider;
      tracer = provider.getTracer(scope);
    }
    return tracer;
  };
}
