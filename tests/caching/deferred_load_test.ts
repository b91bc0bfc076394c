// The caching package reaches @opentelemetry/api only through
// loadOpenTelemetryApi() (internal/telemetry/open_telemetry.ts), once something is registered: a process without an
// SDK never loads it; lru-cache loads with the first MemoryCacheProvider.
// Node.js lists what require() and require(esm) loaded in require.cache, so the npm pass for Node.js checks that importing the
// package and using a cache (misses, hits, a failing factory) added nothing
// there; every runtime checks the cache's answers.
// (A static ES import would not show in require.cache; the npm package
// check, scripts/check_packages.ts, looks for those in the bundles.)
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { isNpmPass } from "../_support/module_url.ts";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);

const API = "@opentelemetry/api";

const CHILD = `
import { createRequire } from "node:module";
const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
const cache = isNode ? createRequire(process.argv[1]).cache : {};
const loaded = (name = "${API}") =>
  Object.keys(cache).some((file) => file.includes("/node_modules/" + name + "/"));
// What the packages caching depends on load is theirs.
await import(CORE_URL);
await import(PLATFORM_URL);
await import(CONFIG_URL);
const dependencies = loaded();
const caching = await import(CACHING_URL);
const atImport = loaded();
const lruAtImport = loaded("lru-cache");
const provider = new caching.MemoryCacheProvider();
const lruWithProvider = loaded("lru-cache");
const manager = new caching.CacheManager(provider);
const area = manager.area("users");
let runs = 0;
const values = [
  await manager.getOrSet("a", () => ++runs, { ttl: 60_000 }),
  await manager.getOrSet("a", () => ++runs, { ttl: 60_000 }),
  await area.getOrSet("b", () => ++runs, { ttl: 60_000 }),
  await area.getOrSet("b", () => ++runs, { ttl: 60_000 }),
];
let failure = "";
try {
  await manager.getOrSet("c", () => { throw new Error("factory failed"); });
} catch (error) {
  failure = error.message;
}
const stats = manager.stats();
await manager.dispose();
console.log(JSON.stringify({
  dependencies, atImport, afterUse: loaded(), lruAtImport, lruWithProvider,
  values, failure,
  hits: stats.hits, misses: stats.misses, factoryErrors: stats.factoryErrors,
}));
`;

describe("caching without an OpenTelemetry SDK", () => {
  it("answers misses, hits and a failing factory", async () => {
    const result = await runChildScript(CHILD);
    assert.equal(result.code, 0, result.out);
    const { values, failure, hits, misses, factoryErrors } = lastJson(result);
    assert.deepEqual(values, [1, 1, 2, 2]);
    assert.equal(failure, "factory failed");
    assert.deepEqual({ hits, misses, factoryErrors }, {
      hits: 2,
      misses: 3,
      factoryErrors: 1,
    });
  });

  it("never loads @opentelemetry/api in Node.js", {
    skip: isNpmPass() && isNode
      ? false
      : "only the npm package for Node.js defers the API (Deno imports it with core)",
  }, async () => {
    const result = await runChildScript(CHILD);
    assert.equal(result.code, 0, result.out);
    const { dependencies, atImport, afterUse } = lastJson(result);
    // Neither the packages caching depends on, nor caching at import or in
    // use without an SDK, load the API.
    assert.deepEqual({ dependencies, atImport, afterUse }, {
      dependencies: false,
      atImport: false,
      afterUse: false,
    });
  });

  it(
    "loads lru-cache with the first MemoryCacheProvider, not at import, in Node.js",
    {
      skip: isNpmPass() && isNode
        ? false
        : "only the npm package for Node.js defers lru-cache (Deno imports it with the module)",
    },
    async () => {
      const result = await runChildScript(CHILD);
      assert.equal(result.code, 0, result.out);
      const { lruAtImport, lruWithProvider } = lastJson(result);
      assert.deepEqual({ lruAtImport, lruWithProvider }, {
        lruAtImport: false,
        lruWithProvider: true,
      });
    },
  );
});
