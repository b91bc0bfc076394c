// Stand-ins for another copy of @opentelemetry/api than the one Kit loads
// (an application with its own copy, or the CommonJS build beside an ES
// one): every 1.x copy registers in the same global slot, so Kit must
// recognise the other copy's ProxyTracerProvider by its methods, not as an
// instance of its own copy's class, and follow its delegate when it changes.
import assert from "node:assert/strict";
import {
  ProxyTracer,
  type Tracer,
  type TracerOptions,
  type TracerProvider,
} from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider as SdkTracerProvider,
} from "@opentelemetry/sdk-trace";

/** Where every copy of the API 1.x keeps what is registered. */
const REGISTRY = Symbol.for("opentelemetry.js.api.1");

/** The registered parts, as the global slot holds them. */
export type Registry = { trace?: unknown; metrics?: unknown };

/** The global slot; fails the test when nothing registered it. */
export function registry(): Registry {
  const slot = (globalThis as unknown as Record<symbol, Registry | undefined>)[
    REGISTRY
  ];
  assert.ok(slot, "the SDK registered its providers");
  return slot;
}

/**
 * Another copy's ProxyTracerProvider: the same methods, not the same class.
 * Like the API's, its tracers cache the first delegate tracer they find, so
 * code that took a tracer from `getTracer` would keep recording into the
 * first delegate.
 */
export class ForeignProxyTracerProvider implements TracerProvider {
  delegate: TracerProvider | undefined;
  readonly asked: string[] = [];
  getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    return new ProxyTracer(this, name, version, options);
  }
  getDelegate(): TracerProvider {
    return this.delegate ?? { getTracer: () => assert.fail("no delegate") };
  }
  getDelegateTracer(
    name: string,
    version?: string,
    options?: TracerOptions,
  ): Tracer | undefined {
    this.asked.push(name);
    return this.delegate?.getTracer(name, version, options);
  }
}

/** An SDK tracer provider of its own, with the names of a scope's spans. */
export function sdkTracerProvider(scope: string): {
  provider: SdkTracerProvider;
  names: () => string[];
} {
  const exporter = new InMemorySpanExporter();
  const provider = new SdkTracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  return {
    provider,
    names: () =>
      exporter.getFinishedSpans()
        .filter((span) => span.instrumentationScope.name === scope)
        .map((span) => span.name),
  };
}
