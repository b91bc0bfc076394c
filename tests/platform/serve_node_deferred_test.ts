// On Node.js the host serves through @hono/node-server's request listener,
// and loads it with the first `serve`: importing the package, or starting an
// application that does not serve, leaves it unloaded, and leaves the global
// Request and Response alone; serving replaces them with its lighter
// subclasses, which still pass for the standard ones. Node.js lists what
// require() and require(esm) loaded in require.cache, so the npm pass for
// Node.js checks it there. (Deno serves with Deno.serve, Bun with
// Bun.serve: neither loads it.)
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { isNpmPass } from "../_support/module_url.ts";
import { runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const isNode = !("Deno" in globalThis) && !("Bun" in globalThis);

describe("serving on Node.js", () => {
  it(
    "loads @hono/node-server with the first serve, not at import or start-up, and only then replaces Request and Response with subclasses",
    {
      skip: isNpmPass() && isNode
        ? false
        : "only the npm package for Node.js serves through @hono/node-server",
    },
    async () => {
      const result = await runChildScript(`
import { createRequire } from "node:module";
const cache = createRequire(process.argv[1]).cache;
const { Request: GlobalRequest, Response: GlobalResponse } = globalThis;
const state = () => ({
  loaded: Object.keys(cache).some((file) =>
    file.includes("/node_modules/@hono/node-server/")
  ),
  globals: globalThis.Request === GlobalRequest &&
    globalThis.Response === GlobalResponse,
});
const { Application } = await import(PLATFORM_URL);
const atImport = state();
const quiet = await Application.start({ configuration: () => ({}) });
await quiet.stop();
const withoutServe = state();
let made;
const app = await Application.start({
  configuration: () => ({}),
  serve: () => async (request) => {
    made = new Response("made");
    return new Response(
      request.method + " " + new URL(request.url).pathname + " " +
        (request instanceof GlobalRequest) + " " + (await request.text()),
    );
  },
  server: { port: 0, hostname: "127.0.0.1" },
});
const answer = await fetch(app.url + "/a", {
  method: "POST",
  body: "hi",
  signal: AbortSignal.timeout(5000),
});
const body = await answer.text();
await app.stop();
console.log(JSON.stringify({
  atImport,
  withoutServe,
  serving: state(),
  body,
  subclasses: made instanceof GlobalResponse &&
    Object.getPrototypeOf(globalThis.Request) === GlobalRequest &&
    Object.getPrototypeOf(globalThis.Response) === GlobalResponse,
}));
`);
      assert.equal(result.code, 0, result.out);
      const lines = result.out.trim().split("\n");
      assert.deepEqual(JSON.parse(lines[lines.length - 1]), {
        atImport: { loaded: false, globals: true },
        withoutServe: { loaded: false, globals: true },
        serving: { loaded: true, globals: false },
        body: "POST /a true hi",
        subclasses: true,
      });
    },
  );
});
