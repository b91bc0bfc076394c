// app.handle() and app.health() with the official OpenTelemetry SDK
// registered: the server span continues an incoming traceparent, carries the
// HTTP attributes and the request id, is active while the handler runs, and
// is an error on a 5xx or a throw; http.server.request.duration and
// kit.health.status get their points. Without an SDK nothing changes.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { Application } from "../../platform/mod.ts";
import { installOtelSdk, type OtelSdk } from "../_support/otel_sdk.ts";

const SCOPE = "@vendor/kit-platform";
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID = "b7ad6b7169203331";

const quiet = {
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
};

async function startApp(): Promise<Application> {
  return await Application.start({
    configuration: () => ({}),
    logging: () => quiet,
  });
}

describe("app.handle() with an OpenTelemetry SDK", () => {
  let sdk: OtelSdk;
  beforeEach(() => {
    sdk = installOtelSdk();
  });
  afterEach(async () => {
    await sdk.uninstall();
  });

  it("continues an incoming traceparent in a SERVER span named after the method", async () => {
    const app = await startApp();
    try {
      let inside: string | undefined;
      const handler = app.handle(() => {
        inside = trace.getActiveSpan()?.spanContext().spanId;
        return new Response("ok");
      });
      const response = await handler(
        new Request("http://api.example.test:8080/orders/7?token=s3cret", {
          headers: {
            traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
            tracestate: "vendor=abc",
            "user-agent": "kit-test/1.0",
            "x-request-id": "req-42",
          },
        }),
      );
      assert.equal(await response.text(), "ok");
      const [span] = sdk.spansNamed("GET");
      assert.ok(span, "a span named GET");
      assert.equal(span.kind, SpanKind.SERVER);
      assert.equal(span.instrumentationScope.name, SCOPE);
      assert.equal(span.spanContext().traceId, TRACE_ID);
      assert.equal(span.parentSpanContext?.spanId, PARENT_ID);
      assert.equal(span.parentSpanContext?.isRemote, true);
      assert.equal(span.spanContext().traceState?.get("vendor"), "abc");
      assert.equal(inside, span.spanContext().spanId, "active in the handler");
      assert.deepEqual(span.attributes, {
        "http.request.method": "GET",
        "url.scheme": "http",
        "url.path": "/orders/7",
        "kit.request_id": "req-42",
        "server.address": "api.example.test",
        "server.port": 8080,
        "user_agent.original": "kit-test/1.0",
        "http.response.status_code": 200,
      });
      assert.equal(span.status.code, SpanStatusCode.UNSET);
    } finally {
      await app.stop();
    }
  });

  it("starts a new trace without a traceparent, and lets the handler name the route", async () => {
    const app = await startApp();
    try {
      const handler = app.handle(() => {
        const span = trace.getActiveSpan();
        span?.updateName("POST /orders/:id");
        span?.setAttribute("http.route", "/orders/:id");
        return new Response(null, { status: 201 });
      });
      await handler(
        new Request("https://shop.test/orders/9", { method: "POST" }),
      );
      const [span] = sdk.spansNamed("POST /orders/:id");
      assert.ok(span);
      assert.equal(span.parentSpanContext, undefined);
      assert.equal(span.attributes["http.route"], "/orders/:id");
      assert.equal(span.attributes["server.port"], 443);
      assert.equal(span.attributes["http.response.status_code"], 201);
    } finally {
      await app.stop();
    }
  });

  it("marks a thrown error as ERROR with the exception, its secrets masked", async () => {
    const app = await startApp();
    try {
      const handler = app.handle(() => {
        throw new Error("upstream refused password=hunter2");
      });
      const response = await handler(new Request("http://localhost/fail"));
      assert.equal(response.status, 500);
      const [span] = sdk.spansNamed("GET");
      assert.equal(span.status.code, SpanStatusCode.ERROR);
      assert.ok(!span.status.message?.includes("hunter2"));
      assert.match(span.status.message ?? "", /upstream refused/);
      assert.equal(span.attributes["error.type"], "Error");
      assert.equal(span.attributes["http.response.status_code"], 500);
      const exception = span.events.find((event) => event.name === "exception");
      assert.ok(exception, "an exception event");
      assert.ok(
        !JSON.stringify(exception.attributes).includes("hunter2"),
        "the exception holds no secret",
      );
    } finally {
      await app.stop();
    }
  });

  it("marks a 5xx answer as ERROR and a 4xx answer as not", async () => {
    const app = await startApp();
    try {
      const handler = app.handle((request) =>
        new Response(null, {
          status: new URL(request.url).pathname === "/busy" ? 503 : 404,
        })
      );
      await handler(new Request("http://localhost/busy"));
      await handler(new Request("http://localhost/missing"));
      const [busy, missing] = sdk.spansNamed("GET");
      assert.equal(busy.status.code, SpanStatusCode.ERROR);
      assert.equal(busy.attributes["error.type"], "503");
      assert.equal(missing.status.code, SpanStatusCode.UNSET);
      assert.equal(missing.attributes["error.type"], undefined);
    } finally {
      await app.stop();
    }
  });

  it("is a child of a span already active (a runtime's own server span)", async () => {
    const app = await startApp();
    try {
      const handler = app.handle(() => new Response("ok"));
      const outer = trace.getTracer("runtime").startSpan("outer");
      await context.with(
        trace.setSpan(context.active(), outer),
        () =>
          handler(
            new Request("http://localhost/", {
              headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
            }),
          ),
      );
      outer.end();
      const [span] = sdk.spansNamed("GET");
      assert.equal(span.kind, SpanKind.INTERNAL);
      assert.equal(span.spanContext().traceId, outer.spanContext().traceId);
      assert.equal(span.parentSpanContext?.spanId, outer.spanContext().spanId);
    } finally {
      await app.stop();
    }
  });

  it("records http.server.request.duration per request, in seconds", async () => {
    const app = await startApp();
    try {
      const handler = app.handle((request) =>
        new URL(request.url).pathname === "/boom"
          ? Promise.reject(new TypeError("bad"))
          : new Response("ok")
      );
      await handler(new Request("http://localhost/a"));
      await handler(new Request("http://localhost/b"));
      await handler(new Request("http://localhost/boom"));
      const points = (await sdk.collect()).filter((point) =>
        point.name === "http.server.request.duration"
      );
      assert.equal(points.length, 2, JSON.stringify(points));
      const ok = points.find((point) =>
        point.attributes["http.response.status_code"] === 200
      )!;
      assert.equal(ok.unit, "s");
      assert.equal(ok.scope, SCOPE);
      assert.equal(ok.count, 2);
      assert.ok(ok.sum! >= 0 && ok.sum! < 60, `seconds, got ${ok.sum}`);
      assert.deepEqual(ok.attributes, {
        "http.request.method": "GET",
        "url.scheme": "http",
        "http.response.status_code": 200,
      });
      const failed = points.find((point) =>
        point.attributes["http.response.status_code"] === 500
      )!;
      assert.equal(failed.count, 1);
      assert.equal(failed.attributes["error.type"], "TypeError");
    } finally {
      await app.stop();
    }
  });

  it("reports kit.health.status per check from the last health report", async () => {
    let cacheStatus: "healthy" | "degraded" = "degraded";
    const app = await startApp();
    try {
      app.addHealthCheck("database", () => ({ status: "healthy" }));
      app.addHealthCheck("cache", () => ({ status: cacheStatus }));
      app.addHealthCheck("mail", () => ({ status: "unhealthy" }), {
        critical: false,
      });
      assert.deepEqual(
        (await sdk.collect()).filter((p) => p.name === "kit.health.status"),
        [],
        "no report yet: no points",
      );
      await app.health();
      const values = async (): Promise<Record<string, number | undefined>> =>
        Object.fromEntries(
          (await sdk.collect())
            .filter((point) => point.name === "kit.health.status")
            .map((
              point,
            ) => [point.attributes["kit.health.check"], point.value]),
        );
      assert.deepEqual(await values(), { database: 1, cache: 0.5, mail: 0 });
      cacheStatus = "healthy";
      await app.health();
      assert.deepEqual(await values(), { database: 1, cache: 1, mail: 0 });
    } finally {
      await app.stop();
    }
  });
});

describe("app.handle() without an OpenTelemetry SDK", () => {
  it("answers as before and makes no span active", async () => {
    const app = await startApp();
    try {
      let active: unknown = "unset";
      const handler = app.handle(() => {
        active = trace.getActiveSpan();
        return new Response("ok");
      });
      const response = await handler(
        new Request("http://localhost/", {
          headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
        }),
      );
      assert.equal(await response.text(), "ok");
      assert.equal(active, undefined);
      assert.ok(response.headers.get("x-request-id"));
    } finally {
      await app.stop();
    }
  });
});
