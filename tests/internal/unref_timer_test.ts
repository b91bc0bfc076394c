import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { execPath } from "node:process";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { isNpmPass } from "../_support/module_url.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

// The URL of a file of internal/ for a child process: the source under
// `deno test`, its transpiled copy (beside the tests) in the npm passes.
function internalUrl(name: string): string {
  return isNpmPass()
    ? new URL(`../_kit_internal/${name}.js`, import.meta.url).href
    : new URL(`../../internal/${name}.ts`, import.meta.url).href;
}

test("unrefTimer() returns the same handle, which can still be cleared", () => {
  let fired = false;
  const handle = setTimeout(() => {
    fired = true;
  }, 5);
  assert.equal(unrefTimer(handle), handle);
  clearTimeout(handle);
  assert.equal(fired, false);
});

test("unrefTimer() lets the process exit while an interval is pending", () => {
  const script = `
    import { unrefTimer } from ${JSON.stringify(internalUrl("unref_timer"))};
    unrefTimer(setInterval(() => {}, 1000));
    unrefTimer(setTimeout(() => console.log("timer fired"), 60000));
    console.log("done");
  `;
  // The same runtime that runs this test (deno, node or bun) runs the script.
  const isDeno = "Deno" in globalThis;
  const args = isDeno
    ? ["eval", "--ext=ts", script]
    : ["--input-type=module", "-e", script];
  const result = spawnSync(execPath, args, {
    timeout: 20_000,
    encoding: "utf8",
  });
  assert.equal(result.error, undefined, String(result.error));
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), "done");
});
