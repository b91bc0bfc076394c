// Trace correlation and delivery telemetry of the logging module, with the
// real OpenTelemetry SDK (tests/_support/otel_sdk.ts): entries made inside an
// active span carry its trace and span ids (and show them in every output),
// entries outside carry none; RemoteLogProvider records a "log batch
// delivery" CLIENT span per POST and counts entries in kit.log.records.
import { afterEach, beforeEach, describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { context, type Span, SpanKind, trace } from "@opentelemetry/api";
import { installOtelSdk, type OtelSdk } from "../_support/otel_sdk.ts";
import { startCollector } from "../_support/http_server.ts";
import {
  ConsoleLogProvider,
  FileLogProvider,
  type ILogProvider,
  LoggerManager,
  RemoteLogProvider,
} from "../../logging/mod.ts";
import {
  captureConsole,
  MemoryLogProvider,
  runChild,
  tempDir,
} from "./_helpers.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

function manager(...providers: ILogProvider[]): LoggerManager {
  return new LoggerManager().configure({ level: "debug", providers });
}

// Runs fn with a new span active; returns its ids.
async function inSpan(
  fn: (span: Span) => void | Promise<void>,
): Promise<{ traceId: string; spanId: string }> {
  const span = trace.getTracer("test").startSpan("work");
  try {
    await context.with(trace.setSpan(context.active(), span), () => fn(span));
  } finally {
    span.end();
  }
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

// First in the file, so the process has logged with nothing registered
// before any SDK exists (logging keeps what it found in the API's global
// registry: an SDK registered later must still be seen).
describe("trace correlation when the SDK is registered after logging began", () => {
  it("gives ids once a context manager is registered, and none after it is removed", async () => {
    const memory = new MemoryLogProvider();
    const logs = manager(memory);
    const logger = logs.getLogger("late");
    await inSpan(() => logger.info("before the SDK"));
    const otel = installOtelSdk();
    let ids: { traceId: string; spanId: string };
    try {
      ids = await inSpan(() => logger.info("with the SDK"));
    } finally {
      await otel.uninstall();
    }
    await inSpan(() => logger.info("after the SDK"));
    await logs.dispose();
    const [before, during, after] = memory.entries;
    assert.equal(before.traceId, undefined);
    assert.match(ids.traceId, HEX32);
    assert.equal(during.traceId, ids.traceId);
    assert.equal(during.spanId, ids.spanId);
    assert.equal(after.traceId, undefined);
    assert.equal(after.spanId, undefined);
  });
});

describe("trace correlation with the OpenTelemetry SDK", () => {
  let otel: OtelSdk;
  beforeEach(() => {
    otel = installOtelSdk();
  });
  afterEach(async () => {
    await otel.uninstall();
  });

  it("gives entries made inside an active span its ids, across awaits", async () => {
    const memory = new MemoryLogProvider();
    const logs = manager(memory);
    const logger = logs.getLogger("orders");
    logger.info("before");
    const ids = await inSpan(async () => {
      logger.info("inside");
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.with({ tenant: "acme" }).warning("after an await");
    });
    logger.info("after");
    await logs.dispose();
    assert.match(ids.traceId, HEX32);
    assert.match(ids.spanId, HEX16);
    const [before, inside, awaited, after] = memory.entries;
    assert.equal(before.traceId, undefined);
    assert.equal(before.spanId, undefined);
    assert.equal(inside.traceId, ids.traceId);
    assert.equal(inside.spanId, ids.spanId);
    assert.equal(awaited.traceId, ids.traceId);
    assert.equal(awaited.spanId, ids.spanId);
    assert.equal(after.traceId, undefined);
    assert.equal(after.spanId, undefined);
  });

  it("gives a child span's entries the child's span id and the same trace id", async () => {
    const memory = new MemoryLogProvider();
    const logs = manager(memory);
    const logger = logs.getLogger("orders");
    let child: { traceId: string; spanId: string } | undefined;
    const parent = await inSpan(async () => {
      logger.info("parent");
      child = await inSpan(() => logger.info("child"));
    });
    await logs.dispose();
    assert.equal(memory.entries[0].spanId, parent.spanId);
    assert.equal(memory.entries[1].traceId, parent.traceId);
    assert.equal(memory.entries[1].spanId, child!.spanId);
    assert.notEqual(child!.spanId, parent.spanId);
  });

  it("leaves the ids out for a span context that is not valid", async () => {
    const memory = new MemoryLogProvider();
    const logs = manager(memory);
    const invalid = trace.wrapSpanContext({
      traceId: "00000000000000000000000000000000",
      spanId: "0000000000000000",
      traceFlags: 0,
    });
    context.with(
      trace.setSpan(context.active(), invalid),
      () => logs.getLogger("x").info("no ids"),
    );
    await logs.dispose();
    assert.equal(memory.entries[0].traceId, undefined);
    assert.equal(memory.entries[0].spanId, undefined);
  });

  it("shows the ids in the console's simple and json formats, and only inside a span", async () => {
    const simple = captureConsole();
    const json = captureConsole();
    const logs = manager(
      new ConsoleLogProvider({ console: simple, colorize: false }),
      new ConsoleLogProvider({ console: json, format: "json" }),
    );
    const logger = logs.getLogger("orders");
    const ids = await inSpan(() =>
      logger.info("paid", { requestId: "r-1", orderId: 42 })
    );
    logger.info("outside");
    await logs.dispose();
    assert.match(
      simple.calls[0].text,
      new RegExp(
        `INFO \\[orders\\] paid \\{"orderId":42\\} requestId="r-1" trace=${ids.traceId} span=${ids.spanId}$`,
      ),
    );
    assert.doesNotMatch(simple.calls[1].text, /trace=|span=/);
    const inside = JSON.parse(json.calls[0].text);
    assert.equal(inside.traceId, ids.traceId);
    assert.equal(inside.spanId, ids.spanId);
    assert.equal(inside.requestId, "r-1");
    const outside = JSON.parse(json.calls[1].text);
    assert.equal("traceId" in outside, false);
    assert.equal("spanId" in outside, false);
  });

  it("writes the ids to json and simple log files", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const jsonFile = join(dir, "app.jsonl");
      const textFile = join(dir, "app.log");
      const logs = manager(
        new FileLogProvider({ filename: jsonFile, format: "json" }),
        new FileLogProvider({ filename: textFile, format: "simple" }),
      );
      const logger = logs.getLogger("files");
      const ids = await inSpan(() => logger.error("failed"));
      logger.info("outside");
      await logs.dispose();
      const lines = (await readFile(jsonFile, "utf8")).trim().split("\n")
        .map((line) => JSON.parse(line));
      assert.equal(lines[0].traceId, ids.traceId);
      assert.equal(lines[0].spanId, ids.spanId);
      assert.equal(lines[1].traceId, undefined);
      const text = (await readFile(textFile, "utf8")).trim().split("\n");
      assert.ok(
        text[0].endsWith(`failed trace=${ids.traceId} span=${ids.spanId}`),
        text[0],
      );
      assert.doesNotMatch(text[1], /trace=/);
    } finally {
      await cleanup();
    }
  });

  it("counts a file provider's dropped entries in kit.log.records", async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = new FileLogProvider({
        filename: join(dir, "app.log"),
        onError: () => {},
      });
      await file.dispose();
      file.log({
        timestamp: new Date(),
        level: 1,
        category: "late",
        message: "after dispose",
        properties: {},
      });
      assert.equal(file.dropped, 1);
      const points = (await otel.collect()).filter((point) =>
        point.name === "kit.log.records"
      );
      assert.deepEqual(
        points.map((point) => [point.attributes, point.value]),
        [[{ "kit.log.provider": "file", "kit.outcome": "dropped" }, 1]],
      );
    } finally {
      await cleanup();
    }
  });

  it("sends the ids as fields of the remote json format", async () => {
    await using server = await startCollector();
    const remote = new RemoteLogProvider({ endpoint: server.url + "/logs" });
    const logs = manager(remote);
    const logger = logs.getLogger("remote");
    const ids = await inSpan(() => logger.info("inside"));
    logger.info("outside");
    await logs.dispose();
    const sent = JSON.parse(server.requests[0].body).entries;
    assert.equal(sent[0].traceId, ids.traceId);
    assert.equal(sent[0].spanId, ids.spanId);
    assert.equal(sent[1].traceId, undefined);
  });

  it("records one root CLIENT span per POST and counts delivered entries", async () => {
    await using server = await startCollector();
    const remote = new RemoteLogProvider({
      endpoint: server.url + "/logs",
      batchSize: 2,
    });
    const logs = manager(remote);
    const logger = logs.getLogger("remote");
    // Logged inside a request's span: the delivery a full batch starts
    // belongs to no request, so its span is a root, not the request's child.
    const ids = await inSpan(() => {
      logger.info("one");
      logger.info("two");
    });
    logger.info("three");
    await logs.dispose();
    const deliveries = otel.spansNamed("log batch delivery");
    assert.equal(deliveries.length, 2);
    for (const span of deliveries) {
      assert.equal(span.kind, SpanKind.CLIENT);
      assert.equal(span.parentSpanContext, undefined);
      assert.notEqual(span.spanContext().traceId, ids.traceId);
      assert.equal(span.attributes["http.request.method"], "POST");
      assert.equal(span.attributes["server.address"], "127.0.0.1");
      assert.equal(span.attributes["http.response.status_code"], 200);
      assert.equal(span.attributes["http.request.resend_count"], undefined);
    }
    assert.deepEqual(
      deliveries.map((span) => span.attributes["kit.batch.size"]).sort(),
      [1, 2],
    );
    // Only the delivery spans and the test's own span: the POST runs with
    // tracing suppressed, so nothing else was recorded for it.
    assert.equal(otel.spans().length, 3);
    const points = (await otel.collect()).filter((point) =>
      point.name === "kit.log.records"
    );
    assert.deepEqual(
      points.map((point) => [point.attributes, point.value]),
      [[{ "kit.log.provider": "remote", "kit.outcome": "delivered" }, 3]],
    );
    assert.equal(points[0].scope, "@vendor/kit-platform-logging");
  });

  it("never gives entries logged during a delivery (here by onError) the delivery span's ids", async () => {
    await using server = await startCollector(400, {});
    const memory = new MemoryLogProvider();
    // Reports the failure through a logger, as an application might (to
    // another destination: one that fed the refusing endpoint again would
    // loop whatever the telemetry).
    const ops = manager(memory);
    const remote = new RemoteLogProvider({
      endpoint: server.url + "/logs",
      onError: (error) => ops.getLogger("ops").error(error.message),
    });
    const logs = manager(remote);
    const ids = await inSpan(async () => {
      logs.getLogger("app").info("refused");
      await remote.flush();
    });
    const reported = memory.entries.find((entry) => entry.category === "ops");
    assert.ok(reported, "onError logged the failure");
    await logs.dispose({ timeout: 2_000 });
    await ops.dispose();
    // The entry belongs to whoever waited for the delivery (the flush()
    // inside the test's span), not to the delivery span.
    assert.equal(reported.traceId, ids.traceId);
    assert.equal(reported.spanId, ids.spanId);
    const deliveries = otel.spansNamed("log batch delivery");
    assert.equal(deliveries.length, 1);
    assert.notEqual(deliveries[0].spanContext().traceId, ids.traceId);
    assert.equal(deliveries[0].status.code, 2);
    assert.equal(deliveries[0].attributes["http.response.status_code"], 400);
    assert.equal(deliveries[0].attributes["error.type"], "400");
  });
});

describe("trace correlation on a sealed global object", () => {
  it("logs as usual when globalThis cannot take new properties (SES lockdown)", async () => {
    const result = await runChild(`
      const { LoggerManager, ConsoleLogProvider } = await import(LOGGING);
      const logs = new LoggerManager().configure({
        level: "debug",
        providers: [new ConsoleLogProvider()],
      });
      Object.preventExtensions(globalThis);
      try {
        logs.getLogger("sealed").info("still logged");
      } catch (error) {
        console.log("the log call threw: " + error.message);
      }
      await logs.dispose();
      console.log("disposed");
    `);
    assert.doesNotMatch(result.out, /the log call threw/);
    assert.match(result.out, /INFO \[sealed\] still logged/);
    assert.match(result.out, /disposed/);
  });
});

describe("trace correlation without an SDK", () => {
  it("gives entries no ids (the API is a no-op)", async () => {
    const memory = new MemoryLogProvider();
    const logs = manager(memory);
    const span = trace.getTracer("test").startSpan("work");
    context.with(
      trace.setSpan(context.active(), span),
      () => logs.getLogger("x").info("no sdk"),
    );
    span.end();
    await logs.dispose();
    assert.equal(memory.entries[0].traceId, undefined);
    assert.equal(memory.entries[0].spanId, undefined);
  });
});
