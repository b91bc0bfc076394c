// docs/config.md lists every key Kit reads in a table generated from the
// keys' declarations by scripts/config_keys.ts; these tests run the generator
// in check mode, so a declaration changed without the docs fails here. The
// generator is a Deno script: the npm passes skip them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { withTempDir } from "./_helpers.ts";

const inDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
const skip = inDeno ? false : "the docs generator is a Deno script";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SCRIPT = join(ROOT, "scripts", "config_keys.ts");
const DOC = join(ROOT, "docs", "config.md");

function runCheck(...extra: string[]): { status: number; stderr: string } {
  const result = spawnSync(
    process.execPath,
    ["run", "-A", SCRIPT, "--check", ...extra],
    { cwd: ROOT, encoding: "utf8", timeout: 60_000 },
  );
  return { status: result.status ?? -1, stderr: result.stderr ?? "" };
}

test("docs/config.md lists the declared keys as the generator writes them", {
  skip,
}, () => {
  const { status, stderr } = runCheck();
  assert.equal(status, 0, stderr);
});

test("the check fails on a page whose table is out of date", {
  skip,
}, async () => {
  const page = await readFile(DOC, "utf8");
  const stale = page.replace(
    /^\| `cache:redis:port` .*$/m,
    "| `cache:redis:port` | integer | 1–99 | — | `APP_CACHE__REDIS__PORT` |",
  );
  assert.notEqual(stale, page, "the page has no cache:redis:port row");
  await withTempDir(async (dir) => {
    const file = join(dir.path, "config.md");
    await writeFile(file, stale);
    const { status, stderr } = runCheck("--file", file);
    assert.equal(status, 1, stderr);
    assert.match(stderr, /out of date.*scripts\/config_keys\.ts/s);
    // Check mode never writes.
    assert.equal(await readFile(file, "utf8"), stale);
  });
});
