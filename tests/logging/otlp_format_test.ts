// RemoteLogProvider's `format: "otlp"`: batches as OTLP/HTTP JSON logs. A
// loopback receiver decodes what arrives; the reference for the payload's
// shape is the official exporter (@opentelemetry/exporter-logs-otlp-http
// behind an @opentelemetry/sdk-logs LoggerProvider) sending the same entries
// to the same receiver. Retries and drops are counted in kit.log.records.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { context, type Span, trace } from "@opentelemetry/api";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  LoggerProvider,
  SimpleLogRecordProcessor,
} from "@opentelemetry/sdk-logs";
import { installOtelSdk, type OtelSdk } from "../_support/otel_sdk.ts";
import {
  type RecordedRequest,
  sendJson,
  startCollector,
  startTestServer,
  type TestServer,
} from "../_support/http_server.ts";
import {
  LoggerManager,
  LoggingConfigurationError,
  LogProviderOptionError,
  REDACTED_VALUE,
  RemoteLogProvider,
  type RemoteLogProviderOptions,
} from "../../logging/mod.ts";
import { memoryConfig } from "./_helpers.ts";

// The OTLP/JSON shapes of opentelemetry-proto (collector/logs/v1,
// logs/v1, common/v1, resource/v1), as a receiver decodes them.
// @opentelemetry/otlp-transformer no longer exports its request types, so
// they are written out here; the official exporter's payload below checks
// that Kit's matches them.
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values: AnyValue[] };
  kvlistValue?: { values: KeyValue[] };
  bytesValue?: string;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface LogRecord {
  timeUnixNano: string;
  observedTimeUnixNano: string;
  severityNumber: number;
  severityText?: string;
  body?: AnyValue;
  attributes: KeyValue[];
  droppedAttributesCount?: number;
  flags?: number;
  traceId?: string;
  spanId?: string;
}
interface ExportLogsServiceRequest {
  resourceLogs: {
    resource: { attributes: KeyValue[]; droppedAttributesCount?: number };
    scopeLogs: {
      scope: { name: string; version?: string };
      logRecords: LogRecord[];
    }[];
  }[];
}

function decode(request: RecordedRequest): ExportLogsServiceRequest {
  assert.equal(request.method, "POST");
  assert.equal(request.url, "/v1/logs");
  assert.match(String(request.headers["content-type"]), /^application\/json/);
  return JSON.parse(request.body) as ExportLogsServiceRequest;
}

function recordsOf(payload: ExportLogsServiceRequest): LogRecord[] {
  assert.equal(payload.resourceLogs.length, 1);
  assert.equal(payload.resourceLogs[0].scopeLogs.length, 1);
  return payload.resourceLogs[0].scopeLogs[0].logRecords;
}

function attributeMap(attributes: KeyValue[]): Map<string, AnyValue> {
  const map = new Map<string, AnyValue>();
  for (const { key, value } of attributes) {
    assert.equal(map.has(key), false, `attribute ${key} appears once`);
    map.set(key, value);
  }
  return map;
}

const SCOPE = "@vendor/kit-platform-logging";

// The properties of the test entries, masked as Kit masks them.
const PROPERTIES = {
  orderId: 42,
  amount: 9.5,
  paid: true,
  tags: ["a", "b"],
  customer: { name: "Ada", password: "hunter2" },
  missing: null,
};
const MASKED = {
  ...PROPERTIES,
  customer: { name: "Ada", password: REDACTED_VALUE },
};

async function inSpan(fn: (span: Span) => void): Promise<Span> {
  const span = trace.getTracer("test").startSpan("checkout");
  context.with(trace.setSpan(context.active(), span), () => fn(span));
  span.end();
  return await Promise.resolve(span);
}

function otlpProvider(
  server: TestServer,
  options: Partial<RemoteLogProviderOptions> = {},
): RemoteLogProvider {
  return new RemoteLogProvider({
    format: "otlp",
    endpoint: server.url + "/v1/logs",
    serviceName: "orders",
    retryDelay: 1,
    onError: () => {},
    ...options,
  });
}

describe("RemoteLogProvider format otlp", () => {
  let otel: OtelSdk;
  beforeEach(() => {
    otel = installOtelSdk();
  });
  afterEach(async () => {
    await otel.uninstall();
  });

  it("sends the same structure as the official OTLP/HTTP log exporter", async () => {
    await using server = await startCollector();
    // Kit.
    const remote = otlpProvider(server);
    const logs = new LoggerManager().configure({
      level: "debug",
      providers: [remote],
    });
    const logger = logs.getLogger("checkout");
    const span = await inSpan(() => {
      logger.debug("cart loaded");
      logger.info("order placed", { ...PROPERTIES, requestId: "r-1" });
      logger.warning("stock low");
      logger.error("payment failed");
    });
    await logs.dispose();
    assert.equal(server.requests.length, 1);
    const kit = decode(server.requests[0]);

    // The reference: the official exporter, the same entries, the same
    // receiver, the attributes Kit is expected to send.
    const exporter = new OTLPLogExporter({ url: server.url + "/v1/logs" });
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ "service.name": "orders" }),
      processors: [new SimpleLogRecordProcessor({ exporter })],
    });
    const official = provider.getLogger(SCOPE);
    const spanContext = trace.setSpan(context.active(), span);
    const severities: [number, string][] = [
      [5, "DEBUG"],
      [9, "INFO"],
      [13, "WARN"],
      [17, "ERROR"],
    ];
    const messages = [
      "cart loaded",
      "order placed",
      "stock low",
      "payment failed",
    ];
    messages.forEach((message, i) => {
      official.emit({
        severityNumber: severities[i][0],
        severityText: severities[i][1],
        body: message,
        context: spanContext,
        attributes: i === 1
          ? {
            ...MASKED,
            "kit.log.category": "checkout",
            "kit.request_id": "r-1",
          }
          : { "kit.log.category": "checkout" },
      });
    });
    await provider.forceFlush();
    await provider.shutdown();
    assert.equal(server.requests.length, 5, "one request per record");
    const reference = server.requests.slice(1).map((request) =>
      recordsOf(decode(request))[0]
    );
    const referencePayload = decode(server.requests[1]);

    // Resource and scope.
    const kitResource = attributeMap(kit.resourceLogs[0].resource.attributes);
    const refResource = attributeMap(
      referencePayload.resourceLogs[0].resource.attributes,
    );
    assert.deepEqual(kitResource.get("service.name"), {
      stringValue: "orders",
    });
    assert.deepEqual(
      kitResource.get("service.name"),
      refResource.get("service.name"),
    );
    assert.deepEqual(
      kit.resourceLogs[0].scopeLogs[0].scope,
      referencePayload.resourceLogs[0].scopeLogs[0].scope,
    );

    const records = recordsOf(kit);
    assert.equal(records.length, 4);
    records.forEach((record, i) => {
      const ref = reference[i];
      // Field names: Kit's are the official ones, less the two optional
      // fields it leaves out (no limits drop attributes; no trace flags).
      const kitKeys = Object.keys(record).sort();
      const refKeys = Object.keys(ref).sort();
      assert.deepEqual(
        refKeys.filter((key) => !kitKeys.includes(key)).sort(),
        ["droppedAttributesCount", "flags"],
      );
      assert.deepEqual(kitKeys.filter((key) => !refKeys.includes(key)), []);
      // Values encoded the same way.
      assert.equal(typeof record.timeUnixNano, typeof ref.timeUnixNano);
      assert.match(record.timeUnixNano, /^[1-9][0-9]{18}$/);
      assert.match(record.observedTimeUnixNano, /^[1-9][0-9]{18}$/);
      assert.equal(record.severityNumber, ref.severityNumber);
      assert.equal(record.severityText, ref.severityText);
      assert.deepEqual(record.body, ref.body);
      assert.equal(record.traceId, ref.traceId);
      assert.equal(record.spanId, ref.spanId);
      assert.equal(record.traceId, span.spanContext().traceId);
      assert.equal(record.spanId, span.spanContext().spanId);
      const kitAttributes = attributeMap(record.attributes);
      const uid = kitAttributes.get("log.record.uid");
      assert.match(String(uid?.stringValue), /^[0-9a-f-]{36}$/);
      kitAttributes.delete("log.record.uid");
      assert.deepEqual(kitAttributes, attributeMap(ref.attributes));
    });
    // The masked secret and the encodings, spelled out.
    const placed = attributeMap(records[1].attributes);
    assert.deepEqual(placed.get("orderId"), { intValue: 42 });
    assert.deepEqual(placed.get("amount"), { doubleValue: 9.5 });
    assert.deepEqual(placed.get("customer"), {
      kvlistValue: {
        values: [
          { key: "name", value: { stringValue: "Ada" } },
          { key: "password", value: { stringValue: REDACTED_VALUE } },
        ],
      },
    });
    assert.doesNotMatch(server.requests[0].body, /hunter2/);
  });

  it("sends an error as exception attributes, masked, and no ids outside a span", async () => {
    await using server = await startCollector();
    const remote = otlpProvider(server);
    const logs = new LoggerManager().configure({
      level: "info",
      providers: [remote],
    });
    logs.getLogger("db").error(
      "connect failed",
      new TypeError("postgres://app:s3cret@db/app refused"),
    );
    await logs.dispose();
    const [record] = recordsOf(decode(server.requests[0]));
    assert.equal(record.traceId, undefined);
    assert.equal(record.spanId, undefined);
    const attributes = attributeMap(record.attributes);
    assert.deepEqual(attributes.get("exception.type"), {
      stringValue: "TypeError",
    });
    assert.match(
      String(attributes.get("exception.message")?.stringValue),
      /refused$/,
    );
    assert.ok(attributes.has("exception.stacktrace"));
    assert.doesNotMatch(server.requests[0].body, /s3cret/);
  });

  it("retries a refused batch and counts retried, delivered and dropped entries", async () => {
    let answers = [503, 200, 400];
    await using server = await startTestServer((_request, response) => {
      const status = answers[0];
      answers = answers.slice(1);
      sendJson(response, status ?? 200, {});
    });
    const remote = otlpProvider(server, { batchSize: 2 });
    const logs = new LoggerManager().configure({
      level: "info",
      providers: [remote],
    });
    const logger = logs.getLogger("orders");
    logger.info("one");
    logger.info("two");
    await remote.flush();
    logger.info("three");
    await remote.flush();
    logger.info("four");
    await logs.dispose();
    assert.equal(remote.dropped, 1);
    // 503 then 200 for the first batch, 400 for the second, and the drop
    // announced (a kit.logging warning record) in the last, before "four".
    const last = recordsOf(decode(server.requests.at(-1)!));
    assert.equal(last[0].severityNumber, 13);
    assert.deepEqual(attributeMap(last[0].attributes).get("dropped"), {
      intValue: 1,
    });
    const points = (await otel.collect()).filter((point) =>
      point.name === "kit.log.records"
    );
    const count = (outcome: string): number | undefined =>
      points.find((point) => point.attributes["kit.outcome"] === outcome)
        ?.value;
    assert.equal(count("retried"), 2);
    assert.equal(count("dropped"), 1);
    assert.equal(count("delivered"), 3);
    for (const point of points) {
      assert.equal(point.attributes["kit.log.provider"], "remote");
    }
    const deliveries = otel.spansNamed("log batch delivery");
    assert.deepEqual(
      deliveries.map((span) => [
        span.attributes["http.response.status_code"],
        span.attributes["http.request.resend_count"],
        span.attributes["kit.batch.size"],
      ]),
      [[503, undefined, 2], [200, 1, 2], [400, undefined, 1], [
        200,
        undefined,
        2,
      ]],
    );
  });
});

describe("RemoteLogProvider format otlp partial success", () => {
  let otel: OtelSdk;
  beforeEach(() => {
    otel = installOtelSdk();
  });
  afterEach(async () => {
    await otel.uninstall();
  });

  it("counts the records a collector rejects in its partialSuccess as dropped", async () => {
    let first = true;
    await using server = await startTestServer((_request, response) => {
      sendJson(
        response,
        200,
        first
          ? {
            partialSuccess: {
              rejectedLogRecords: 1,
              errorMessage: "timestamp too old",
            },
          }
          : {},
      );
      first = false;
    });
    const errors: Error[] = [];
    const remote = otlpProvider(server, {
      onError: (error) => errors.push(error),
    });
    const logs = new LoggerManager().configure({
      level: "info",
      providers: [remote],
    });
    const logger = logs.getLogger("orders");
    logger.info("one");
    logger.info("two");
    logger.info("three");
    await remote.flush();
    logger.info("four");
    await logs.dispose();
    assert.equal(remote.dropped, 1);
    assert.equal(errors.length, 1);
    assert.match(
      errors[0].message,
      /rejected 1 entry of 3: timestamp too old$/,
    );
    // The loss is announced in the next batch, before "four".
    const next = recordsOf(decode(server.requests[1]));
    assert.deepEqual(attributeMap(next[0].attributes).get("dropped"), {
      intValue: 1,
    });
    const points = (await otel.collect()).filter((point) =>
      point.name === "kit.log.records"
    );
    const count = (outcome: string): number | undefined =>
      points.find((point) => point.attributes["kit.outcome"] === outcome)
        ?.value;
    assert.equal(count("dropped"), 1);
    assert.equal(count("delivered"), 3);
  });
});

describe("RemoteLogProvider format otlp: a collector's reason", () => {
  it("is escaped and cut in the error, so it cannot drive the console it is printed on", async () => {
    await using server = await startTestServer((_request, response) =>
      sendJson(response, 200, {
        partialSuccess: {
          rejectedLogRecords: 1,
          errorMessage: "bad\x1b[1A\x1b[2K\r\u009bforged" + "x".repeat(5000),
        },
      })
    );
    const errors: Error[] = [];
    const remote = otlpProvider(server, {
      onError: (error) => errors.push(error),
    });
    const logs = new LoggerManager().configure({
      level: "info",
      providers: [remote],
    });
    logs.getLogger("orders").info("one");
    await logs.dispose();
    // (The announcement of the loss is rejected the same way.)
    assert.ok(errors.length >= 1);
    const message = errors[0].message;
    // deno-lint-ignore no-control-regex
    assert.equal(/[\x00-\x1f\x7f-\x9f]/.exec(message), null, message);
    assert.match(
      message,
      /rejected 1 entry of 1: bad\\x1b\[1A\\x1b\[2K\\r\\x9bforgedx+$/,
    );
    assert.ok(message.length < 400, `${message.length} characters`);
  });
});

describe("RemoteLogProvider format otlp endpoint and service name", () => {
  const VARIABLES = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
    "OTEL_SERVICE_NAME",
  ];
  let saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    saved = {};
    for (const name of VARIABLES) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  });
  afterEach(() => {
    for (const name of VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  async function serviceNameSent(
    server: TestServer,
    provider: RemoteLogProvider,
  ): Promise<string | undefined> {
    const before = server.requests.length;
    const logs = new LoggerManager().configure({
      level: "info",
      providers: [provider],
    });
    logs.getLogger("x").info("hello");
    await logs.dispose();
    assert.equal(server.requests.length, before + 1);
    const payload = decode(server.requests[before]);
    return attributeMap(payload.resourceLogs[0].resource.attributes).get(
      "service.name",
    )?.stringValue;
  }

  it("posts to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs, named by OTEL_SERVICE_NAME", async () => {
    await using server = await startCollector();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = server.url + "/";
    process.env.OTEL_SERVICE_NAME = "billing";
    const name = await serviceNameSent(
      server,
      new RemoteLogProvider({ format: "otlp" }),
    );
    assert.equal(name, "billing");
  });

  it("posts to OTEL_EXPORTER_OTLP_LOGS_ENDPOINT as is, named unknown_service by default", async () => {
    await using server = await startCollector();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = "http://127.0.0.1:9";
    process.env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT = server.url + "/v1/logs";
    const name = await serviceNameSent(
      server,
      new RemoteLogProvider({ format: "otlp" }),
    );
    assert.equal(name, "unknown_service");
  });

  it("takes telemetry:serviceName and OTEL_EXPORTER_OTLP_ENDPOINT from the configuration", async () => {
    await using server = await startCollector();
    process.env.OTEL_SERVICE_NAME = "not-this-one";
    const manager = new LoggerManager().fromConfiguration(memoryConfig({
      "logging:providers": [{ type: "remote", options: { format: "otlp" } }],
      "telemetry:serviceName": "catalog",
      OTEL_EXPORTER_OTLP_ENDPOINT: server.url,
      // Kit's own remote endpoint is for the json format only.
      "logging:remoteEndpoint": "http://127.0.0.1:9/logs",
    }));
    assert.ok(manager.providers[0] instanceof RemoteLogProvider);
    manager.getLogger("x").info("hello");
    await manager.dispose();
    assert.equal(server.requests.length, 1);
    const payload = decode(server.requests[0]);
    assert.deepEqual(
      attributeMap(payload.resourceLogs[0].resource.attributes).get(
        "service.name",
      ),
      { stringValue: "catalog" },
    );
  });

  it("refuses an otlp provider without an endpoint, naming the variables", () => {
    assert.throws(
      () => new RemoteLogProvider({ format: "otlp" }),
      (error: unknown) =>
        error instanceof LogProviderOptionError &&
        error.option === "endpoint" &&
        /OTEL_EXPORTER_OTLP_ENDPOINT/.test(error.message),
    );
    assert.throws(
      () =>
        new LoggerManager().fromConfiguration(memoryConfig({
          "logging:providers": [{
            type: "remote",
            options: { format: "otlp" },
          }],
        })),
      (error: unknown) =>
        error instanceof LoggingConfigurationError &&
        /options\.endpoint is required \(or set OTEL_EXPORTER_OTLP_LOGS_ENDPOINT \/ OTEL_EXPORTER_OTLP_ENDPOINT\)/
          .test(error.message),
    );
    // The json format still needs its endpoint.
    assert.throws(
      () => new RemoteLogProvider({}),
      (error: unknown) =>
        error instanceof LogProviderOptionError &&
        error.option === "endpoint",
    );
  });
});
