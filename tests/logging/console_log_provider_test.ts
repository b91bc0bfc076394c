import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ConsoleLogProvider,
  type ConsoleLogProviderOptions,
  LoggerManager,
  LogLevel,
  LogProviderOptionError,
} from "../../logging/mod.ts";
import {
  assertEscapedStack,
  captureConsole,
  hostileError,
} from "./_helpers.ts";

const ESC = "\x1b[";

function setup(options: Omit<ConsoleLogProviderOptions, "console"> = {}) {
  const output = captureConsole();
  const provider = new ConsoleLogProvider({ ...options, console: output });
  const manager = new LoggerManager().configure({
    level: "debug",
    providers: [provider],
  });
  return { output, logger: manager.getLogger("orders"), manager };
}

test("ConsoleLogProvider writes one simple line per entry: timestamp, LEVEL, [category], message, properties", () => {
  const { output, logger } = setup({ isTerminal: false });
  logger.info("Order placed", { orderId: 42, total: 9.5 });
  assert.equal(output.calls.length, 1);
  assert.match(
    output.calls[0].text,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO \[orders\] Order placed \{"orderId":42,"total":9\.5\}$/,
  );
});

test("ConsoleLogProvider uses console.debug/info/warn/error by level", () => {
  const { output, logger } = setup({ isTerminal: false });
  logger.debug("d");
  logger.info("i");
  logger.warning("w");
  logger.error("e");
  assert.deepEqual(output.calls.map((call) => call.method), [
    "debug",
    "info",
    "warn",
    "error",
  ]);
  assert.match(output.calls[2].text, / WARNING \[orders\] w$/);
});

test("ConsoleLogProvider colours only when colorize is on and the output is a terminal", () => {
  const coloured = setup({ colorize: true, isTerminal: true });
  coloured.logger.error("boom", { a: 1 });
  assert.ok(
    coloured.output.calls[0].text.includes(ESC),
    "colorize + terminal: ANSI codes",
  );

  const notTerminal = setup({ colorize: true, isTerminal: false });
  notTerminal.logger.error("boom", { a: 1 });
  assert.ok(
    !notTerminal.output.calls[0].text.includes("\x1b"),
    "not a terminal: plain",
  );

  const off = setup({ colorize: false, isTerminal: true });
  off.logger.error("boom", { a: 1 });
  assert.ok(!off.output.calls[0].text.includes("\x1b"), "colorize off: plain");
});

test("ConsoleLogProvider writes an error with its stack and cause", () => {
  const { output, logger } = setup({ isTerminal: false });
  const error = new Error("card declined", {
    cause: new Error("gateway timeout"),
  });
  logger.error("Payment failed", error);
  const text = output.calls[0].text;
  const lines = text.split("\n");
  assert.match(lines[0], /ERROR \[orders\] Payment failed$/);
  assert.equal(lines[1], "    Error: card declined");
  assert.ok(lines[2].trimStart().startsWith("at "), "stack frames follow");
  assert.ok(text.includes("Caused by: Error: gateway timeout"));
});

test("ConsoleLogProvider keeps an entry on one line: line breaks and escapes in the message are neutralised", () => {
  const { output, logger } = setup({ isTerminal: false });
  logger.warning("line one\nINFO [orders] forged line\x1b[2J", {
    note: "a\nb",
  });
  const text = output.calls[0].text;
  assert.ok(!text.includes("\n"), text);
  assert.ok(!text.includes("\x1b"), text);
  assert.ok(text.includes("line one\\nINFO [orders] forged line"));
});

test("ConsoleLogProvider escapes control characters in an error's message, stack and cause as in the message", () => {
  const { output, logger } = setup({ isTerminal: false });
  logger.error("Request failed", { error: hostileError(), raw: "csi\u009b" });
  assertEscapedStack(output.calls[0].text);
  assert.ok(output.calls[0].text.includes("csi\\x9b"), output.calls[0].text);

  // Coloured: Kit's own colour codes only, nothing of the error's.
  const coloured = setup({ colorize: true, isTerminal: true });
  coloured.logger.error("Request failed", hostileError());
  const text = coloured.output.calls[0].text;
  for (const sequence of ["\x1b[1A", "\x1b[2K", "\x1b]0", "\r", "\u009b"]) {
    assert.ok(!text.includes(sequence), JSON.stringify(sequence));
  }
});

test("ConsoleLogProvider without timestamp starts the line with the level", () => {
  const { output, logger } = setup({ timestamp: false, isTerminal: false });
  logger.info("hi");
  assert.equal(output.calls[0].text, "INFO [orders] hi");
});

test("ConsoleLogProvider format json writes Kit's JSON object per entry", () => {
  const { output, logger } = setup({ format: "json" });
  logger.with({ requestId: "r-9" }).warning("Slow", { ms: 1200 });
  const entry = JSON.parse(output.calls[0].text);
  assert.equal(entry.level, "warning");
  assert.equal(entry.category, "orders");
  assert.equal(entry.message, "Slow");
  assert.deepEqual(entry.properties, { ms: 1200 });
  assert.equal(entry.requestId, "r-9");
  assert.ok(!Number.isNaN(Date.parse(entry.timestamp)));
});

test("ConsoleLogProvider level option filters", () => {
  const output = captureConsole();
  const provider = new ConsoleLogProvider({
    level: "warning",
    console: output,
  });
  assert.equal(provider.isEnabled(LogLevel.Info), false);
  assert.equal(provider.isEnabled(LogLevel.Warning), true);
  const logger = new LoggerManager().configure({
    level: "debug",
    providers: [provider],
  }).getLogger("x");
  logger.info("no");
  logger.error("yes");
  assert.equal(output.calls.length, 1);
});

test("ConsoleLogProvider rejects unknown or invalid options naming them", () => {
  assert.throws(
    () => new ConsoleLogProvider({ format: "xml" as "json" }),
    (error: unknown) => {
      assert.ok(error instanceof LogProviderOptionError);
      assert.equal(error.option, "format");
      assert.equal(
        error.message,
        `ConsoleLogProvider: option 'format' must be one of simple, json (got "xml")`,
      );
      return true;
    },
  );
  assert.throws(
    () =>
      new ConsoleLogProvider(
        { colour: true } as unknown as ConsoleLogProviderOptions,
      ),
    /option 'colour' is not an option/,
  );
});

test("ConsoleLogProvider writes nothing after dispose()", async () => {
  const { output, logger, manager } = setup();
  const provider = manager.providers[0];
  await provider.dispose?.();
  logger.info("late");
  assert.equal(output.calls.length, 0);
});
