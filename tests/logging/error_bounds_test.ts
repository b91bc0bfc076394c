// What Kit's logging writes of an error is bounded, in every format (console
// and file "simple" and "json", remote Kit JSON and OTLP): a message longer
// than 16,384 characters and stack frames longer than 32,768 are cut, an
// AggregateError lists 10 of its errors, and an entry writes at most 20
// errors in full; each cut says how much it left out. Real providers: a
// captured console, a real file, a real collector on loopback.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFile } from "node:fs/promises";
import {
  ConsoleLogProvider,
  FileLogProvider,
  type ILogProvider,
  LoggerManager,
  RemoteLogProvider,
} from "../../logging/mod.ts";
import { startCollector } from "../_support/http_server.ts";
import { captureConsole, tempDir } from "./_helpers.ts";

const MAX_MESSAGE = 16_384;
const MAX_FRAMES = 32_768;

interface WrittenError {
  name: string;
  message: string;
  stack?: string;
  cause?: unknown;
  errors?: unknown[];
  moreErrors?: number;
}

function grouped(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

// The message of a 200,000-character error, a secret at its start: masked
// first, then cut.
const LONG = "x".repeat(200_000);
const RAW_MESSAGE = `login failed password=hunter2 ${LONG} end`;
const MASKED = RAW_MESSAGE.replace("hunter2", "***");
const CUT_MESSAGE = `${MASKED.slice(0, MAX_MESSAGE)}… [${
  grouped(MASKED.length - MAX_MESSAGE)
} more characters]`;

async function logOnce(
  provider: ILogProvider,
  write: (manager: LoggerManager) => void,
): Promise<void> {
  const manager = new LoggerManager().configure({
    level: "debug",
    providers: [provider],
  });
  write(manager);
  await manager.dispose();
}

/** The entry as each JSON destination wrote it. */
async function jsonEntries(
  write: (manager: LoggerManager) => void,
): Promise<Record<string, Record<string, unknown>>> {
  const entries: Record<string, Record<string, unknown>> = {};
  const output = captureConsole();
  await logOnce(
    new ConsoleLogProvider({ console: output, format: "json" }),
    write,
  );
  entries.console = JSON.parse(output.calls[0].text);
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    await logOnce(new FileLogProvider({ filename, format: "json" }), write);
    entries.file = JSON.parse((await readFile(filename, "utf8")).trim());
  } finally {
    await cleanup();
  }
  await using collector = await startCollector();
  await logOnce(
    new RemoteLogProvider({
      endpoint: collector.url + "/logs",
      retryDelay: 1,
      onError: () => {},
    }),
    write,
  );
  assert.equal(collector.requests.length, 1);
  entries.remote = JSON.parse(collector.requests[0].body).entries[0];
  return entries;
}

function simpleText(write: (manager: LoggerManager) => void): Promise<string> {
  const output = captureConsole();
  return logOnce(
    new ConsoleLogProvider({ console: output, isTerminal: false }),
    write,
  ).then(() => output.calls[0].text);
}

async function otlpAttributes(
  write: (manager: LoggerManager) => void,
): Promise<Record<string, string>> {
  await using collector = await startCollector();
  await logOnce(
    new RemoteLogProvider({
      format: "otlp",
      endpoint: collector.url + "/v1/logs",
      retryDelay: 1,
      onError: () => {},
    }),
    write,
  );
  const record = JSON.parse(collector.requests[0].body).resourceLogs[0]
    .scopeLogs[0].logRecords[0];
  return Object.fromEntries(
    (record.attributes as { key: string; value: { stringValue?: string } }[])
      .map((item) => [item.key, item.value.stringValue ?? ""]),
  );
}

describe("Kit's logging bounds what it writes of an error", () => {
  it("cuts a long message, masked first, and says how many characters it left out, in every format", async () => {
    const error = new Error(RAW_MESSAGE);
    const write = (manager: LoggerManager) =>
      manager.getLogger("orders").error("Login failed", { error });
    for (const [where, entry] of Object.entries(await jsonEntries(write))) {
      const written = entry.error as WrittenError;
      assert.equal(written.message, CUT_MESSAGE, where);
      assert.ok(written.stack!.startsWith(`Error: ${CUT_MESSAGE}\n`), where);
      assert.match(written.stack!, /\n {4}at /, `${where}: frames follow`);
      assert.ok(JSON.stringify(entry).length < 3 * MAX_MESSAGE, where);
    }
    const text = await simpleText(write);
    assert.ok(
      text.includes(`\n    Error: ${CUT_MESSAGE}\n        at `),
      text.slice(0, 300),
    );
    assert.ok(text.length < 2 * MAX_MESSAGE);
    const otlp = await otlpAttributes(write);
    assert.equal(otlp["exception.message"], CUT_MESSAGE);
    assert.ok(
      otlp["exception.stacktrace"].startsWith(`Error: ${CUT_MESSAGE}\n`),
    );
    assert.ok(otlp["exception.stacktrace"].length < 2 * MAX_MESSAGE);
  });

  it("cuts long stack frames and a long string cause the same way", async () => {
    const error = new Error("deep", { cause: `cause ${LONG}` });
    const frames = "\n    at recurse (file:///app/main.ts:1:1)".repeat(10_000);
    error.stack = `Error: deep${frames}`;
    const write = (manager: LoggerManager) =>
      manager.getLogger("orders").error("Overflow", error);
    const cutFrames = `${frames.slice(0, MAX_FRAMES)}… [${
      grouped(frames.length - MAX_FRAMES)
    } more characters]`;
    const cutCause = `cause ${LONG.slice(0, MAX_MESSAGE - 6)}… [${
      grouped(LONG.length + 6 - MAX_MESSAGE)
    } more characters]`;
    for (const [where, entry] of Object.entries(await jsonEntries(write))) {
      const written = entry.error as WrittenError;
      assert.equal(written.stack, `Error: deep${cutFrames}`, where);
      assert.equal(written.cause, cutCause, where);
    }
    const text = await simpleText(write);
    assert.ok(
      text.includes("… [" + grouped(frames.length - MAX_FRAMES)),
      text.slice(-300),
    );
    assert.ok(text.length < 2 * (MAX_FRAMES + MAX_MESSAGE));
  });

  it("lists 10 errors of an AggregateError of 100,000 and says how many it left out", async () => {
    const error = new AggregateError(
      Array.from({ length: 100_000 }, (_, i) => new Error(`failure ${i}`)),
      "100000 writes failed",
    );
    const write = (manager: LoggerManager) =>
      manager.getLogger("orders").error("Batch failed", { error });
    for (const [where, entry] of Object.entries(await jsonEntries(write))) {
      const written = entry.error as WrittenError;
      assert.equal(written.name, "AggregateError", where);
      assert.equal(written.moreErrors, 99_990, where);
      const nested = written.errors as WrittenError[];
      assert.deepEqual(
        nested.map((item) => item.message),
        Array.from({ length: 10 }, (_, i) => `failure ${i}`),
        where,
      );
      assert.match(nested[0].stack!, /^Error: failure 0\n {4}at /, where);
    }
    const text = await simpleText(write);
    const lines = text.split("\n");
    assert.equal(lines[1], "    AggregateError: 100000 writes failed");
    assert.ok(
      text.includes("\n    Error 1 of 100,000: Error: failure 0\n"),
      text,
    );
    assert.ok(text.includes("\n    Error 10 of 100,000: Error: failure 9\n"));
    assert.ok(!text.includes("failure 10"), "no 11th error");
    assert.equal(lines.at(-1), "    … and 99,990 more errors");
  });

  it("writes at most 20 errors of an entry in full; the others by name and message", async () => {
    // Nested AggregateErrors, three deep: 10 × 10 × 10 would be 1,110 errors.
    const nest = (depth: number, label: string): Error =>
      depth === 0 ? new Error(label) : new AggregateError(
        Array.from({ length: 10 }, (_, i) => nest(depth - 1, `${label}.${i}`)),
        label,
      );
    const error = nest(3, "root");
    // And a list of 100,000 errors among the properties.
    const errors = Array.from(
      { length: 100_000 },
      (_, i) => new Error(`item ${i}`),
    );
    const write = (manager: LoggerManager) =>
      manager.getLogger("orders").error("Import failed", { error, errors });
    const entries = await jsonEntries(write);
    for (const [where, entry] of Object.entries(entries)) {
      let full = 0;
      let brief = 0;
      const count = (item: unknown): void => {
        if (item === null || typeof item !== "object") return;
        const written = item as WrittenError;
        if (typeof written.name === "string") {
          if (written.stack !== undefined) full++;
          else brief++;
        }
        for (const nested of written.errors ?? []) count(nested);
      };
      count(entry.error);
      const listed = (entry.properties as { errors: WrittenError[] }).errors;
      listed.forEach(count);
      assert.equal(full, 20, where);
      assert.equal(listed.length, 100_000, where);
      assert.deepEqual(listed[99_999], {
        name: "Error",
        message: "item 99999",
      });
      assert.ok(brief > 0, where);
    }
  });
});
