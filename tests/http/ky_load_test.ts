// In Node.js and Bun the http package loads ky with the first HttpClient, not
// when the package is imported: loading ky builds a `Request` (ky probes
// whether request streams work), and the first `Request` makes Node.js load
// its fetch implementation, undici, a large part of a cold start. A child
// process counts the `Request`s built while it imports the package and then
// while it makes a client. Deno imports ky with the module (its flavour of
// the loader), so the test is skipped there.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const isDeno = (process.versions as Record<string, string | undefined>).deno !==
  undefined;

test(
  "HttpClient: importing the package loads no ky (builds no Request); the first client loads it",
  {
    skip: isDeno && "Deno imports ky with the module",
  },
  async () => {
    const result = await runChildScript(`let built = 0;
globalThis.Request = new Proxy(globalThis.Request, {
  construct(target, args, newTarget) {
    built++;
    return Reflect.construct(target, args, newTarget);
  },
});
const { HttpClient } = await import(HTTP_URL);
const atImport = built;
const first = new HttpClient("http://127.0.0.1:9");
const atFirst = built;
new HttpClient("http://127.0.0.1:9");
const atSecond = built;
console.log(JSON.stringify({ atImport, atFirst, atSecond, ok: first.baseUrl }));
`);
    assert.equal(result.code, 0, result.out);
    const printed = lastJson(result) as {
      atImport: number;
      atFirst: number;
      atSecond: number;
      ok: string;
    };
    assert.equal(printed.atImport, 0, "no Request is built at import");
    // ky's probe at load: the count shows ky was loaded by the first client
    // (and that this child would have seen it at import).
    assert.ok(printed.atFirst > 0, result.out);
    // Loaded once: later clients build none.
    assert.equal(printed.atSecond, printed.atFirst);
    assert.equal(printed.ok, "http://127.0.0.1:9");
  },
);
