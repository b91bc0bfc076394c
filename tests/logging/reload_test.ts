// Reloading the logging setup while entries are queued once lost file
// entries; now the file keeps one writer, nothing is lost,
// no file grows past maxFileSize, no line is cut.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  FileLogProvider,
  LoggerManager,
  type LogProperties,
} from "../../logging/mod.ts";
import { memoryConfig, tempDir } from "./_helpers.ts";

const MAX_FILE_SIZE = 64 * 1024;

async function readAll(
  dir: string,
): Promise<{ ids: number[]; sizes: number[] }> {
  const ids: number[] = [];
  const sizes: number[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    sizes.push((await stat(path)).size);
    const text = await readFile(path, "utf8");
    assert.ok(text === "" || text.endsWith("\n"), `${name} ends a line`);
    for (const line of text.split("\n")) {
      if (line === "") continue;
      // A cut or interleaved line does not parse.
      const entry = JSON.parse(line) as { properties: LogProperties };
      ids.push(entry.properties.id as number);
    }
  }
  return { ids, sizes };
}

function fileConfig(filename: string, level: string) {
  return memoryConfig({
    "logging:level": level,
    "logging:providers": [{
      type: "file",
      options: { filename, maxFileSize: MAX_FILE_SIZE, maxFiles: 100 },
    }],
  });
}

// 100 tasks log 100 entries each, yielding between entries, while `reload`
// runs at a few points in the middle.
async function burst(
  manager: LoggerManager,
  reload: (round: number) => void,
): Promise<void> {
  const logger = manager.getLogger("reload");
  let logged = 0;
  let round = 0;
  await Promise.all(
    Array.from({ length: 100 }, async (_, task) => {
      for (let i = 0; i < 100; i++) {
        logger.info("request handled", {
          id: task * 100 + i,
          path: "/api/items",
          padding: "x".repeat(40),
        });
        logged++;
        if (logged % 1500 === 0 && round < 6) reload(round++);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }),
  );
  assert.equal(round, 6, "every reload ran");
}

test("fromConfiguration() reloads that change only the level keep the file provider and every entry", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const manager = new LoggerManager().fromConfiguration(
      fileConfig(filename, "info"),
    );
    const provider = manager.providers[0];
    await burst(manager, (round) => {
      manager.fromConfiguration(
        fileConfig(filename, round % 2 === 0 ? "debug" : "info"),
      );
      assert.equal(manager.providers[0], provider, "the same provider");
    });
    await manager.dispose();
    const { ids, sizes } = await readAll(dir);
    assert.equal(ids.length, 10_000);
    assert.equal(new Set(ids).size, 10_000, "every entry exactly once");
    for (const size of sizes) assert.ok(size <= MAX_FILE_SIZE, `${size} bytes`);
  } finally {
    await cleanup();
  }
});

test("configure() reloads with a new FileLogProvider of the same file hand the file over without losing entries", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const options = { filename, maxFileSize: MAX_FILE_SIZE, maxFiles: 100 };
    const manager = new LoggerManager().configure({
      level: "info",
      providers: [new FileLogProvider(options)],
    });
    const errors: unknown[] = [];
    await burst(manager, () => {
      manager.configure({
        level: "info",
        providers: [new FileLogProvider(options)],
        onError: (error) => errors.push(error),
      });
    });
    await manager.dispose();
    assert.deepEqual(errors, []);
    const { ids, sizes } = await readAll(dir);
    assert.equal(new Set(ids).size, 10_000, "every entry kept");
    assert.equal(ids.length, 10_000, "none written twice");
    for (const size of sizes) assert.ok(size <= MAX_FILE_SIZE, `${size} bytes`);
  } finally {
    await cleanup();
  }
});

test("a reload that lowers maxFiles and maxFileSize rotates with the new limits from then on", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const filename = join(dir, "app.log");
    const manager = new LoggerManager().configure({
      level: "info",
      providers: [
        new FileLogProvider({ filename, maxFileSize: 4096, maxFiles: 10 }),
      ],
    });
    const logger = manager.getLogger("limits");
    for (let i = 0; i < 400; i++) logger.info("before", { id: i });
    manager.configure({
      level: "info",
      providers: [
        new FileLogProvider({ filename, maxFileSize: 2048, maxFiles: 3 }),
      ],
    });
    for (let i = 400; i < 800; i++) logger.info("after", { id: i });
    await manager.dispose();
    const names = (await readdir(dir)).sort();
    assert.deepEqual(names, ["app.log", "app.log.1", "app.log.2"]);
    const { ids, sizes } = await readAll(dir);
    for (const size of sizes) assert.ok(size <= 2048, `${size} bytes`);
    // The newest entries, in order, with nothing missing among them.
    const sorted = [...ids].sort((a, b) => a - b);
    assert.equal(sorted.at(-1), 799);
    assert.deepEqual(
      sorted,
      Array.from({ length: sorted.length }, (_, i) => sorted[0] + i),
    );
  } finally {
    await cleanup();
  }
});

test("FileLogProvider.dispose({ signal }) that already fired drops and reports what is not written, once", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const errors: Error[] = [];
    const provider = new FileLogProvider({
      filename: join(dir, "app.log"),
      onError: (error) => errors.push(error),
    });
    const manager = new LoggerManager().configure({
      level: "info",
      providers: [provider],
    });
    const logger = manager.getLogger("deadline");
    for (let i = 0; i < 1000; i++) logger.info("m", { id: i });
    await manager.dispose({ signal: AbortSignal.abort(new Error("too late")) });
    const { ids } = await readAll(dir);
    assert.equal(provider.dropped + ids.length, 1000, "each entry once");
    assert.equal(provider.dropped, 1000, "the file was not open yet");
    assert.equal(errors.length, 1);
    assert.match(
      errors[0].message,
      /^FileLogProvider: 1000 entries lost writing .*app\.log: dispose\(\) stopped \(too late\) before they were written$/,
    );
  } finally {
    await cleanup();
  }
});

test("fromConfiguration(config, options): values set in code win over the configuration", () => {
  const manager = new LoggerManager();
  const config = memoryConfig({
    "logging:level": "debug",
    "logging:providers": [{ type: "console" }],
  });
  const mine = new FileLogProvider({ filename: "never-written.log" });
  manager.fromConfiguration(config, { level: "error", providers: [mine] });
  assert.equal(manager.level, 3);
  assert.deepEqual(manager.providers, [mine]);
  manager.fromConfiguration(config);
  assert.equal(manager.level, 0);
  assert.equal(manager.providers.length, 1);
  assert.notEqual(manager.providers[0], mine);
});
