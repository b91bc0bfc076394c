// One trace across two processes, with the real OpenTelemetry SDK: a
// request carrying a traceparent enters the orders service (process A,
// app.handle()), which reads a cache area whose factory calls the inventory
// service (process B, app.handle()) with Kit's HttpClient; B answers 503
// first, so the client retries. Both services run as child processes of
// this test (_telemetry_service.ts), in the runtime running the test.
//
// - With the SDK in each process (Deno, Node.js, Bun): the children report
//   their in-memory spans, metric points and log entries back as JSON.
// - With Deno's built-in OpenTelemetry (OTEL_DENO=true, no SDK at all): the
//   children export over OTLP/HTTP JSON to a loopback receiver in this test,
//   which decodes what arrives.
//
// Checked: the same trace id in both processes, the incoming span as the
// parent of A's server span, the cache span under it, the HttpClient call
// under the cache span, one CLIENT span per attempt as siblings under the
// call (the retry with http.request.resend_count = 1), each of B's server
// spans a descendant of the attempt that reached it; the metric points
// (http.server.request.duration, http.client.request.duration,
// kit.cache.requests); and log entries carrying the trace and span ids.
import { describe, it as nodeIt, test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { isNpmPass } from "../_support/module_url.ts";
import { waitFor } from "../_support/wait_for.ts";
import { denoExecutable } from "../_support/runtimes.ts";
import type { MetricPoint } from "../_support/otel_sdk.ts";
import type { ReportedSpan, ServiceReport } from "./_telemetry_service.ts";
import {
  type ReceivedPoint,
  type ReceivedSpan,
  startOtlpReceiver,
} from "./_otlp_receiver.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const HIT_TRACE_ID = "5bf92f3577b34da6a3ce929d0e0e4737";
const HIT_PARENT_ID = "10f067aa0ba902b8";

const PLATFORM = "@vendor/kit-platform";
const HTTP = "@vendor/kit-platform-http";
const CACHING = "@vendor/kit-platform-caching";

const SERVICE = fileURLToPath(
  new URL(
    import.meta.url.endsWith(".ts")
      ? "./_telemetry_service.ts"
      : "./_telemetry_service.js",
    import.meta.url,
  ),
);
const DENO_DEV_JSON = fileURLToPath(
  new URL("../../deno.dev.json", import.meta.url),
);
const isDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;

/** A running service. */
interface Service {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** Asks it to stop and waits for its exit. */
  stop(): Promise<number | null>;
}

async function startService(
  args: string[],
  env: Record<string, string> = {},
): Promise<Service> {
  // Deno runs the sources with the repository's development configuration
  // (deno.dev.json: the OpenTelemetry SDK is a test dependency); Node.js and
  // Bun run the transpiled file against the built packages.
  const command = isDeno ? denoExecutable! : process.execPath;
  const argv = isDeno
    ? ["run", "-A", "--quiet", "--config", DENO_DEV_JSON, SERVICE, ...args]
    : [SERVICE, ...args];
  const child = spawn(command, argv, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += String(chunk)));
  child.stderr!.on("data", (chunk) => (output += String(chunk)));
  // A hard limit so a broken child can never hang the suite.
  const limit = setTimeout(() => child.kill("SIGKILL"), 90_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(limit);
      resolve(code);
    })
  );
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (): void => {
      const ready = /READY (\d+)/.exec(output);
      if (ready) {
        child.stdout!.off("data", onData);
        resolve(Number(ready[1]));
      }
    };
    child.stdout!.on("data", onData);
    void exited.then((code) =>
      reject(new Error(`the service exited (${code}) before READY:\n${output}`))
    );
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    child,
    output: () => output,
    stop: async () => {
      await fetch(`${url}/__stop`).then((r) => r.text()).catch(() => {});
      const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const code = await exited;
      clearTimeout(killer);
      return code;
    },
  };
}

async function report(service: Service): Promise<ServiceReport> {
  const response = await fetch(`${service.url}/__report`);
  return await response.json() as ServiceReport;
}

/** Sends the two requests of the scenario into the orders service. */
async function sendOrders(orders: Service): Promise<void> {
  const first = await fetch(`${orders.url}/orders/sku-1`, {
    headers: {
      traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
      tracestate: "edge=1",
    },
  });
  assert.equal(first.status, 200, orders.output());
  assert.deepEqual(await first.json(), { sku: "sku-1", stock: 7 });
  // The same order again: a cache hit, no call to the inventory.
  const second = await fetch(`${orders.url}/orders/sku-1`, {
    headers: { traceparent: `00-${HIT_TRACE_ID}-${HIT_PARENT_ID}-01` },
  });
  assert.equal(second.status, 200);
  assert.deepEqual(await second.json(), { sku: "sku-1", stock: 7 });
}

/** The spans of both processes, in OTLP's kind numbering. */
interface TraceSpan {
  service: "orders" | "inventory";
  scope: string;
  name: string;
  /** 1 internal, 2 server, 3 client (OTLP). */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  status: number;
  events: string[];
}

function fromSdk(
  service: "orders" | "inventory",
  spans: ReportedSpan[],
): TraceSpan[] {
  // The API's SpanKind counts from INTERNAL = 0; OTLP from 1.
  return spans.map((span) => ({
    service,
    scope: span.scope,
    name: span.name,
    kind: span.kind + 1,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    attributes: span.attributes,
    status: span.status.code,
    events: span.events,
  }));
}

function fromOtlp(spans: ReceivedSpan[]): TraceSpan[] {
  return spans
    .filter((span) => span.service === "orders" || span.service === "inventory")
    .map((span) => ({
      service: span.service as "orders" | "inventory",
      scope: span.scope,
      name: span.name,
      kind: span.kind,
      traceId: span.traceId,
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      attributes: span.attributes,
      status: span.status.code,
      events: span.events,
    }));
}

/** A metric point of either source. */
interface Point {
  service: string;
  scope: string;
  name: string;
  attributes: Record<string, unknown>;
  value?: number;
  count?: number;
}

function pointsFromSdk(service: string, points: MetricPoint[]): Point[] {
  return points.map((point) => ({ service, ...point }));
}

function pointsFromOtlp(points: ReceivedPoint[]): Point[] {
  return points;
}

/**
 * Checks the trace. `runtimeSpans` is true with OTEL_DENO, where Deno's own
 * server and fetch spans sit between Kit's (Kit's server span is then an
 * INTERNAL child of Deno's, and B's spans descend from A's attempt through
 * Deno's fetch span).
 */
function checkTrace(spans: TraceSpan[], runtimeSpans: boolean): void {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const describe = (span: TraceSpan): string =>
    `${span.service} ${span.scope} ${span.name} kind=${span.kind} ${span.spanId} <- ${span.parentSpanId}`;
  const all = spans.map(describe).join("\n");
  const ancestors = (span: TraceSpan): TraceSpan[] => {
    const chain: TraceSpan[] = [];
    let current = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    while (current !== undefined && chain.length < 50) {
      chain.push(current);
      current = current.parentSpanId
        ? byId.get(current.parentSpanId)
        : undefined;
    }
    return chain;
  };
  const ofTrace = spans.filter((span) => span.traceId === TRACE_ID);
  const kit = (service: string, scope: string): TraceSpan[] =>
    ofTrace.filter((span) => span.service === service && span.scope === scope);

  // A's request span continues the incoming traceparent.
  const [server] = kit("orders", PLATFORM);
  assert.ok(server, `the orders service's request span:\n${all}`);
  assert.equal(server.name, "GET");
  assert.equal(server.attributes["http.request.method"], "GET");
  assert.equal(server.attributes["url.path"], "/orders/sku-1");
  assert.equal(server.attributes["http.response.status_code"], 200);
  assert.equal(typeof server.attributes["kit.request_id"], "string");
  if (runtimeSpans) {
    assert.equal(server.kind, 1, "INTERNAL under Deno's server span");
    const runtime = byId.get(server.parentSpanId!);
    assert.ok(runtime, `Deno's server span:\n${all}`);
    assert.equal(runtime.kind, 2);
    assert.equal(runtime.parentSpanId, PARENT_ID);
  } else {
    assert.equal(server.kind, 2, "SERVER");
    assert.equal(server.parentSpanId, PARENT_ID);
  }

  // The cache miss, under the request span.
  const [cache] = kit("orders", CACHING);
  assert.ok(cache, `the cache span:\n${all}`);
  assert.equal(cache.name, "cache getOrSet");
  assert.equal(cache.parentSpanId, server.spanId);
  assert.equal(cache.attributes["kit.cache.area"], "inventory");
  assert.equal(cache.attributes["kit.cache.result"], "miss");

  // The HttpClient call under the cache span (its factory), and one CLIENT
  // span per attempt under the call, siblings.
  const http = kit("orders", HTTP);
  const call = http.find((span) => span.kind === 1);
  assert.ok(call, `the HttpClient call span:\n${all}`);
  assert.equal(call.name, "GET");
  assert.equal(call.parentSpanId, cache.spanId);
  const attempts = http.filter((span) => span.kind === 3);
  assert.equal(attempts.length, 2, `two attempts:\n${all}`);
  for (const attempt of attempts) {
    assert.equal(attempt.parentSpanId, call.spanId, "siblings under the call");
    assert.equal(attempt.name, "GET");
    assert.equal(attempt.attributes["http.request.method"], "GET");
    assert.equal(attempt.attributes["server.address"], "127.0.0.1");
  }
  const failed = attempts.find((span) =>
    span.attributes["http.response.status_code"] === 503
  );
  const retried = attempts.find((span) =>
    span.attributes["http.response.status_code"] === 200
  );
  assert.ok(failed && retried, `a 503 attempt and a 200 attempt:\n${all}`);
  assert.equal(failed.attributes["error.type"], "503");
  assert.equal(failed.status, 2, "the failed attempt is an error");
  assert.equal(failed.attributes["http.request.resend_count"], undefined);
  assert.equal(retried.attributes["http.request.resend_count"], 1);

  // B's request spans: same trace, each reached through one attempt.
  const inventory = kit("inventory", PLATFORM);
  assert.equal(inventory.length, 2, `two inventory requests:\n${all}`);
  const reachedBy = inventory.map((span) =>
    ancestors(span).find((other) => other.service === "orders")
  );
  for (const [i, span] of inventory.entries()) {
    assert.equal(span.traceId, TRACE_ID);
    if (runtimeSpans) {
      // Deno's fetch span (injected by the runtime) is the link.
      const link = reachedBy[i];
      assert.ok(link, `an orders ancestor of ${describe(span)}:\n${all}`);
      assert.ok(
        link.spanId === failed.spanId || link.spanId === retried.spanId ||
          link.parentSpanId === failed.spanId ||
          link.parentSpanId === retried.spanId,
        `reached through an attempt:\n${all}`,
      );
    } else {
      assert.equal(span.kind, 2, "SERVER");
    }
  }
  const linkOf = (attempt: TraceSpan): TraceSpan | undefined =>
    inventory.find((_span, i) =>
      reachedBy[i]?.spanId === attempt.spanId ||
      reachedBy[i]?.parentSpanId === attempt.spanId
    );
  const busy = linkOf(failed);
  const served = linkOf(retried);
  assert.ok(busy && served, `each attempt reached B once:\n${all}`);
  assert.notEqual(busy.spanId, served.spanId);
  assert.equal(busy.attributes["http.response.status_code"], 503);
  assert.equal(busy.status, 2, "B's 503 is an error");
  assert.equal(served.attributes["http.response.status_code"], 200);
  if (!runtimeSpans) {
    assert.equal(busy.parentSpanId, failed.spanId);
    assert.equal(served.parentSpanId, retried.spanId);
  }

  // The second request: a cache hit, an event on its span, no HTTP call.
  const hit = spans.find((span) =>
    span.traceId === HIT_TRACE_ID && span.scope === PLATFORM
  );
  assert.ok(hit, `the second request's span:\n${all}`);
  assert.ok(hit.events.includes("cache.hit"), `a cache.hit event:\n${all}`);
  assert.equal(
    spans.filter((span) => span.traceId === HIT_TRACE_ID && span.scope === HTTP)
      .length,
    0,
  );
}

function checkMetrics(points: Point[]): void {
  const all = JSON.stringify(points, null, 1);
  const find = (
    service: string,
    scope: string,
    name: string,
    attributes: Record<string, unknown>,
  ): Point | undefined =>
    points.find((point) =>
      point.service === service && point.scope === scope &&
      point.name === name &&
      Object.entries(attributes).every(([key, value]) =>
        point.attributes[key] === value
      )
    );
  const serverOk = find("orders", PLATFORM, "http.server.request.duration", {
    "http.response.status_code": 200,
  });
  assert.equal(serverOk?.count, 2, `orders served two requests:\n${all}`);
  const client503 = find("orders", HTTP, "http.client.request.duration", {
    "http.response.status_code": 503,
  });
  const client200 = find("orders", HTTP, "http.client.request.duration", {
    "http.response.status_code": 200,
  });
  assert.equal(client503?.count, 1, `one 503 attempt:\n${all}`);
  assert.equal(client200?.count, 1, `one 200 attempt:\n${all}`);
  assert.equal(client503?.attributes["error.type"], "503");
  const misses = find("orders", CACHING, "kit.cache.requests", {
    "kit.cache.area": "inventory",
    "kit.cache.result": "miss",
  });
  const hits = find("orders", CACHING, "kit.cache.requests", {
    "kit.cache.area": "inventory",
    "kit.cache.result": "hit",
  });
  assert.equal(misses?.value, 1, `one miss:\n${all}`);
  assert.equal(hits?.value, 1, `one hit:\n${all}`);
  const busy = find("inventory", PLATFORM, "http.server.request.duration", {
    "http.response.status_code": 503,
  });
  const served = find("inventory", PLATFORM, "http.server.request.duration", {
    "http.response.status_code": 200,
  });
  assert.equal(busy?.count, 1, `inventory answered one 503:\n${all}`);
  assert.equal(busy?.attributes["error.type"], "503");
  assert.equal(served?.count, 1, `and one 200:\n${all}`);
}

function checkLogs(
  orders: ServiceReport,
  inventory: ServiceReport,
  spans: TraceSpan[],
): void {
  const serverSpan = (service: string, traceId: string): TraceSpan[] =>
    spans.filter((span) =>
      span.service === service && span.scope === PLATFORM &&
      span.traceId === traceId
    );
  const priced = orders.logs.filter((entry) =>
    entry.message === "order priced"
  );
  assert.equal(priced.length, 2);
  assert.equal(priced[0].traceId, TRACE_ID);
  assert.equal(priced[0].spanId, serverSpan("orders", TRACE_ID)[0].spanId);
  assert.equal(priced[1].traceId, HIT_TRACE_ID);
  assert.equal(priced[1].spanId, serverSpan("orders", HIT_TRACE_ID)[0].spanId);
  // The access lines of app.handle() carry them too.
  const access = orders.logs.filter((entry) =>
    entry.category === "kit.application" &&
    entry.message.startsWith("GET /orders/sku-1 200")
  );
  assert.equal(access.length, 2);
  assert.equal(access[0].traceId, TRACE_ID);
  const looked = inventory.logs.filter((entry) =>
    entry.message === "inventory looked up"
  );
  assert.equal(looked.length, 2);
  const ids = new Set(serverSpan("inventory", TRACE_ID).map((s) => s.spanId));
  for (const entry of looked) {
    assert.equal(entry.traceId, TRACE_ID);
    assert.ok(ids.has(entry.spanId!), "the span id of B's request span");
  }
}

describe("one trace across two Kit services", () => {
  it("with the OpenTelemetry SDK in each process", async () => {
    const inventory = await startService(["inventory", "sdk"]);
    let orders: Service | undefined;
    try {
      orders = await startService(["orders", "sdk", inventory.url]);
      await sendOrders(orders);
      const a = await report(orders);
      const b = await report(inventory);
      const spans = [
        ...fromSdk("orders", a.spans),
        ...fromSdk("inventory", b.spans),
      ];
      checkTrace(spans, false);
      checkMetrics([
        ...pointsFromSdk("orders", a.metrics),
        ...pointsFromSdk("inventory", b.metrics),
      ]);
      checkLogs(a, b, spans);
    } finally {
      assert.equal(await orders?.stop(), 0, orders?.output());
      assert.equal(await inventory.stop(), 0, inventory.output());
    }
  });
});

test(
  "one trace across two Kit services with Deno's built-in OpenTelemetry (OTEL_DENO=true, OTLP/HTTP JSON)",
  {
    skip: isNpmPass()
      ? "Deno's built-in OpenTelemetry: the Deno pass runs it"
      : !isDeno && "Deno's built-in OpenTelemetry: runs under deno test",
  },
  async () => {
    const receiver = await startOtlpReceiver();
    const env = (name: string): Record<string, string> => ({
      OTEL_DENO: "true",
      OTEL_SERVICE_NAME: name,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_DENO_CONSOLE: "ignore",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      OTEL_METRIC_EXPORT_INTERVAL: "200",
    });
    const inventory = await startService(
      ["inventory", "otlp"],
      env("inventory"),
    );
    let orders: Service | undefined;
    try {
      orders = await startService(
        ["orders", "otlp", inventory.url],
        env("orders"),
      );
      await sendOrders(orders);
      const a = await report(orders);
      const b = await report(inventory);
      // Asynchronous instruments (kit.cache.requests) are read at the
      // periodic exports, not at the final one on exit: wait for one.
      await waitFor(
        () =>
          receiver.points().some((point) =>
            point.service === "orders" && point.name === "kit.cache.requests" &&
            point.attributes["kit.cache.result"] === "hit"
          ),
        "kit.cache.requests in a periodic export",
        20_000,
      );
      // Exiting flushes what Deno still holds.
      assert.equal(await orders.stop(), 0, orders.output());
      assert.equal(await inventory.stop(), 0, inventory.output());
      const spans = fromOtlp(receiver.spans());
      checkTrace(spans, true);
      checkMetrics(pointsFromOtlp(receiver.points()));
      checkLogs(a, b, spans);
    } finally {
      await orders?.stop();
      await inventory.stop();
      await receiver.close();
    }
  },
);
