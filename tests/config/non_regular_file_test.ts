// A FIFO (or any file that is not a regular file) named as a configuration
// file used to block start-up for ever: opening a FIFO for reading waits for a
// writer. Such files are refused at once, naming the path, and every file
// read is bounded in time (readTimeout). Real FIFOs made with mkfifo.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { open, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import {
  ConfigurationManager,
  ConfigurationSourceError,
  createConfiguration,
  DotEnvProvider,
  JsonFileProvider,
} from "../../config/mod.ts";
import { withTempDir } from "./_helpers.ts";

const skip = process.platform === "win32";

// Settles `promise` or fails after `ms`: a read that blocks must not hang the
// test run.
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`still waiting after ${ms} ms`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

// Releases any reader waiting on the FIFO at `path` by opening it for
// writing once, so nothing is left blocked.
async function releaseFifo(path: string): Promise<void> {
  try {
    const writer = await open(
      path,
      constants.O_WRONLY | (constants.O_NONBLOCK ?? 0),
    );
    await writer.close();
  } catch {
    // ENXIO: no reader waits; ENOENT: no FIFO. Nothing to release.
  }
}

// Makes a FIFO at `path`; the returned function releases its readers.
function fifo(path: string): () => Promise<void> {
  execFileSync("mkfifo", [path]);
  return () => releaseFifo(path);
}

function escaped(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

test(
  "JsonFileProvider refuses a FIFO at once, naming the path",
  { skip },
  async () => {
    await withTempDir(async (dir) => {
      const path = join(dir.path, "appsettings.json");
      const release = fifo(path);
      try {
        const started = Date.now();
        const error = await within(
          new JsonFileProvider(path).load().then(
            () => assert.fail("loaded"),
            (error: unknown) => error,
          ),
          3_000,
        );
        assert.ok(error instanceof ConfigurationSourceError);
        assert.equal(error.path, path);
        assert.equal(
          error.message,
          `Configuration file ${path} is not a regular file (a FIFO); ` +
            "name a regular file",
        );
        assert.ok(Date.now() - started < 3_000);
      } finally {
        await release();
      }
    });
  },
);

test(
  "DotEnvProvider refuses a FIFO at once, naming the path",
  { skip },
  async () => {
    await withTempDir(async (dir) => {
      const path = join(dir.path, ".env");
      const release = fifo(path);
      try {
        await within(
          assert.rejects(
            new DotEnvProvider(".env", { basePath: dir.path }).load(),
            (error: unknown) => {
              assert.ok(error instanceof ConfigurationSourceError);
              assert.equal(
                error.message,
                `Configuration file ${path} is not a regular file (a FIFO); ` +
                  "name a regular file",
              );
              return true;
            },
          ),
          3_000,
        );
      } finally {
        await release();
      }
    });
  },
);

test(
  "createConfiguration: a FIFO as the environment's override file fails start-up fast",
  { skip },
  async () => {
    await withTempDir(async (dir) => {
      await dir.write("appsettings.json", { app: { name: "kit" } });
      const path = join(dir.path, "appsettings.staging.json");
      const release = fifo(path);
      try {
        await within(
          assert.rejects(
            createConfiguration({ basePath: dir.path, environment: "staging" }),
            (error: unknown) => {
              assert.ok(error instanceof ConfigurationSourceError);
              assert.match(
                error.message,
                new RegExp(
                  `^Configuration file ${
                    escaped(path)
                  } is not a regular file \\(a FIFO\\)`,
                ),
              );
              return true;
            },
          ),
          3_000,
        );
      } finally {
        await release();
      }
    });
  },
);

test(
  "a watched file replaced by a FIFO is seen as unreadable, and polling goes on",
  { skip },
  async () => {
    await withTempDir(async (dir) => {
      const path = await dir.write("settings.json", { level: "info" });
      const parked = join(dir.path, "parked.fifo");
      await using config = new ConfigurationManager({ basePath: dir.path });
      await config.addJsonFile("settings.json", {
        watch: true,
        pollInterval: 20,
      });
      await config.loadConfiguration();
      await rm(path);
      fifo(path);
      try {
        // Several polls meet the FIFO; then it is moved aside (still open to a
        // reader that would wait on it) and a regular file takes its place.
        await new Promise((resolve) => setTimeout(resolve, 200));
        await rename(path, parked);
        await writeFile(path, JSON.stringify({ level: "debug" }));
        const deadline = Date.now() + 3_000;
        while (config.getValue<string>("level") !== "debug") {
          assert.ok(Date.now() < deadline, "the change was not seen");
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await releaseFifo(parked);
      }
    });
  },
);

test("readTimeout: defaults to 10 s, is checked, and a read past it fails naming the path", async () => {
  assert.throws(
    () => new JsonFileProvider("a.json", { readTimeout: 0 }),
    {
      name: "RangeError",
      message:
        "JsonFileProvider: readTimeout must be a positive number of milliseconds, got 0",
    },
  );
  assert.throws(
    () => new DotEnvProvider(".env", { readTimeout: -5 }),
    RangeError,
  );
  await withTempDir(async (dir) => {
    // Opening, reading and closing 9 MiB takes far longer than 10 µs, and a
    // read that ends after its limit fails even when it wins the race
    // against the timer.
    const path = await dir.write(
      "big.json",
      JSON.stringify({ data: "x".repeat(9 * 1024 * 1024) }),
    );
    await assert.rejects(
      new JsonFileProvider(path, { readTimeout: 0.01 }).load(),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationSourceError);
        assert.equal(error.path, path);
        assert.equal(
          error.message,
          `Configuration file ${path} could not be read within 0.01 ms ` +
            "(readTimeout); check the file system it is on, or raise the " +
            "provider's readTimeout option",
        );
        return true;
      },
    );
    // With the default the same file loads.
    const entries = await new JsonFileProvider(path).load();
    assert.equal(entries.length, 1);
  });
});
