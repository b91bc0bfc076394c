// The split of the checkout's npm dependencies: deno.json (and its lock,
// deno.lock) names only what Kit, the demo, the example service and the
// generator run, since `deno task` and `deno run` fetch every npm package
// of deno.json and of its lock before they start; deno.dev.json names that
// and what the tests, benches and scripts/ use besides, with a lock of its
// own.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const isDeno = (globalThis as { Deno?: unknown }).Deno !== undefined;
const skip = isDeno ? false : "the configuration files are the checkout's";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Config {
  imports: Record<string, string>;
  lock?: string | { path: string };
  workspace?: unknown;
}

interface Lock {
  npm?: Record<string, unknown>;
  workspace?: { members?: unknown };
}

async function json<T>(name: string): Promise<T> {
  return JSON.parse(await readFile(join(ROOT, name), "utf8")) as T;
}

/** The npm package names an imports map names (`npm:<name>@<range>`). */
function npmNames(imports: Record<string, string>): Set<string> {
  const names = new Set<string>();
  for (const target of Object.values(imports)) {
    const match = /^npm:(@?[^@/]+(?:\/[^@/]+)?)@/.exec(target);
    if (match) names.add(match[1]);
  }
  return names;
}

/** The package names of a lock's npm section (`name@version_peers`). */
function lockedNames(lock: Lock): Set<string> {
  return new Set(
    Object.keys(lock.npm ?? {}).map((id) => id.slice(0, id.indexOf("@", 1))),
  );
}

describe("the checkout's dependency split", { skip }, () => {
  it("deno.dev.json maps everything deno.json maps, the same way, and has a lock of its own", async () => {
    const root = await json<Config>("deno.json");
    const dev = await json<Config>("deno.dev.json");
    for (const [name, target] of Object.entries(root.imports)) {
      assert.equal(
        dev.imports[name],
        target,
        `deno.dev.json must map '${name}' to '${target}' as deno.json does`,
      );
    }
    const lock = typeof dev.lock === "string" ? dev.lock : dev.lock?.path;
    assert.equal(lock, "./deno.dev.lock");
    assert.ok(existsSync(join(ROOT, "deno.dev.lock")));
  });

  it("deno.json has no workspace members, whose dependencies deno task would fetch too", async () => {
    const root = await json<Config>("deno.json");
    assert.equal(root.workspace, undefined);
    assert.equal((await json<Lock>("deno.lock")).workspace?.members, undefined);
  });

  it("deno.lock holds none of the development-only packages", async () => {
    const root = npmNames((await json<Config>("deno.json")).imports);
    const devOnly = [
      ...npmNames((await json<Config>("deno.dev.json")).imports),
    ].filter((name) => !root.has(name));
    assert.ok(devOnly.includes("playwright-core"));
    assert.ok(devOnly.includes("typescript"));
    const locked = lockedNames(await json<Lock>("deno.lock"));
    assert.deepEqual(devOnly.filter((name) => locked.has(name)), []);
    // and everything deno.json names is locked there
    assert.deepEqual([...root].filter((name) => !locked.has(name)), []);
  });
});
