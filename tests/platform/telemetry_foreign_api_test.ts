// app.handle() and the health gauge when the registered providers come from
// another copy of @opentelemetry/api than the one Kit loads (an application
// with its own copy, or the CommonJS build beside an ES one): every 1.x copy
// registers in the same global slot, so the application host must recognise
// the other copy's ProxyTracerProvider by its methods, not as an instance of
// its own copy's class, and follow its delegate when it changes. The health
// gauge, reported before any SDK, starts reporting once one registers.
import { test } from "node:test";
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
import { Application } from "../../platform/mod.ts";
import { installOtelSdk } from "../_support/otel_sdk.ts";

const SCOPE = "@vendor/kit-platform";

/** Where every copy of the API 1.x keeps what is registered. */
const REGISTRY = Symbol.for("opentelemetry.js.api.1");
type Registry = { trace?: unknown; metrics?: unknown };
function registry(): Registry {
  const slot = (globalThis as unknown as Record<symbol, Registry | undefined>)[
    REGISTRY
  ];
  assert.ok(slot, "the SDK registered its providers");
  return slot;
}

/**
 * Another copy's ProxyTracerProvider: the same methods, not the same class.
 * Like the API's, its tracers cache the first delegate tracer they find, so
 * a host that took a tracer from `getTracer` would keep recording into the
 * first delegate.
 */
class ForeignProxyTracerProvider implements TracerProvider {
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

/** An SDK tracer provider of its own, with the names of Kit's spans. */
function sdkTracerProvider(): {
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
        .filter((span) => span.instrumentationScope.name === SCOPE)
        .map((span) => span.name),
  };
}

const quiet = {
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
};

test("app.handle() follows the delegate of a tracer provider registered by another copy of the API", async () => {
  const sdk = installOtelSdk();
  const slot = registry();
  const registered = slot.trace;
  const first = sdkTracerProvider();
  const second = sdkTracerProvider();
  const app = await Application.start({
    configuration: () => ({}),
    logging: () => quiet,
  });
  try {
    const foreign = new ForeignProxyTracerProvider();
    foreign.delegate = first.provider;
    slot.trace = foreign;
    const handler = app.handle(() => new Response("ok"));

    await handler(new Request("http://localhost/one"));
    assert.ok(foreign.asked.includes(SCOPE), "the delegate's tracer is used");
    assert.deepEqual(first.names(), ["GET"]);

    foreign.delegate = second.provider;
    await handler(new Request("http://localhost/two", { method: "POST" }));
    assert.deepEqual(first.names(), ["GET"]);
    assert.deepEqual(second.names(), ["POST"]);
  } finally {
    slot.trace = registered;
    await app.stop();
    await sdk.uninstall();
    await first.provider.shutdown();
    await second.provider.shutdown();
  }
});

test("the health gauge reported before any SDK reports once one registers, and stops when it is gone", async () => {
  const app = await Application.start({
    configuration: () => ({}),
    logging: () => quiet,
  });
  try {
    app.addHealthCheck("database", () => ({ status: "healthy" }));
    await app.health();
    const sdk = installOtelSdk();
    try {
      const points = async (): Promise<number> =>
        (await sdk.collect()).filter((point) =>
          point.name === "kit.health.status"
        ).length;
      assert.equal(await points(), 0, "no report since the SDK registered");
      await app.health();
      assert.equal(await points(), 1);
    } finally {
      await sdk.uninstall();
    }
    // Without an SDK again, a report costs nothing and fails nothing.
    assert.equal((await app.health()).status, "healthy");
  } finally {
    await app.stop();
  }
});
