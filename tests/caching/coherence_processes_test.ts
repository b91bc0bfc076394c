// The frozen-Redis scenario with each instance in its own process, as in
// production: a writer changes two keys while redis-server is stopped
// (SIGSTOP) for 3 s; after SIGCONT the reader, which had both keys in its
// memory layer, must read the delete and the overwrite. The processes and
// this test meet through marker files in a shared folder.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test as nodeTest } from "node:test";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { redisSkip, startRedisServer, waitFor } from "./_redis_server.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const CHILD = `
import {
  CacheManager,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
  TieredCacheProvider,
} from CACHING_URL;
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

const dir = process.env.COH_DIR;
const role = process.env.COH_ROLE;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check, what) {
  const deadline = Date.now() + 15000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(role + ": timed out waiting for " + what);
    await sleep(20);
  }
}
const marked = (name) => existsSync(join(dir, name));
const mark = (name) => writeFileSync(join(dir, name), "");

const l2 = new RemoteStoreCacheProvider({
  host: "127.0.0.1",
  port: Number(process.env.COH_PORT),
  keyPrefix: "coherence:",
  connectTimeout: 1000,
  commandTimeout: 500,
  reconnectDelay: 20,
  maxReconnectDelay: 100,
  onError() {},
});
const l1 = new MemoryCacheProvider({ maxSize: 100 });
const tiered = new TieredCacheProvider(l1, l2, { onError() {} });
if (!(await tiered.connect())) throw new Error(role + ": no Redis");
const cache = new CacheManager(tiered, { onError() {}, policy: { ttl: 60000 } });
let result;
if (role === "writer") {
  await cache.set("k", "v1");
  await cache.set("k2", "v1");
  mark("writer-ready");
  await until(() => marked("paused"), "paused");
  await cache.delete("k");
  await cache.set("k2", "v2");
  mark("writer-wrote");
  await until(() => marked("resumed"), "resumed");
  await until(() => l2.isConnected && (l2.recoveryStats?.pending ?? 0) === 0, "the re-send");
  result = { k: await cache.get("k") ?? null, k2: await cache.get("k2") ?? null, stats: l2.recoveryStats };
} else {
  await until(() => marked("writer-ready"), "writer-ready");
  const before = { k: await cache.get("k"), k2: await cache.get("k2") };
  // A read that overlaps an invalidation (the writer's own, maybe late)
  // does not fill the memory layer: read until it does.
  await until(async () => {
    await cache.get("k");
    await cache.get("k2");
    return (await l1.has("k")) && (await l1.has("k2"));
  }, "k and k2 in memory");
  mark("reader-ready");
  await until(() => marked("resumed"), "resumed");
  const start = Date.now();
  let k, k2;
  await until(async () => {
    k = await cache.get("k");
    k2 = await cache.get("k2");
    return k === undefined && k2 === "v2";
  }, "k absent and k2=v2 (last: " + JSON.stringify({ k, k2 }) + ")").catch((error) => {
    result = { before, k: k ?? null, k2: k2 ?? null, error: String(error) };
  });
  result ??= { before, k: k ?? null, k2: k2 ?? null, after: Date.now() - start };
}
await cache.dispose({ timeout: 2000 });
console.log(JSON.stringify(result));
`;

test(
  "two processes: a delete and an overwrite made while Redis is frozen 3 s reach the other process",
  { skip: redisSkip },
  async () => {
    await using server = await startRedisServer();
    const dir = await mkdtemp(join(tmpdir(), "kit-coherence-"));
    try {
      const env = (role: string) => ({
        env: { COH_DIR: dir, COH_ROLE: role, COH_PORT: String(server.port) },
      });
      const writer = runChildScript(CHILD, env("writer"));
      const reader = runChildScript(CHILD, env("reader"));
      // A child that fails early must not leave this test waiting.
      let ended = false;
      const both = Promise.all([writer, reader]).finally(() => (ended = true));
      // Awaited below; caught at once too, so that a child past its time
      // limit fails this test, never as an unhandled rejection in a later one.
      both.catch(() => {});
      await waitFor(
        () => existsSync(join(dir, "reader-ready")) || ended,
        "the reader to fill its memory layer",
        25_000,
      );
      server.pause();
      const pausedAt = Date.now();
      try {
        await writeFile(join(dir, "paused"), "");
        await waitFor(
          () => existsSync(join(dir, "writer-wrote")) || ended,
          "the writer's changes",
        );
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, pausedAt + 3_000 - Date.now()))
        );
      } finally {
        server.resume();
      }
      await writeFile(join(dir, "resumed"), "");
      const [w, r] = await both;
      assert.equal(w.code, 0, w.out);
      assert.equal(r.code, 0, r.out);
      const written = lastJson(w);
      const read = lastJson(r);
      assert.deepEqual(read.before, { k: "v1", k2: "v1" }, r.out);
      assert.equal(read.error, undefined, r.out);
      assert.equal(read.k, null);
      assert.equal(read.k2, "v2");
      assert.equal(written.k, null);
      assert.equal(written.k2, "v2");
      const raw = await server.client();
      assert.equal(await raw.get("coherence:k"), null);
      assert.equal(
        JSON.parse((await raw.get("coherence:k2")) ?? "null")?.value,
        "v2",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
