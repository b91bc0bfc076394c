// HttpClient's telemetry when the registered providers come from another copy
// of @opentelemetry/api than the one Kit loads (an application with its own
// copy, or the CommonJS build beside an ES one): every 1.x copy registers in
// the same global slot, so HttpClient must recognise the other copy's
// ProxyTracerProvider by its methods, not as an instance of its own copy's
// class, and follow its delegate when it changes.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Meter, MeterOptions, MeterProvider } from "@opentelemetry/api";
import { HttpClient } from "../../http/mod.ts";
import { startCollector } from "../_support/http_server.ts";
import { installOtelSdk } from "../_support/otel_sdk.ts";
import {
  ForeignProxyTracerProvider,
  registry,
  sdkTracerProvider,
} from "../_support/foreign_otel.ts";

const SCOPE = "@vendor/kit-platform-http";
const HISTOGRAM = "http.client.request.duration";

test("HttpClient follows the delegate of a tracer provider registered by another copy of the API", async () => {
  await using server = await startCollector(200, { ok: true });
  const sdk = installOtelSdk();
  const slot = registry();
  const registered = slot.trace;
  const first = sdkTracerProvider(SCOPE);
  const second = sdkTracerProvider(SCOPE);
  try {
    const foreign = new ForeignProxyTracerProvider();
    foreign.delegate = first.provider;
    slot.trace = foreign;
    const client = new HttpClient(server.url);

    await client.get("/one");
    assert.ok(foreign.asked.includes(SCOPE), "the delegate's tracer is used");
    // The call's span and its attempt's.
    assert.deepEqual(first.names(), ["GET", "GET"]);

    foreign.delegate = second.provider;
    await client.post("/two", { json: {} });
    assert.deepEqual(first.names(), ["GET", "GET"]);
    assert.deepEqual(second.names(), ["POST", "POST"]);
    assert.match(
      String(server.requests[1].headers.traceparent),
      /^00-[\da-f]{32}-[\da-f]{16}-01$/,
    );
  } finally {
    slot.trace = registered;
    await sdk.uninstall();
    await first.provider.shutdown();
    await second.provider.shutdown();
  }
});

test("HttpClient records its histogram through a meter provider registered by another copy of the API", async () => {
  await using server = await startCollector(200, { ok: true });
  const sdk = installOtelSdk();
  const slot = registry();
  const registered = slot.metrics as MeterProvider;
  try {
    // A provider of another class that hands out the SDK's meters.
    const foreign: MeterProvider = {
      getMeter: (name: string, version?: string, options?: MeterOptions) =>
        registered.getMeter(name, version, options) as Meter,
    };
    slot.metrics = foreign;
    const client = new HttpClient(server.url);
    await client.get("/m");
    const points = (await sdk.collect()).filter((point) =>
      point.name === HISTOGRAM && point.scope === SCOPE
    );
    assert.equal(points.length, 1);
    assert.equal(points[0].count, 1);
    assert.equal(points[0].attributes["http.response.status_code"], 200);
  } finally {
    slot.metrics = registered;
    await sdk.uninstall();
  }
});

test("HttpClient stops recording when the providers are unregistered and records into the next SDK", async () => {
  await using server = await startCollector(200, { ok: true });
  const client = new HttpClient(server.url);
  const first = installOtelSdk();
  try {
    await client.get("/on");
    assert.equal(first.spans().length, 2);
  } finally {
    await first.uninstall();
  }
  await client.get("/off");
  assert.equal(server.requests[1].headers.traceparent, undefined);
  const second = installOtelSdk();
  try {
    await client.get("/again");
    assert.equal(second.spans().length, 2);
    assert.equal(
      (await second.collect()).filter((point) => point.name === HISTOGRAM)
        .length,
      1,
    );
    assert.notEqual(server.requests[2].headers.traceparent, undefined);
  } finally {
    await second.uninstall();
  }
});
