// In Node.js and Bun the http package loads ky with the first HttpClient, not
// when the package is imported: loading ky builds a `Request` (ky probes
// whether request streams work), and the first `Request` makes Node.js load
// its fetch implementation, undici, a large part of a cold start. A child
// process counts the `Request`s built while it imports the package and then
// while it makes a client. Deno imports ky with the module (its flavour of
// the loader), so the test is skipped there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { moduleUrl } from "../_support/module_url.ts";

const isDeno = (process.versions as Record<string, string | undefined>).deno !==
  undefined;

test(
  "HttpClient: importing the package loads no ky (builds no Request); the first client loads it",
  {
    skip: isDeno && "Deno imports ky with the module",
  },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "kit-http-ky-"));
    try {
      const script = join(dir, "child.mjs");
      await writeFile(
        script,
        `let built = 0;
globalThis.Request = new Proxy(globalThis.Request, {
  construct(target, args, newTarget) {
    built++;
    return Reflect.construct(target, args, newTarget);
  },
});
const { HttpClient } = await import(${JSON.stringify(moduleUrl("http"))});
const atImport = built;
const first = new HttpClient("http://127.0.0.1:9");
const atFirst = built;
new HttpClient("http://127.0.0.1:9");
const atSecond = built;
console.log(JSON.stringify({ atImport, atFirst, atSecond, ok: first.baseUrl }));
`,
      );
      const result = await new Promise<{ code: number | null; out: string }>(
        (resolve, reject) => {
          const child = spawn(process.execPath, [script], {
            stdio: ["ignore", "pipe", "pipe"],
            env: { ...process.env, NO_COLOR: "1" },
          });
          let out = "";
          child.stdout.on("data", (chunk) => (out += chunk));
          child.stderr.on("data", (chunk) => (out += chunk));
          const timer = setTimeout(() => {
            child.kill("SIGKILL");
            reject(new Error(`the child is still running after 30 s: ${out}`));
          }, 30_000);
          child.on("close", (code) => {
            clearTimeout(timer);
            resolve({ code, out });
          });
        },
      );
      assert.equal(result.code, 0, result.out);
      const printed = JSON.parse(result.out.trim().split("\n").at(-1)!) as {
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
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
