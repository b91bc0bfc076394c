// app.handle() and the health gauge when the registered providers come from
// another copy of @opentelemetry/api than the one Kit loads (an application
// with its own copy, or the CommonJS build beside an ES one): every 1.x copy
// registers in the same global slot, so the application host must recognise
// the other copy's ProxyTracerProvider by its methods, not as an instance of
// its own copy's class, and follow its delegate when it changes. The health
// gauge, reported before any SDK, starts reporting once one registers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Application } from "../../platform/mod.ts";
import { installOtelSdk } from "../_support/otel_sdk.ts";
import {
  ForeignProxyTracerProvider,
  registry,
  sdkTracerProvider,
} from "../_support/foreign_otel.ts";

const SCOPE = "@vendor/kit-platform";

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
  const first = sdkTracerProvider(SCOPE);
  const second = sdkTracerProvider(SCOPE);
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
