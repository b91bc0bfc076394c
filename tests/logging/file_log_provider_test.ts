import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  FileLogProvider,
  LogDeliveryError,
  type LogEntry,
  LoggerManager,
  LogLevel,
  LogProviderOptionError,
} from "../../logging/mod.ts";
import { assertEscapedStack, hostileError, tempDir } from "./_helpers.ts";

function entry(id: number, padding = 0): LogEntry {
  return {
    timestamp: new Date(),
    level: LogLevel.Info,
    category: "test",
    message: `entry ${id}`,
    properties: padding > 0 ? { id, pad: "x".repeat(padding) } : { id },
  };
}

async function lines(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  assert.ok(
    text === "" || text.endsWith("\n"),
    "the file ends with a complete line",
  );
  return text.split("\n").filter((line) => line !== "");
}

async function ids(path: string): Promise<number[]> {
  return (await lines(path)).map((line) => JSON.parse(line).properties.id);
}

test("FileLogProvider writes one JSON object per line with Kit's entry shape, creating the folder", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "nested", "logs", "app.log");
    const provider = new FileLogProvider({ filename });
    const manager = new LoggerManager().configure({
      level: "debug",
      providers: [provider],
    });
    const logger = manager.getLogger("orders");
    logger.with({ requestId: "r-1" }).info("Order placed", { orderId: 42 });
    logger.error("Payment failed", new Error("declined"));
    await manager.dispose();
    const [first, second] = (await lines(filename)).map((line) =>
      JSON.parse(line)
    );
    assert.deepEqual(Object.keys(first), [
      "timestamp",
      "level",
      "category",
      "message",
      "properties",
      "requestId",
    ]);
    assert.match(first.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(first.level, "info");
    assert.equal(first.category, "orders");
    assert.equal(first.message, "Order placed");
    assert.deepEqual(first.properties, { orderId: 42 });
    assert.equal(first.requestId, "r-1");
    assert.equal(second.level, "error");
    assert.equal(second.error.name, "Error");
    assert.equal(second.error.message, "declined");
    assert.match(second.error.stack, /Error: declined\n\s+at /);
  } finally {
    await cleanup();
  }
});

test("FileLogProvider.flush() resolves when every byte is in the file", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const provider = new FileLogProvider({ filename });
    for (let i = 0; i < 500; i++) await provider.log(entry(i));
    await provider.flush();
    assert.deepEqual(
      await ids(filename),
      Array.from({ length: 500 }, (_, i) => i),
    );
    await provider.dispose();
  } finally {
    await cleanup();
  }
});

test("FileLogProvider rotates app.log → app.log.1 … app.log.<maxFiles-1>, keeping maxFiles files of at most maxFileSize", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const provider = new FileLogProvider({
      filename,
      maxFileSize: 1000,
      maxFiles: 3,
    });
    for (let i = 0; i < 200; i++) await provider.log(entry(i, 20));
    await provider.dispose();
    const names = (await readdir(dir)).sort();
    assert.deepEqual(names, ["app.log", "app.log.1", "app.log.2"]);
    const lineSize =
      (await readFile(join(dir, "app.log.1"), "utf8")).split("\n")[0].length +
      1;
    for (const name of names) {
      const { size } = await stat(join(dir, name));
      assert.ok(size <= 1000, `${name} is ${size} bytes`);
      if (name !== "app.log") {
        assert.ok(
          size > 1000 - lineSize - 2,
          `${name} was rotated only when full (${size})`,
        );
      }
    }
    // Oldest to newest, the kept files hold the last entries without a gap.
    const kept = [
      ...await ids(join(dir, "app.log.2")),
      ...await ids(join(dir, "app.log.1")),
      ...await ids(join(dir, "app.log")),
    ];
    assert.equal(kept.at(-1), 199);
    assert.deepEqual(
      kept,
      Array.from({ length: kept.length }, (_, i) => 200 - kept.length + i),
    );
  } finally {
    await cleanup();
  }
});

test("FileLogProvider gives an entry bigger than maxFileSize a file of its own, without empty files", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const provider = new FileLogProvider({
      filename,
      maxFileSize: 300,
      maxFiles: 5,
    });
    await provider.log(entry(1));
    await provider.log(entry(2, 1000));
    await provider.log(entry(3));
    await provider.dispose();
    assert.deepEqual((await readdir(dir)).sort(), [
      "app.log",
      "app.log.1",
      "app.log.2",
    ]);
    assert.deepEqual(await ids(join(dir, "app.log.2")), [1]);
    assert.deepEqual(await ids(join(dir, "app.log.1")), [2]);
    assert.ok((await stat(join(dir, "app.log.1"))).size > 1000);
    assert.deepEqual(await ids(join(dir, "app.log")), [3]);
  } finally {
    await cleanup();
  }
});

test("FileLogProvider after a restart appends to the file and continues the rotation from disk", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const options = { filename, maxFileSize: 1000, maxFiles: 4 };
    const first = new FileLogProvider(options);
    // About 115 bytes per line: 8 lines per file, so 12 entries rotate once.
    for (let i = 0; i < 12; i++) await first.log(entry(i));
    await first.dispose();
    const before = {
      current: await ids(filename),
      rotated: await ids(join(dir, "app.log.1")),
    };
    assert.deepEqual((await readdir(dir)).sort(), ["app.log", "app.log.1"]);

    const second = new FileLogProvider(options);
    await second.log(entry(100));
    await second.flush();
    assert.deepEqual(
      await ids(filename),
      [...before.current, 100],
      "appended, not truncated",
    );
    for (let i = 101; i < 112; i++) await second.log(entry(i));
    await second.dispose();
    const names = (await readdir(dir)).sort();
    assert.deepEqual(names, ["app.log", "app.log.1", "app.log.2"]);
    const all = [];
    for (const name of ["app.log.2", "app.log.1", "app.log"]) {
      all.push(...await ids(join(dir, name)));
      assert.ok((await stat(join(dir, name))).size <= 1000);
    }
    // The first run's rotated file moved up instead of being overwritten.
    assert.deepEqual(all.slice(0, before.rotated.length), before.rotated);
    assert.deepEqual(all, [
      ...before.rotated,
      ...before.current,
      ...Array.from({ length: 12 }, (_, i) => 100 + i),
    ]);
  } finally {
    await cleanup();
  }
});

test("FileLogProvider after a restart on a file whose last line is torn starts its first entry on a new line", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    // A run that died in the middle of a write: two whole lines and a piece.
    const whole = [
      JSON.stringify({ message: "before 1", properties: { id: -2 } }),
      JSON.stringify({ message: "before 2", properties: { id: -1 } }),
    ];
    const torn = '{"timestamp":"2026-11-26T10:00:00.000Z","level":"inf';
    await writeFile(filename, whole.join("\n") + "\n" + torn);
    const provider = new FileLogProvider({ filename, format: "json" });
    await provider.log(entry(1));
    await provider.log(entry(2));
    await provider.dispose();
    const all = await lines(filename);
    assert.equal(all.length, 5, all.join("\n"));
    assert.equal(all[2], torn, "the fragment stays as it was, on its own");
    const parsed = all.filter((line) => line !== torn).map((line) =>
      JSON.parse(line).properties.id
    );
    assert.deepEqual(parsed, [-2, -1, 1, 2]);

    // A file that ends with a whole line gets no empty line.
    const again = new FileLogProvider({ filename, format: "json" });
    await again.log(entry(3));
    await again.dispose();
    const text = await readFile(filename, "utf8");
    assert.ok(!text.includes("\n\n"), "no empty line");
    assert.deepEqual(
      (await lines(filename)).slice(3).map((line) =>
        JSON.parse(line).properties.id
      ),
      [1, 2, 3],
    );
  } finally {
    await cleanup();
  }
});

test("FileLogProvider removes rotated files beyond maxFiles left by an earlier run", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    for (
      const name of [
        "app.log.1",
        "app.log.2",
        "app.log.3",
        "app.log.7",
        "app.log.bak",
      ]
    ) {
      await writeFile(join(dir, name), "old\n");
    }
    const provider = new FileLogProvider({ filename, maxFiles: 3 });
    await provider.log(entry(1));
    await provider.dispose();
    assert.deepEqual((await readdir(dir)).sort(), [
      "app.log",
      "app.log.1",
      "app.log.2",
      "app.log.bak",
    ]);
  } finally {
    await cleanup();
  }
});

test("FileLogProvider keeps only app.log when maxFiles is 1", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const provider = new FileLogProvider({
      filename,
      maxFileSize: 500,
      maxFiles: 1,
    });
    for (let i = 0; i < 40; i++) await provider.log(entry(i));
    await provider.dispose();
    assert.deepEqual(await readdir(dir), ["app.log"]);
    const kept = await ids(filename);
    assert.equal(kept.at(-1), 39);
    assert.ok((await stat(filename)).size <= 500);
  } finally {
    await cleanup();
  }
});

test("FileLogProvider writes 10,000 concurrent entries exactly once, none interleaved, across rotations", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const provider = new FileLogProvider({
      filename,
      maxFileSize: 64 * 1024,
      maxFiles: 1000,
    });
    const manager = new LoggerManager().configure({
      level: "debug",
      providers: [provider],
    });
    const total = 10_000;
    const workers = 20;
    // Twenty concurrent producers, each yielding to the others between entries
    // (and to the writer, which is mid-write much of the time).
    await Promise.all(Array.from({ length: workers }, async (_, worker) => {
      const logger = manager.getLogger(`worker-${worker}`);
      for (let i = worker; i < total; i += workers) {
        logger.info("concurrent", { id: i, text: "é✓".repeat(i % 7) });
        if (i % 3 === 0) await Promise.resolve();
        if (i % 97 === 0) {
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      }
    }));
    await Promise.all(Array.from({ length: 100 }, () => manager.flush()));
    await manager.dispose();
    const seen = new Map<number, number>();
    const names = await readdir(dir);
    assert.ok(names.length > 10, `rotated into ${names.length} files`);
    for (const name of names) {
      assert.ok((await stat(join(dir, name))).size <= 64 * 1024);
      for (const line of await lines(join(dir, name))) {
        const parsed = JSON.parse(line); // an interleaved line would not parse
        assert.equal(parsed.message, "concurrent");
        seen.set(
          parsed.properties.id,
          (seen.get(parsed.properties.id) ?? 0) + 1,
        );
      }
    }
    assert.equal(seen.size, total);
    assert.ok(
      [...seen.values()].every((count) => count === 1),
      "each entry exactly once",
    );
  } finally {
    await cleanup();
  }
});

test("FileLogProvider format simple writes the console's text line", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const provider = new FileLogProvider({ filename, format: "simple" });
    await provider.log({ ...entry(5), message: "plain text" });
    await provider.dispose();
    const [line] = await lines(filename);
    assert.match(line, /^\S+Z INFO \[test\] plain text \{"id":5\}$/);
  } finally {
    await cleanup();
  }
});

test("FileLogProvider format simple escapes control characters in an error's message, stack and cause as in the message", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const provider = new FileLogProvider({ filename, format: "simple" });
    await provider.log({
      ...entry(6),
      category: "orders",
      level: LogLevel.Error,
      message: "Request failed",
      error: hostileError(),
    });
    await provider.dispose();
    const text = await readFile(filename, "utf8");
    assert.ok(text.endsWith("\n"));
    assertEscapedStack(text.slice(0, -1));
  } finally {
    await cleanup();
  }
});

test("FileLogProvider format json keeps every control character escaped, C1 and DEL too", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const provider = new FileLogProvider({ filename });
    const message = "esc \x1b[2K cr \r csi \u009b2J del \u007f";
    await provider.log({
      ...entry(7),
      message,
      properties: { note: message },
      error: hostileError(),
    });
    await provider.dispose();
    const text = await readFile(filename, "utf8");
    // deno-lint-ignore no-control-regex
    assert.equal(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/.exec(text), null, text);
    const [line] = await lines(filename);
    const parsed = JSON.parse(line);
    assert.equal(parsed.message, message, "the same text after parsing");
    assert.equal(parsed.properties.note, message);
  } finally {
    await cleanup();
  }
});

test("FileLogProvider reports entries it cannot write and counts them, without hanging flush()", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await writeFile(join(dir, "blocker"), "a file where a folder should be");
    const errors: Error[] = [];
    const provider = new FileLogProvider({
      filename: join(dir, "blocker", "app.log"),
      onError: (error) => errors.push(error),
    });
    await provider.log(entry(1));
    await provider.log(entry(2));
    await provider.flush();
    assert.equal(provider.dropped, 2);
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof LogDeliveryError);
    assert.equal((errors[0] as LogDeliveryError).dropped, 2);
    assert.match(
      errors[0].message,
      /^FileLogProvider: 2 entries lost writing .*blocker.app\.log: /,
    );
    await provider.dispose();
    await provider.log(entry(3));
    assert.equal(provider.dropped, 3);
    assert.match(
      errors[1].message,
      /1 entry dropped: logged after dispose\(\)/,
    );
  } finally {
    await cleanup();
  }
});

test("FileLogProvider validates its options", () => {
  assert.throws(
    () => new FileLogProvider({} as { filename: string }),
    (error: unknown) =>
      error instanceof LogProviderOptionError && error.option === "filename" &&
      error.message === "FileLogProvider: option 'filename' is required",
  );
  assert.throws(
    () => new FileLogProvider({ filename: "x.log", maxFiles: 0 }),
    /option 'maxFiles' must be a positive integer \(got 0\)/,
  );
  assert.throws(
    () => new FileLogProvider({ filename: "x.log", maxFileSize: 1.5 }),
    /option 'maxFileSize' must be a positive integer/,
  );
});
