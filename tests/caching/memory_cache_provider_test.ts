import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import diagnostics from "node:diagnostics_channel";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test as nodeTest } from "node:test";
import { MemoryCacheProvider } from "../../caching/mod.ts";
import {
  activeResources,
  assertNothingLeft,
  FakeClock,
  grownResources,
} from "./_support.ts";
import { waitFor } from "./_redis_server.ts";
import { moduleUrl } from "../_support/module_url.ts";
import { fileURLToPath } from "node:url";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

// Taken before any test runs; the last test checks nothing outlived them.
const baseline = activeResources();

const entry = (value: unknown) => ({ value, storedAt: 0 });

test("MemoryCacheProvider keeps at most maxSize entries, evicting the least recently used", () => {
  const provider = new MemoryCacheProvider({ maxSize: 3, cleanupInterval: 0 });
  provider.set("a", entry(1));
  provider.set("b", entry(2));
  provider.set("c", entry(3));
  provider.get("a"); // a is now the most recently used
  provider.set("d", entry(4));
  assert.equal(provider.size, 3);
  assert.equal(provider.has("b"), false, "b was the least recently used");
  assert.deepEqual(["a", "c", "d"].map((k) => provider.get(k)?.value), [
    1,
    3,
    4,
  ]);
  provider.dispose();
});

test("MemoryCacheProvider expires entries after defaultTtl or the ttl given to set()", () => {
  const clock = new FakeClock(0);
  const provider = new MemoryCacheProvider({
    defaultTtl: 1_000,
    cleanupInterval: 0,
    clock: clock.read,
  });
  provider.set("default", entry(1));
  provider.set("short", entry(2), 100);
  provider.set("own", { value: 3, storedAt: 0, ttl: 2_000, maxStale: 500 });
  clock.advance(100);
  assert.equal(provider.get("short")?.value, 2);
  clock.advance(1);
  assert.equal(provider.get("short"), undefined);
  clock.advance(899); // 1000
  assert.equal(provider.has("default"), true);
  clock.advance(1);
  assert.equal(provider.has("default"), false);
  clock.advance(1_499); // 2500: the entry's own ttl + maxStale
  assert.equal(provider.get("own")?.value, 3);
  clock.advance(1);
  assert.equal(provider.get("own"), undefined);
  provider.dispose();
});

test("MemoryCacheProvider: a ttl given to one set() never carries over to the next write", () => {
  const clock = new FakeClock(0);
  const provider = new MemoryCacheProvider({
    defaultTtl: 1_000,
    cleanupInterval: 0,
    clock: clock.read,
  });
  provider.set("short", entry(1), 100);
  provider.set("default", entry(2));
  provider.set("own", { value: 3, storedAt: 0, ttl: 300, maxStale: 0 });
  provider.set("zero", entry(4), 0); // kept for the shortest time, 1 ms
  clock.advance(1);
  assert.equal(provider.has("zero"), true);
  clock.advance(1);
  assert.equal(provider.has("zero"), false);
  clock.advance(99); // 101
  assert.equal(provider.has("short"), false);
  assert.equal(provider.has("own"), true);
  clock.advance(200); // 301
  assert.equal(provider.has("own"), false);
  assert.equal(provider.get("default")?.value, 2, "defaultTtl, not 100 or 300");
  clock.advance(699); // 1000
  assert.equal(provider.has("default"), true);
  clock.advance(1);
  assert.equal(provider.has("default"), false);
  provider.dispose();
});

test("MemoryCacheProvider: lru-cache's metrics subscribers get one status per write, with that write's key and ttl", () => {
  const statuses: { key?: unknown; ttl?: unknown; set?: unknown }[] = [];
  const listener = (message: unknown) =>
    statuses.push(message as { key?: unknown; ttl?: unknown; set?: unknown });
  diagnostics.subscribe("lru-cache:metrics", listener);
  const provider = new MemoryCacheProvider({
    defaultTtl: 1_000,
    cleanupInterval: 0,
  });
  try {
    provider.set("a", entry(1), 100);
    provider.set("b", entry(2));
    provider.set("a", entry(3), 50);
  } finally {
    diagnostics.unsubscribe("lru-cache:metrics", listener);
    provider.dispose();
  }
  const writes = statuses.filter((status) => status.set !== undefined);
  assert.deepEqual(
    writes.map(({ key, ttl, set }) => ({ key, ttl, set })),
    [
      { key: "a", ttl: 100, set: "add" },
      { key: "b", ttl: 1_000, set: "add" },
      { key: "a", ttl: 50, set: "replace" },
    ],
  );
  assert.equal(new Set(writes).size, 3, "a fresh status object per write");
});

test("MemoryCacheProvider purges expired entries every cleanupInterval without any read", async () => {
  const clock = new FakeClock(0);
  const provider = new MemoryCacheProvider({
    defaultTtl: 1_000,
    cleanupInterval: 10,
    clock: clock.read,
  });
  try {
    for (let i = 0; i < 10; i++) provider.set(`k${i}`, entry(i));
    provider.set("long", entry("kept"), 60_000);
    clock.advance(1_001);
    assert.equal(provider.size, 11, "expired entries linger until purged");
    await waitFor(() => provider.size === 1, "the clean-up timer");
    assert.equal(provider.get("long")?.value, "kept");
  } finally {
    provider.dispose();
  }
});

test("MemoryCacheProvider.clear(prefix) removes only keys under the prefix", () => {
  const provider = new MemoryCacheProvider({ cleanupInterval: 0 });
  for (const key of ["users:1", "users:2", "orders:1", "users"]) {
    provider.set(key, entry(key));
  }
  provider.clear("users:");
  assert.deepEqual(
    ["users:1", "users:2", "orders:1", "users"].map((k) => provider.has(k)),
    [false, false, true, true],
  );
  provider.clear();
  assert.equal(provider.size, 0);
  provider.dispose();
});

test("MemoryCacheProvider rejects invalid options", () => {
  assert.throws(() => new MemoryCacheProvider({ maxSize: 0 }), {
    name: "RangeError",
    message: "MemoryCacheProvider maxSize must be a positive number: 0",
  });
  assert.throws(() => new MemoryCacheProvider({ defaultTtl: -1 }), RangeError);
  assert.throws(() => new MemoryCacheProvider({ cleanupInterval: -1 }), {
    message:
      "MemoryCacheProvider cleanupInterval must be a non-negative number: -1",
  });
});

test("MemoryCacheProvider's clean-up timer is unref'd and dispose() stops it", () => {
  const before = activeResources();
  const provider = new MemoryCacheProvider({ cleanupInterval: 5 });
  provider.set("k", entry(1));
  // An unref'd timer is not an active (process-holding) resource.
  assert.deepEqual(grownResources(before, activeResources()), []);
  provider.dispose();
  assert.equal(provider.size, 0);
  assert.deepEqual(grownResources(before, activeResources()), []);
});

const isDeno =
  typeof (process.versions as Record<string, string | undefined>).deno ===
    "string";

test(
  "MemoryCacheProvider's clean-up timer never keeps the process alive",
  {},
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "kit-memory-"));
    try {
      // The same runtime runs the child: Deno on the sources, Node.js or Bun on
      // the built package's ES modules.
      const script = join(dir, isDeno ? "child.ts" : "child.mjs");
      const mod = moduleUrl("caching").replace("/script/mod.js", "/esm/mod.js");
      await writeFile(
        script,
        `import { MemoryCacheProvider } from ${JSON.stringify(mod)};\n` +
          `const provider = new MemoryCacheProvider({ cleanupInterval: 50 });\n` +
          `provider.set("k", { value: 1, storedAt: 0 });\n` +
          `console.log("started");\n`,
      );
      const args = isDeno
        ? [
          "run",
          "-A",
          "--no-check",
          "--config",
          fileURLToPath(new URL("../../deno.dev.json", import.meta.url)),
          script,
        ]
        : [script];
      const child = spawn(process.execPath, args, {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on(
        "data",
        (chunk: Uint8Array) => (output += new TextDecoder().decode(chunk)),
      );
      child.stderr.on(
        "data",
        (chunk: Uint8Array) => (output += new TextDecoder().decode(chunk)),
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const code = await Promise.race([
        new Promise<number | null>((resolve) =>
          child.once("exit", (c) => resolve(c))
        ),
        new Promise<"hung">((
          resolve,
        ) => (timer = setTimeout(() => resolve("hung"), 60_000))),
      ]);
      clearTimeout(timer);
      if (code === "hung") child.kill("SIGKILL");
      assert.equal(code, 0, output);
      assert.match(output, /started/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);

// Without a limit of its own: a limit is a timer, which this check counts
// (it is bounded by assertNothingLeft's deadline).
nodeTest(
  "no socket, ref'd timer or child process outlives the tests of this file",
  async () => {
    await assertNothingLeft(baseline);
  },
);
