// The analytics package reaches @opentelemetry/api only through
// loadOpenTelemetryApi() (internal/telemetry/open_telemetry.ts), once something is registered: a process without an
// SDK never loads it. Node.js lists what require() and require(esm) loaded in
// require.cache, so the npm pass for Node.js checks that importing the
// package and delivering batches (which, with an SDK, make spans and count
// events) added nothing there; every runtime checks the delivery.
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
import { createServer } from "node:http";
const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);
const cache = isNode ? createRequire(process.argv[1]).cache : {};
const loaded = () =>
  Object.keys(cache).some((file) => file.includes("/node_modules/${API}/"));
// What the packages analytics depends on load is theirs.
await import(CORE_URL);
await import(PLATFORM_URL);
await import(CONFIG_URL);
const dependencies = loaded();
const analytics = await import(ANALYTICS_URL);
const atImport = loaded();
const received = [];
const server = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    received.push(...JSON.parse(body).events.map((event) => event.name));
    response.writeHead(200, { "content-type": "application/json" });
    response.end("{}");
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const provider = new analytics.CustomAnalyticsProvider({
  endpoint: "http://127.0.0.1:" + server.address().port + "/collect",
  batchSize: 2,
  flushInterval: 0,
  onError: () => {},
});
for (const name of ["a", "b", "c"]) {
  provider.track({
    type: "track", name, properties: {}, timestamp: Date.now(),
    anonymousId: "anon-1", sampleRate: 1, messageId: "m-" + name,
  });
}
const flushed = await provider.flush({ timeout: 5_000 });
await provider.dispose();
await new Promise((resolve) => server.close(resolve));
console.log(JSON.stringify({
  dependencies, atImport, afterUse: loaded(), flushed, received: received.sort(),
}));
`;

describe("analytics delivery without an OpenTelemetry SDK", () => {
  it("delivers the batches", async () => {
    const result = await runChildScript(CHILD);
    assert.equal(result.code, 0, result.out);
    const { flushed, received } = lastJson(result);
    assert.deepEqual(flushed, { delivered: 3, dropped: 0 });
    assert.deepEqual(received, ["a", "b", "c"]);
  });

  it("never loads @opentelemetry/api in Node.js", {
    skip: isNpmPass() && isNode
      ? false
      : "only the npm package for Node.js defers the API (Deno imports it with core)",
  }, async () => {
    const result = await runChildScript(CHILD);
    assert.equal(result.code, 0, result.out);
    const { dependencies, atImport, afterUse } = lastJson(result);
    // Neither the packages analytics depends on, nor analytics at import or
    // in use without an SDK, load the API.
    assert.deepEqual({ dependencies, atImport, afterUse }, {
      dependencies: false,
      atImport: false,
      afterUse: false,
    });
  });
});
