/**
 * HttpClient against raw `fetch` (the floor), `ky` and `axios`: GETs of a
 * small JSON body from a local node:http server, 5,000 sequential requests
 * (one request per iteration) and batches of 50 concurrent requests. Every
 * row parses the JSON body. Goals: Kit within 5 % of ky, sequential and
 * concurrent, and faster than axios.
 *
 * Telemetry: with no OpenTelemetry SDK registered, HttpClient
 * against the same tree with its telemetry cut out (`startCall` returns at
 * once, so no call looks for a provider); with the SDK active (the last
 * group, which registers it), HttpClient's own spans, trace headers and
 * histogram against that copy instrumented by hand with `@opentelemetry/api`
 * (the same spans, header and histogram). The "before" rows are the module
 * at c6c978a, before the per-call work was cut down. The copies are
 * extracted with (rows are skipped when absent)
 *
 *   git archive HEAD http core platform config | tar -x -C .bench-tmp/http-notel
 *   sed -i 's/^  const api = loadOpenTelemetryApi();$/  if (method !== "") return undefined;\n&/' .bench-tmp/http-notel/http/_telemetry.ts
 *   git archive c6c978a http core platform config | tar -x -C .bench-tmp/http-c6c978a
 *
 * Run: `deno bench -A --config deno.dev.json bench/http_bench.ts`, or, for ratios that hold up on a
 * shared machine (every row once per round, rotating; medians of the
 * per-round ratios, wall clock and CPU time):
 * `deno run -A --config deno.dev.json bench/http_bench.ts --interleaved`
 *
 * @module
 */
import { createServer } from "node:http";
import process from "node:process";
import type { AddressInfo } from "node:net";
import ky from "ky";
import axios from "axios";
import {
  type Attributes,
  context,
  type Histogram,
  metrics,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { AuthInterceptor, ErrorInterceptor, HttpClient } from "../http/mod.ts";

type HttpModule = typeof import("../http/mod.ts");
/** An earlier copy of the module, or undefined when it was not extracted. */
async function earlier(commit: string): Promise<HttpModule | undefined> {
  const url = new URL(
    `../.bench-tmp/http-${commit}/http/mod.ts`,
    import.meta.url,
  );
  try {
    return await import(url.href);
  } catch {
    console.warn(`no ${url.pathname}: its rows are skipped`);
    return undefined;
  }
}
const beforeTelemetry = await earlier("notel");
const beforeOptimization = await earlier("c6c978a");

const payload = JSON.stringify({
  id: 42,
  name: "Kit",
  tags: ["http", "bench"],
  active: true,
});
const server = createServer((_request, response) => {
  response.writeHead(200, {
    "content-type": "application/json",
    "content-length": String(payload.length),
  });
  response.end(payload);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const url = `${base}/item`;

const kit = new HttpClient(base);
// The default total timeout (30 s) costs a timer and a controller per call;
// this row shows that cost against a client with it turned off.
const kitNoTotal = new HttpClient(base, { totalTimeout: 0 });
const kitIntercepted = new HttpClient(base)
  .addInterceptor(new ErrorInterceptor())
  .addInterceptor(new AuthInterceptor({ getToken: () => "bench-token" }));
const kyClient = ky.create({ prefixUrl: base });
const kitBeforeTelemetry = beforeTelemetry &&
  new beforeTelemetry.HttpClient(base);
const kitBeforeOptimization = beforeOptimization &&
  new beforeOptimization.HttpClient(base);
const axiosClient = axios.create({ baseURL: base });

async function rawFetch(): Promise<void> {
  const response = await fetch(url, {
    headers: { accept: "application/json" },
  });
  await response.json();
}
async function kitGet(): Promise<void> {
  await kit.get("/item");
}
async function kitNoTotalGet(): Promise<void> {
  await kitNoTotal.get("/item");
}
async function kitBeforeTelemetryGet(): Promise<void> {
  await kitBeforeTelemetry!.get("/item");
}
async function kitBeforeOptimizationGet(): Promise<void> {
  await kitBeforeOptimization!.get("/item");
}
async function kitInterceptedGet(): Promise<void> {
  await kitIntercepted.get("/item");
}
async function kyGet(): Promise<void> {
  await kyClient.get("item").json();
}
async function axiosGet(): Promise<void> {
  await axiosClient.get("/item");
}

// Warm the server, the connection pools and the JIT for every client before
// measuring, so the first group's first row is not penalised.
for (let i = 0; i < 300; i++) {
  await rawFetch();
  await kitGet();
  await kitNoTotalGet();
  await kitInterceptedGet();
  await kyGet();
  await axiosGet();
  if (kitBeforeTelemetry) await kitBeforeTelemetryGet();
  if (kitBeforeOptimization) await kitBeforeOptimizationGet();
}

const SEQUENTIAL = 5_000;
const CONCURRENT = 50;

const sequential = "GET small JSON, sequential (5,000 requests)";
Deno.bench({
  name: "raw fetch",
  group: sequential,
  baseline: true,
  n: SEQUENTIAL,
  warmup: 200,
  fn: rawFetch,
});
Deno.bench({
  name: "Kit HttpClient",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kitGet,
});
Deno.bench({
  name: "Kit HttpClient, telemetry cut out",
  group: sequential,
  ignore: kitBeforeTelemetry === undefined,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kitBeforeTelemetryGet,
});
Deno.bench({
  name: "Kit HttpClient before the per-call work was cut (c6c978a)",
  group: sequential,
  ignore: kitBeforeOptimization === undefined,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kitBeforeOptimizationGet,
});
Deno.bench({
  name: "Kit HttpClient, totalTimeout: 0",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kitNoTotalGet,
});
Deno.bench({
  name: "Kit HttpClient + Error/Auth interceptors",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kitInterceptedGet,
});
Deno.bench({
  name: "ky",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: kyGet,
});
Deno.bench({
  name: "axios",
  group: sequential,
  n: SEQUENTIAL,
  warmup: 200,
  fn: axiosGet,
});

function batch(get: () => Promise<void>): () => Promise<void> {
  return async () => {
    await Promise.all(Array.from({ length: CONCURRENT }, get));
  };
}

const concurrent = "GET small JSON, 50 concurrent";
Deno.bench({
  name: "raw fetch",
  group: concurrent,
  baseline: true,
  n: 200,
  warmup: 20,
  fn: batch(rawFetch),
});
Deno.bench({
  name: "Kit HttpClient",
  group: concurrent,
  n: 200,
  warmup: 20,
  fn: batch(kitGet),
});
Deno.bench({
  name: "Kit HttpClient, telemetry cut out",
  group: concurrent,
  ignore: kitBeforeTelemetry === undefined,
  n: 200,
  warmup: 20,
  fn: batch(kitBeforeTelemetryGet),
});
Deno.bench({
  name: "Kit HttpClient before the per-call work was cut (c6c978a)",
  group: concurrent,
  ignore: kitBeforeOptimization === undefined,
  n: 200,
  warmup: 20,
  fn: batch(kitBeforeOptimizationGet),
});
Deno.bench({
  name: "ky",
  group: concurrent,
  n: 200,
  warmup: 20,
  fn: batch(kyGet),
});
Deno.bench({
  name: "axios",
  group: concurrent,
  n: 200,
  warmup: 20,
  fn: batch(axiosGet),
});

// With the SDK active: registered by the first iteration of this group (the
// last one, so the groups above run without it) and never unregistered.
class QuietReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}
let sdkInstalled = false;
function installSdk(): void {
  if (sdkInstalled) return;
  sdkInstalled = true;
  context.setGlobalContextManager(
    new AsyncLocalStorageContextManager().enable(),
  );
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // Every span sampled and ended; no exporter, so the rows measure the
  // instrumentation rather than an exporter.
  trace.setGlobalTracerProvider(new TracerProvider());
  metrics.setGlobalMeterProvider(
    new MeterProvider({ readers: [new QuietReader()] }),
  );
}

const handScope = "bench-by-hand";
const handAddress = new URL(base);
let handTracer: Tracer | undefined;
let handHistogram: Histogram | undefined;
/** The same call, its telemetry cut out, instrumented by hand. */
async function byHandGet(): Promise<void> {
  // Made once, at the first call (after the SDK registered).
  const tracer = handTracer ??= trace.getTracer(handScope);
  const histogram = handHistogram ??= metrics.getMeter(handScope)
    .createHistogram("http.client.request.duration", { unit: "s" });
  const parent = context.active();
  const call = tracer.startSpan("GET", { kind: SpanKind.INTERNAL }, parent);
  call.setAttribute("url.full", url);
  const callContext = trace.setSpan(parent, call);
  const attempt = tracer.startSpan("GET", {
    kind: SpanKind.CLIENT,
    attributes: {
      "http.request.method": "GET",
      "url.full": url,
      "server.address": handAddress.hostname,
      "server.port": Number(handAddress.port),
    },
  }, callContext);
  const headers: Record<string, string> = {};
  const attemptContext = trace.setSpan(callContext, attempt);
  propagation.inject(attemptContext, headers);
  const started = performance.now();
  const attributes: Attributes = {
    "http.request.method": "GET",
    "server.address": handAddress.hostname,
    "server.port": Number(handAddress.port),
  };
  try {
    await context.with(
      attemptContext,
      () => kitBeforeTelemetry!.get("/item", { headers }),
    );
    attempt.setAttribute("http.response.status_code", 200);
    attributes["http.response.status_code"] = 200;
  } catch (error) {
    attempt.setStatus({ code: SpanStatusCode.ERROR });
    call.setStatus({ code: SpanStatusCode.ERROR });
    attributes["error.type"] = (error as Error).name;
    throw error;
  } finally {
    attempt.end();
    histogram.record((performance.now() - started) / 1000, attributes);
    call.end();
  }
}

const withSdk = "GET small JSON, sequential, OpenTelemetry SDK active";
Deno.bench({
  name: "by hand with @opentelemetry/api (telemetry cut out)",
  group: withSdk,
  baseline: true,
  ignore: kitBeforeTelemetry === undefined,
  n: SEQUENTIAL,
  warmup: 200,
  async fn() {
    installSdk();
    await byHandGet();
  },
});
Deno.bench({
  name: "Kit HttpClient (its own telemetry)",
  group: withSdk,
  n: SEQUENTIAL,
  warmup: 200,
  async fn() {
    installSdk();
    await kitGet();
  },
});

globalThis.addEventListener("unload", () => server.close());

// `deno run -A --config deno.dev.json bench/http_bench.ts --interleaved`: the same rows measured in
// rounds of 100 calls (10 batches of 50 for the concurrent group), each round
// running every row once in a rotating order. On a shared machine a burst of
// other work then hits every row alike, where `deno bench` runs each row's
// iterations in one block; the median of the per-round ratios (wall clock,
// and this process's CPU time) is what BENCHMARKS.md reports.
if (Deno.args.includes("--interleaved")) {
  const rounds = Number(Deno.env.get("KIT_BENCH_ROUNDS") ?? 40);
  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[sorted.length >> 1];
  };
  const measure = async (
    title: string,
    rows: Record<string, () => Promise<void>>,
    reference: string,
    calls: number,
    concurrency: number,
  ): Promise<void> => {
    const names = Object.keys(rows);
    const wall: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    for (const name of names) {
      wall[name] = [];
      cpu[name] = [];
      for (let i = 0; i < 200; i++) await rows[name]();
    }
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(k + round) % names.length];
        const fn = rows[name];
        const cpuStart = process.cpuUsage();
        const start = performance.now();
        for (let i = 0; i < calls / concurrency; i++) {
          if (concurrency === 1) await fn();
          else await Promise.all(Array.from({ length: concurrency }, fn));
        }
        wall[name].push((performance.now() - start) * 1000 / calls);
        const used = process.cpuUsage(cpuStart);
        cpu[name].push((used.user + used.system) / calls);
      }
    }
    console.log(`\n${title} (${rounds} rounds; ratios to ${reference})`);
    for (const name of names) {
      const ratio = (series: Record<string, number[]>): string =>
        median(series[name].map((v, i) => v / series[reference][i]))
          .toFixed(3);
      console.log(
        `  ${name.padEnd(58)} wall ${median(wall[name]).toFixed(1)} µs/call` +
          ` ${ratio(wall)}   cpu ${median(cpu[name]).toFixed(1)} µs/call` +
          ` ${ratio(cpu)}`,
      );
    }
  };
  const rows: Record<string, () => Promise<void>> = {
    "ky": kyGet,
    "Kit HttpClient": kitGet,
  };
  if (kitBeforeTelemetry) {
    rows["Kit HttpClient, telemetry cut out"] = kitBeforeTelemetryGet;
  }
  if (kitBeforeOptimization) {
    rows["Kit HttpClient before the per-call work was cut (c6c978a)"] =
      kitBeforeOptimizationGet;
  }
  rows["raw fetch"] = rawFetch;
  await measure(sequential, rows, "ky", 100, 1);
  await measure(concurrent, rows, "ky", 500, CONCURRENT);
  if (kitBeforeTelemetry) {
    installSdk();
    await measure(
      withSdk,
      {
        "by hand with @opentelemetry/api (telemetry cut out)": byHandGet,
        "Kit HttpClient (its own telemetry)": kitGet,
      },
      "by hand with @opentelemetry/api (telemetry cut out)",
      100,
      1,
    );
  }
  server.close();
  Deno.exit(0);
}
