// Secrets written into the text of an entry are masked by the same rule that
// masks properties and error messages (core's maskSecretText): in the
// message itself and in a value passed in place of the properties object, in
// every format a built-in provider writes (console simple and JSON, file
// JSON and simple, remote JSON, OTLP). Text without a secret is written byte
// for byte as given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type RecordedRequest,
  startCollector,
} from "../_support/http_server.ts";
import {
  ConsoleLogProvider,
  FileLogProvider,
  type ILogProvider,
  type Logger,
  LoggerManager,
  type LogProperties,
  RemoteLogProvider,
} from "../../logging/mod.ts";
import { captureConsole, MemoryLogProvider, tempDir } from "./_helpers.ts";

const URL_TEXT = "connecting to postgres://u:PASS@h/db";
const URL_MASKED = "connecting to postgres://u:***@h/db";
const POSITIONAL = "postgres://u:PASS@h/db";
const POSITIONAL_MASKED = "postgres://u:***@h/db";
const BEARER_TEXT =
  "calling the API with Authorization: Bearer eyJhbGci.LEAK.x";
const BEARER_MASKED = "calling the API with Authorization: Bearer ***";
// Quotes, a backslash, non-ASCII letters, an "=" and an "@" that are no
// secret: written exactly as given.
const PLAIN =
  'Order 42 placed by ann@example.com (total=9.50 €, "gift" wrap, path C:\\tmp) ✓';

// A JavaScript caller may pass a single value where the properties object
// goes, as in printf-style loggers.
function infoWith(logger: Logger, message: string, value: unknown): void {
  (logger.info as (message: string, value: unknown) => void)(message, value);
}

function writeAll(logger: Logger): void {
  logger.info(URL_TEXT);
  infoWith(logger, "plain {0}", POSITIONAL);
  logger.info(BEARER_TEXT);
  logger.info(PLAIN);
}

// What every format must carry, as the strings it decodes to.
function assertMasked(texts: readonly string[], where: string): void {
  const all = texts.join("\n");
  assert.ok(!all.includes("PASS"), `${where} leaks a URL password: ${all}`);
  assert.ok(!all.includes("LEAK"), `${where} leaks a Bearer token: ${all}`);
}

async function withLogs(
  providers: ILogProvider[],
  fn: (logger: Logger) => void,
): Promise<void> {
  const logs = new LoggerManager().configure({ level: "debug", providers });
  fn(logs.getLogger("db"));
  await logs.dispose();
}

test("console simple: the message and a positional value are masked, plain text is kept byte for byte", async () => {
  const console = captureConsole();
  await withLogs(
    [new ConsoleLogProvider({ console, timestamp: false })],
    writeAll,
  );
  const lines = console.calls.map((call) => call.text);
  assertMasked(lines, "console simple");
  assert.equal(lines[0], `INFO [db] ${URL_MASKED}`);
  assert.equal(lines[1], `INFO [db] plain {0} {"0":"${POSITIONAL_MASKED}"}`);
  assert.equal(lines[2], `INFO [db] ${BEARER_MASKED}`);
  assert.equal(lines[3], `INFO [db] ${PLAIN}`);
});

test("console json: the message and a positional value are masked", async () => {
  const console = captureConsole();
  await withLogs(
    [new ConsoleLogProvider({ console, format: "json" })],
    writeAll,
  );
  const records = console.calls.map((call) => JSON.parse(call.text));
  assertMasked(console.calls.map((call) => call.text), "console json");
  assert.deepEqual(records.map((record) => record.message), [
    URL_MASKED,
    "plain {0}",
    BEARER_MASKED,
    PLAIN,
  ]);
  assert.deepEqual(records[1].properties, { "0": POSITIONAL_MASKED });
});

for (const format of ["json", "simple"] as const) {
  test(`file ${format}: the file holds the masked message and positional value`, async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const filename = join(dir, "app.log");
      await withLogs([new FileLogProvider({ filename, format })], writeAll);
      const text = await readFile(filename, "utf8");
      const lines = text.trimEnd().split("\n");
      assert.equal(lines.length, 4);
      assertMasked(lines, `file ${format}`);
      if (format === "json") {
        const records = lines.map((line) => JSON.parse(line));
        assert.equal(records[0].message, URL_MASKED);
        assert.deepEqual(records[1].properties, { "0": POSITIONAL_MASKED });
        assert.equal(records[2].message, BEARER_MASKED);
        assert.equal(records[3].message, PLAIN);
      } else {
        assert.ok(lines[0].endsWith(` INFO [db] ${URL_MASKED}`), lines[0]);
        assert.ok(
          lines[1].endsWith(` plain {0} {"0":"${POSITIONAL_MASKED}"}`),
          lines[1],
        );
        assert.ok(lines[2].endsWith(` ${BEARER_MASKED}`), lines[2]);
        assert.ok(lines[3].endsWith(` INFO [db] ${PLAIN}`), lines[3]);
      }
    } finally {
      await cleanup();
    }
  });
}

async function collect(
  format: "json" | "otlp",
): Promise<{ bodies: string[]; requests: RecordedRequest[] }> {
  await using server = await startCollector();
  const remote = new RemoteLogProvider({
    endpoint: `${server.url}/ingest`,
    format,
    batchSize: 100,
    flushInterval: 60_000,
    retryDelay: 10,
    onError: () => {},
  });
  await withLogs([remote], writeAll);
  return {
    bodies: server.requests.map((request) => request.body),
    requests: server.requests,
  };
}

test("remote json: the collector receives the masked message and positional value", async () => {
  const { bodies } = await collect("json");
  assert.equal(bodies.length, 1);
  assertMasked(bodies, "remote json");
  const entries = JSON.parse(bodies[0]).entries as {
    message: string;
    properties: LogProperties;
  }[];
  assert.deepEqual(entries.map((entry) => entry.message), [
    URL_MASKED,
    "plain {0}",
    BEARER_MASKED,
    PLAIN,
  ]);
  assert.deepEqual(entries[1].properties, { "0": POSITIONAL_MASKED });
});

test("remote otlp: the body and the positional attribute are masked", async () => {
  const { bodies } = await collect("otlp");
  assert.equal(bodies.length, 1);
  assertMasked(bodies, "remote otlp");
  const records = JSON.parse(bodies[0]).resourceLogs[0].scopeLogs[0]
    .logRecords as {
      body: { stringValue: string };
      attributes: { key: string; value: { stringValue?: string } }[];
    }[];
  assert.deepEqual(records.map((record) => record.body.stringValue), [
    URL_MASKED,
    "plain {0}",
    BEARER_MASKED,
    PLAIN,
  ]);
  const positional = records[1].attributes.find((item) => item.key === "0");
  assert.deepEqual(positional?.value, { stringValue: POSITIONAL_MASKED });
});

test("every provider, a custom one too, gets the one entry with its message already masked", async () => {
  const first = new MemoryLogProvider();
  const second = new MemoryLogProvider();
  await withLogs([first, second], (logger) => {
    logger.info(URL_TEXT);
    logger.with({ requestId: "r-1", tenant: "acme" }).info(
      "plain {0}",
      POSITIONAL as unknown as LogProperties,
    );
    logger.info(PLAIN);
  });
  assert.equal(first.entries.length, 3);
  assert.equal(first.entries[0], second.entries[0]);
  assert.equal(first.entries[0].message, URL_MASKED);
  assert.deepEqual(first.entries[1].properties, {
    tenant: "acme",
    "0": POSITIONAL_MASKED,
  });
  assert.equal(first.entries[1].requestId, "r-1");
  assert.equal(first.entries[2].message, PLAIN);
});

test("a number and a boolean in place of the properties are kept as positional values; a list's strings are masked when written", async () => {
  const memory = new MemoryLogProvider();
  const console = captureConsole();
  await withLogs(
    [memory, new ConsoleLogProvider({ console, format: "json" })],
    (logger) => {
      infoWith(logger, "count {0}", 42);
      infoWith(logger, "flag {0}", false);
      infoWith(logger, "list {0}", [POSITIONAL]);
    },
  );
  assert.deepEqual(memory.entries[0].properties, { "0": 42 });
  assert.deepEqual(memory.entries[1].properties, { "0": false });
  const written = JSON.parse(console.calls[2].text);
  assert.deepEqual(written.properties, { "0": POSITIONAL_MASKED });
});

test("a call below the level reads neither its message nor its value", () => {
  const memory = new MemoryLogProvider();
  const logs = new LoggerManager().configure({
    level: "warning",
    providers: [memory],
  });
  let reads = 0;
  const message = {
    toString(): string {
      reads++;
      return URL_TEXT;
    },
  };
  const logger = logs.getLogger("db");
  logger.info(message as unknown as string);
  (logger.debug as (message: unknown, value: unknown) => void)(
    message,
    message,
  );
  assert.equal(reads, 0);
  assert.equal(memory.entries.length, 0);
  // Above the level the same message is read once and masked.
  logger.warning(message as unknown as string);
  assert.equal(reads, 1);
  assert.equal(memory.entries[0].message, URL_MASKED);
});

test("a message seen clean before is written as given, and one with a secret is masked every time, whatever came before", async () => {
  const memory = new MemoryLogProvider();
  await withLogs([memory], (logger) => {
    for (let round = 0; round < 3; round++) {
      logger.info(PLAIN);
      logger.info(PLAIN);
      logger.info(URL_TEXT);
      logger.info(URL_TEXT);
      // The same text built anew (another string of the same content).
      logger.info(["connecting to ", POSITIONAL].join(""));
    }
  });
  const messages = memory.entries.map((entry) => entry.message);
  assert.equal(messages.length, 15);
  for (let round = 0; round < 3; round++) {
    assert.deepEqual(messages.slice(round * 5, round * 5 + 5), [
      PLAIN,
      PLAIN,
      URL_MASKED,
      URL_MASKED,
      URL_MASKED,
    ]);
  }
});
