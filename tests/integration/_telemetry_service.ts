// One service of the cross-process telemetry test
// (telemetry_trace_test.ts), run as a child process by Deno, Node.js or Bun:
//
//   <runtime> _telemetry_service.ts <role> <mode> [inventory url]
//
// - role `inventory` (process B): `GET /inventory/<sku>` through
//   app.handle(); its first request answers 503 (so the caller retries),
//   the next ones 200 with JSON; each logs one entry.
// - role `orders` (process A): `GET /orders/<sku>` through app.handle();
//   reads the stock through a cache area whose factory calls the inventory
//   service with Kit's HttpClient (retrying), logs one entry, answers JSON.
// - mode `sdk`: the official OpenTelemetry SDK in memory (spans, metrics);
//   `GET /__report` (outside app.handle) answers them with the log entries.
// - mode `otlp`: nothing registered here; Deno's own OpenTelemetry
//   (OTEL_DENO=true) exports; `GET /__report` answers only the log entries.
//
// It prints `READY <port>` once listening, and stops on `GET /__stop`.
import { createServer } from "node:http";
import process from "node:process";
import { Application } from "../../platform/mod.ts";
import {
  type ILogProvider,
  type LogEntry,
  LoggerManager,
} from "../../logging/mod.ts";
import { HttpClient } from "../../http/mod.ts";
import { CacheManager, MemoryCacheProvider } from "../../caching/mod.ts";
import { installOtelSdk, type OtelSdk } from "../_support/otel_sdk.ts";

/** A span as the child reports it (the fields the test checks). */
export interface ReportedSpan {
  name: string;
  kind: number;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  events: string[];
}

/** What `GET /__report` answers. */
export interface ServiceReport {
  spans: ReportedSpan[];
  metrics: Awaited<ReturnType<OtelSdk["collect"]>>;
  logs: {
    category: string;
    message: string;
    traceId?: string;
    spanId?: string;
  }[];
}

type Fetch = (request: Request) => Promise<Response>;

interface DenoServe {
  serve(
    options: {
      hostname: string;
      port: number;
      onListen(addr: { port: number }): void;
    },
    handler: Fetch,
  ): { shutdown(): Promise<void> };
}

// Deno.serve under Deno (what OTEL_DENO instruments), node:http elsewhere.
function listen(
  fetch: Fetch,
): Promise<{ port: number; close(): Promise<void> }> {
  const deno = (globalThis as { Deno?: DenoServe }).Deno;
  if (deno !== undefined) {
    return new Promise((resolve) => {
      const server = deno.serve({
        hostname: "127.0.0.1",
        port: 0,
        onListen: ({ port }) =>
          resolve({ port, close: () => server.shutdown() }),
      }, fetch);
    });
  }
  const server = createServer((incoming, outgoing) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === "string") headers.set(name, value);
    }
    const request = new Request(`http://127.0.0.1${incoming.url ?? "/"}`, {
      method: incoming.method,
      headers,
    });
    void fetch(request).then(async (response) => {
      outgoing.statusCode = response.status;
      response.headers.forEach((value, name) =>
        outgoing.setHeader(name, value)
      );
      outgoing.end(new Uint8Array(await response.arrayBuffer()));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({
        port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

async function main(): Promise<void> {
  const [role, mode, inventoryUrl] = process.argv.slice(2);
  const sdk = mode === "sdk" ? installOtelSdk() : undefined;
  const entries: LogEntry[] = [];
  const memory: ILogProvider = {
    isEnabled: () => true,
    log: (entry) => {
      entries.push(entry);
      return Promise.resolve();
    },
  };
  const app = await Application.start({
    configuration: () => ({}),
    logging: () =>
      new LoggerManager().configure({ level: "info", providers: [memory] }),
    platform: (services) => {
      if (role !== "orders") return;
      services.register(
        "http",
        () =>
          new HttpClient(inventoryUrl, {
            retryAttempts: 2,
            retryDelay: 20,
            timeout: 5_000,
          }),
      );
      services.register(
        "cache",
        () => new CacheManager(new MemoryCacheProvider()),
      );
    },
  });
  const log = app.services.get<LoggerManager>("logging").getLogger(role);
  let calls = 0;
  const handler = role === "orders"
    ? app.handle(async (request) => {
      const sku = new URL(request.url).pathname.split("/").at(-1)!;
      const http = app.services.get<HttpClient>("http");
      const stock = await app.services.get<CacheManager>("cache")
        .area("inventory")
        .getOrSet(
          sku,
          () => http.get<{ stock: number }>(`/inventory/${sku}`),
        );
      log.info("order priced", { sku });
      return Response.json({ sku, stock: stock.stock });
    })
    : app.handle((request) => {
      calls++;
      const sku = new URL(request.url).pathname.split("/").at(-1)!;
      log.info("inventory looked up", { sku, call: calls });
      return calls === 1
        ? new Response("busy", { status: 503 })
        : Response.json({ sku, stock: 7 });
    });
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const server = await listen(async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/__report") {
      const report: ServiceReport = {
        spans: (sdk?.spans() ?? []).map((span) => ({
          name: span.name,
          kind: span.kind,
          scope: span.instrumentationScope.name,
          traceId: span.spanContext().traceId,
          spanId: span.spanContext().spanId,
          parentSpanId: span.parentSpanContext?.spanId,
          attributes: { ...span.attributes },
          status: { ...span.status },
          events: span.events.map((event) => event.name),
        })),
        metrics: sdk === undefined ? [] : await sdk.collect(),
        logs: entries.map((entry) => ({
          category: entry.category,
          message: entry.message,
          traceId: entry.traceId,
          spanId: entry.spanId,
        })),
      };
      return Response.json(report);
    }
    if (path === "/__stop") {
      setTimeout(stop, 10);
      return new Response("stopping");
    }
    return await handler(request);
  });
  console.log(`READY ${server.port}`);
  await stopped;
  await app.stop();
  await server.close();
  await sdk?.uninstall();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
