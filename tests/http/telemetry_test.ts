// HttpClient's OpenTelemetry spans, trace headers and duration histogram,
// recorded by the official SDK (tests/_support/otel_sdk.ts: in-memory span
// exporter behind a simple processor, a metric reader collected on demand,
// the AsyncLocalStorage context manager and the W3C propagator) against a
// real loopback server that records the traceparent it receives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import {
  HttpClient,
  HttpError,
  type HttpInterceptor,
  TimeoutError,
} from "../../http/mod.ts";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import { installOtelSdk, type OtelSdk } from "../_support/otel_sdk.ts";

const SCOPE = "@vendor/kit-platform-http";
const HISTOGRAM = "http.client.request.duration";

/** Runs `fn` with the SDK registered, unregistering every global after. */
async function withSdk(fn: (sdk: OtelSdk) => Promise<void>): Promise<void> {
  const sdk = installOtelSdk();
  try {
    await fn(sdk);
  } finally {
    await sdk.uninstall();
  }
}

/** The spans HttpClient made: the calls (INTERNAL) and attempts (CLIENT). */
function httpSpans(sdk: OtelSdk): {
  calls: ReadableSpan[];
  attempts: ReadableSpan[];
} {
  const spans = sdk.spans().filter((span) =>
    span.instrumentationScope.name === SCOPE
  );
  return {
    calls: spans.filter((span) => span.kind === SpanKind.INTERNAL),
    attempts: spans.filter((span) => span.kind === SpanKind.CLIENT),
  };
}

function parentIdOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** `traceparent` as `[traceId, parentId, flags]`. */
function parseTraceparent(value: unknown): string[] {
  assert.equal(typeof value, "string", "a traceparent header was sent");
  const parts = (value as string).split("-");
  assert.equal(parts.length, 4);
  assert.equal(parts[0], "00");
  return parts.slice(1);
}

test("HttpClient makes a call span with one attempt span under it, and sends the attempt's traceparent", async () => {
  await using server = await startCollector(200, { ok: true });
  await withSdk(async (sdk) => {
    const client = new HttpClient(server.url);
    const outer = trace.getTracer("test").startSpan("outer");
    await context.with(
      trace.setSpan(context.active(), outer),
      () => client.get("/items/7?token=abc"),
    );
    outer.end();

    const { calls, attempts } = httpSpans(sdk);
    assert.equal(calls.length, 1);
    assert.equal(attempts.length, 1);
    const [call] = calls;
    const [attempt] = attempts;
    assert.equal(call.name, "GET");
    assert.equal(attempt.name, "GET");
    assert.equal(parentIdOf(call), outer.spanContext().spanId);
    assert.equal(call.spanContext().traceId, outer.spanContext().traceId);
    assert.equal(parentIdOf(attempt), call.spanContext().spanId);
    assert.equal(attempt.spanContext().traceId, call.spanContext().traceId);

    // The query string (a token here) stays out of the spans.
    assert.equal(call.attributes["url.full"], `${server.url}/items/7`);
    assert.deepEqual(attempt.attributes, {
      "http.request.method": "GET",
      "url.full": `${server.url}/items/7`,
      "server.address": "127.0.0.1",
      "server.port": Number(new URL(server.url).port),
      "http.response.status_code": 200,
    });
    assert.equal(call.status.code, SpanStatusCode.UNSET);
    assert.equal(attempt.status.code, SpanStatusCode.UNSET);

    const [traceId, parentId, flags] = parseTraceparent(
      server.requests[0].headers.traceparent,
    );
    assert.equal(traceId, attempt.spanContext().traceId);
    assert.equal(parentId, attempt.spanContext().spanId);
    assert.equal(flags, "01");
  });
});

test("HttpClient makes one sibling attempt span per retry, with http.request.resend_count", async () => {
  let seen = 0;
  await using server = await startTestServer((_request, response) => {
    seen++;
    sendJson(response, seen <= 2 ? 503 : 200, { seen });
  });
  await withSdk(async (sdk) => {
    const client = new HttpClient(server.url, {
      retryAttempts: 3,
      retryDelay: 1,
      retryJitter: 0,
    });
    assert.deepEqual(await client.get("/flaky"), { seen: 3 });

    const { calls, attempts } = httpSpans(sdk);
    assert.equal(calls.length, 1);
    assert.equal(attempts.length, 3);
    const callId = calls[0].spanContext().spanId;
    for (const attempt of attempts) {
      assert.equal(parentIdOf(attempt), callId, "siblings under the call");
    }
    assert.deepEqual(
      attempts.map((span) => [
        span.attributes["http.request.resend_count"],
        span.attributes["http.response.status_code"],
        span.attributes["error.type"],
        span.status.code,
      ]),
      [
        [undefined, 503, "503", SpanStatusCode.ERROR],
        [1, 503, "503", SpanStatusCode.ERROR],
        [2, 200, undefined, SpanStatusCode.UNSET],
      ],
    );
    assert.equal(calls[0].status.code, SpanStatusCode.UNSET);

    // Each request carried its own attempt's span id, all in one trace.
    assert.equal(server.requests.length, 3);
    server.requests.forEach((request, i) => {
      const [traceId, parentId] = parseTraceparent(request.headers.traceparent);
      assert.equal(traceId, calls[0].spanContext().traceId);
      assert.equal(parentId, attempts[i].spanContext().spanId);
    });

    const points = (await sdk.collect()).filter((point) =>
      point.name === HISTOGRAM
    );
    const port = Number(new URL(server.url).port);
    assert.deepEqual(
      points.map((point) => [point.scope, point.unit, point.attributes]),
      [
        [SCOPE, "s", {
          "http.request.method": "GET",
          "server.address": "127.0.0.1",
          "server.port": port,
          "http.response.status_code": 503,
          "error.type": "503",
        }],
        [SCOPE, "s", {
          "http.request.method": "GET",
          "server.address": "127.0.0.1",
          "server.port": port,
          "http.response.status_code": 200,
        }],
      ],
    );
    assert.deepEqual(points.map((point) => point.count), [2, 1]);
    for (const point of points) assert.ok(point.sum! >= 0);
  });
});

test("HttpClient records a timed-out attempt and call as errors with error.type timeout", async () => {
  // Never answers: the attempt's timeout ends it.
  await using server = await startTestServer(() => {});
  await withSdk(async (sdk) => {
    const client = new HttpClient(server.url, {
      timeout: 50,
      retryAttempts: 0,
    });
    await assert.rejects(client.get("/slow"), TimeoutError);

    const { calls, attempts } = httpSpans(sdk);
    assert.equal(calls.length, 1);
    assert.equal(attempts.length, 1);
    for (const span of [calls[0], attempts[0]]) {
      assert.equal(span.status.code, SpanStatusCode.ERROR);
      assert.match(span.status.message ?? "", /timed out|timeout/i);
      assert.equal(span.attributes["error.type"], "timeout");
      const exception = span.events.find((event) => event.name === "exception");
      assert.equal(exception?.attributes?.["exception.type"], "TimeoutError");
    }
    assert.equal(
      attempts[0].attributes["http.response.status_code"],
      undefined,
    );

    const [point] = (await sdk.collect()).filter((p) => p.name === HISTOGRAM);
    assert.equal(point.count, 1);
    assert.equal(point.attributes["error.type"], "timeout");
    assert.equal(point.attributes["http.response.status_code"], undefined);
  });
});

test("HttpClient marks a call that throws HttpError with its status as error.type", async () => {
  await using server = await startCollector(404, { error: "not found" });
  await withSdk(async (sdk) => {
    const client = new HttpClient(server.url);
    await assert.rejects(client.get("/missing"), HttpError);
    const { calls, attempts } = httpSpans(sdk);
    assert.equal(calls[0].attributes["error.type"], "404");
    assert.equal(calls[0].status.code, SpanStatusCode.ERROR);
    assert.equal(attempts[0].attributes["http.response.status_code"], 404);
    assert.equal(attempts[0].attributes["error.type"], "404");
    assert.equal(attempts[0].status.code, SpanStatusCode.ERROR);
  });
});

test("HttpClient names a network failure's error.type after the error class, and masks secrets in the status message", async () => {
  const client = new HttpClient("http://127.0.0.1:9", {
    retryAttempts: 0,
    fetch: () =>
      Promise.reject(new TypeError("connect refused: password=hunter2-secret")),
  });
  await withSdk(async (sdk) => {
    await assert.rejects(client.get("/x"), TypeError);
    const { calls, attempts } = httpSpans(sdk);
    for (const span of [calls[0], attempts[0]]) {
      assert.equal(span.attributes["error.type"], "TypeError");
      assert.equal(span.status.code, SpanStatusCode.ERROR);
      assert.doesNotMatch(span.status.message ?? "", /hunter2/);
    }
    assert.equal(attempts[0].attributes["server.port"], 9);
  });
});

test("HttpClient runs interceptors with the attempt's span active and sends its traceparent", async () => {
  await using server = await startCollector();
  await withSdk(async (sdk) => {
    const seen: (string | undefined)[] = [];
    const interceptor: HttpInterceptor = {
      intercept(request) {
        seen.push(trace.getActiveSpan()?.spanContext().spanId);
        request.headers.set("x-intercepted", "yes");
      },
    };
    const client = new HttpClient(server.url).addInterceptor(interceptor);
    await client.get("/x");
    const { attempts } = httpSpans(sdk);
    assert.deepEqual(seen, [attempts[0].spanContext().spanId]);
    const [, parentId] = parseTraceparent(
      server.requests[0].headers.traceparent,
    );
    assert.equal(parentId, attempts[0].spanContext().spanId);
    assert.equal(server.requests[0].headers["x-intercepted"], "yes");
  });
});

test("HttpClient sends no trace headers and records nothing when no SDK is registered", async () => {
  await using server = await startCollector(200, { ok: true });
  const client = new HttpClient(server.url);
  assert.deepEqual(await client.get("/x"), { ok: true });
  assert.equal(server.requests[0].headers.traceparent, undefined);
  assert.equal(server.requests[0].headers.tracestate, undefined);
});
