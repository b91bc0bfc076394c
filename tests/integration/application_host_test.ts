// The application host with Kit's real parts: the shutdown deadline holds
// with a dead remote log endpoint and a hung analytics endpoint; logging is
// disposed last (a real log file ends with the shutdown line); request ids
// reach log entries and outgoing HTTP calls under 100 concurrent requests.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Application, RequestContext } from "../../platform/mod.ts";
import {
  FileLogProvider,
  type ILogProvider,
  type LogEntry,
  LoggerManager,
  RemoteLogProvider,
} from "../../logging/mod.ts";
import { HttpClient } from "../../http/mod.ts";
import {
  AnalyticsManager,
  CustomAnalyticsProvider,
} from "../../analytics/mod.ts";
import { startTestServer } from "../_support/http_server.ts";

/** A loopback port where nothing listens: connections are refused. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("Application with Kit's modules", () => {
  it("stops within shutdownTimeout while the log endpoint refuses and the analytics endpoint hangs", async () => {
    const logPort = await refusedPort();
    // Accepts requests and never answers them.
    const hung = await startTestServer(() => new Promise(() => {}));
    const dir = await mkdtemp(join(tmpdir(), "kit-host-"));
    const errors: unknown[] = [];
    try {
      const app = await Application.start({
        configuration: () => ({}),
        logging: () =>
          new LoggerManager().configure({
            onError: (error) => errors.push(error),
            level: "info",
            providers: [
              new FileLogProvider({ filename: join(dir, "app.log") }),
              new RemoteLogProvider({
                endpoint: `http://127.0.0.1:${logPort}/logs`,
                apiKey: "log-key",
                batchSize: 100,
                flushInterval: 60_000,
                onError: (error) => errors.push(error),
              }),
            ],
          }),
        platform: (services) => {
          services.register(
            "analytics",
            () =>
              new AnalyticsManager({ onError: (error) => errors.push(error) })
                .addProvider(
                  new CustomAnalyticsProvider({
                    endpoint: `${hung.url}/collect`,
                    apiKey: "analytics-key",
                    batchSize: 50,
                    flushInterval: 60_000,
                    onError: (error) => errors.push(error),
                  }),
                ),
            { eager: true },
          );
        },
        shutdownTimeout: 1_000,
      });
      const logger = app.services.get<LoggerManager>("logging").getLogger(
        "orders",
      );
      const analytics = app.services.get<AnalyticsManager>("analytics");
      for (let i = 0; i < 250; i++) {
        logger.info("Order placed", { orderId: i });
        analytics.track("order_placed", { orderId: i });
      }
      const began = performance.now();
      const report = await app.stop();
      const elapsed = performance.now() - began;
      // Default retries would take far longer than the deadline for each of
      // the two; stop() must end at the deadline, and the margin is for a
      // loaded CI machine.
      assert.ok(elapsed <= 1_000 + 250, `stop() took ${elapsed} ms`);
      // Both ran until the deadline and were abandoned there.
      assert.equal(report.ok, false);
      assert.deepEqual(report.timedOut.sort(), ["analytics", "logging"]);
      // What could not be delivered was counted and reported by both.
      const dropped = (name: string): number => {
        let sum = 0;
        for (const error of errors) {
          if (error instanceof Error && error.name === name) {
            sum += (error as Error & { dropped?: number }).dropped ?? 0;
          }
        }
        return sum;
      };
      assert.ok(
        dropped("LogDeliveryError") >= 250,
        JSON.stringify(errors.map(String)),
      );
      assert.ok(
        errors.some((error) =>
          error instanceof Error && /analytics/i.test(error.name)
        ),
        errors.map(String).join("\n"),
      );
      assert.ok(hung.requests.length > 0, "analytics tried to deliver");
      // The shutdown's own lines reached the local file.
      const lines = (await readFile(join(dir, "app.log"), "utf8")).trim()
        .split("\n");
      assert.match(lines.at(-1)!, /Application stopped in/);
    } finally {
      hung.dropConnections();
      await hung.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("disposes logging last: the log file ends with the shutdown line, after services' own lines", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kit-host-"));
    try {
      const filename = join(dir, "app.log");
      const app = await Application.start({
        configuration: () => ({}),
        logging: () =>
          new LoggerManager().configure({
            level: "info",
            providers: [new FileLogProvider({ filename, format: "json" })],
          }),
        services: (services) => {
          services.register("orders", (locator) => {
            const log = locator.get<LoggerManager>("logging").getLogger(
              "orders",
            );
            return { dispose: () => log.info("Orders service closed") };
          }, { eager: true });
        },
      });
      await app.stop();
      const messages = (await readFile(filename, "utf8")).trim().split("\n")
        .map((line) => (JSON.parse(line) as { message: string }).message);
      assert.equal(messages[0].startsWith("Application started in"), true);
      assert.deepEqual(messages.slice(1, 3), [
        "Application stopping",
        "Orders service closed",
      ]);
      assert.match(messages.at(-1)!, /^Application stopped in [\d.]+ ms$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("carries each request's id into its log entries and outgoing calls, 100 at once, with no mixing", async () => {
    const upstream = await startTestServer(async (request, response) => {
      // Answer out of order so the requests interleave.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ seen: request.headers["x-request-id"] }));
    });
    const entries: LogEntry[] = [];
    const memory: ILogProvider = {
      isEnabled: () => true,
      log: (entry) => {
        entries.push(entry);
        return Promise.resolve();
      },
    };
    try {
      const app = await Application.start({
        configuration: () => ({}),
        logging: () =>
          new LoggerManager().configure({ level: "info", providers: [memory] }),
        platform: (services) => {
          services.register("http", () => new HttpClient(upstream.url));
        },
      });
      const http = app.services.get<HttpClient>("http");
      const log = app.services.get<LoggerManager>("logging").getLogger("api");
      const handler = app.handle(async () => {
        const id = RequestContext.current()!.requestId;
        log.info("calling upstream", { expected: id });
        const body = await http.get<{ seen: string }>("/echo");
        log.info("upstream answered", { expected: id, seen: body.seen });
        return Response.json(body);
      });
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          handler(
            new Request("http://localhost/work", {
              headers: { "X-Request-ID": `req-${i}` },
            }),
          )),
      );
      for (const [i, response] of responses.entries()) {
        assert.equal(response.headers.get("x-request-id"), `req-${i}`);
        assert.deepEqual(await response.json(), { seen: `req-${i}` });
      }
      const received = upstream.requests.map((r) => r.headers["x-request-id"])
        .sort();
      assert.deepEqual(
        received,
        Array.from({ length: 100 }, (_, i) => `req-${i}`).sort(),
      );
      const own = entries.filter((entry) => entry.category === "api");
      assert.equal(own.length, 200);
      for (const entry of own) {
        const properties = entry.properties as Record<string, unknown>;
        assert.equal(entry.requestId, properties.expected);
      }
      const access = entries.filter((entry) =>
        entry.category === "kit.application" &&
        entry.message.startsWith("GET /work 200")
      );
      assert.equal(access.length, 100);
      await app.stop();
    } finally {
      await upstream.close();
    }
  });
});
