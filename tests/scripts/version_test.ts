// `deno task version <x.y.z>` (scripts/version.ts), run as a release
// manager runs it, in a child process, on a copy of deno.json and
// CHANGELOG.md in a scratch folder (`--root`), never on the checkout's own
// files. Under Node.js and Bun (the npm passes) there is no task to run.
import { afterEach, beforeEach, describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;
const skip = isDeno ? false : "the task runs from a checkout under Deno";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the task on `root`; fails after 60 seconds. */
function version(root: string, args: string[]): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [
      "run",
      "-A",
      join(ROOT, "scripts", "version.ts"),
      "--root",
      root,
      ...args,
    ], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => stdout += chunk);
    child.stderr.on("data", (chunk) => stderr += chunk);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`version ${args.join(" ")}: no exit within 60 s`));
    }, 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

const CHANGELOG = `# Changelog

All notable changes are listed here.

## [Unreleased]

### Added

- The thing.

## [0.0.1] - 2026-01-02

### Added

- The first thing.
`;

// Each test carries the skip, so the npm passes count them as skipped.
describe("deno task version", () => {
  let root = "";
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "kit-version-"));
    await copyFile(join(ROOT, "deno.json"), join(root, "deno.json"));
    await writeFile(join(root, "CHANGELOG.md"), CHANGELOG);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const current = async (): Promise<string> =>
    (JSON.parse(await readFile(join(root, "deno.json"), "utf8")) as {
      version: string;
    }).version;

  it(
    "sets deno.json's version and opens the CHANGELOG section",
    { skip },
    async () => {
      const before = await current();
      const configBefore = await readFile(join(root, "deno.json"), "utf8");
      const run = await version(root, ["9.1.0"]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(await current(), "9.1.0");
      // Only the version changed: the rest of deno.json is as it was.
      assert.equal(
        await readFile(join(root, "deno.json"), "utf8"),
        configBefore.replace(`"version": "${before}"`, `"version": "9.1.0"`),
      );
      const today = new Date().toISOString().slice(0, 10);
      assert.equal(
        await readFile(join(root, "CHANGELOG.md"), "utf8"),
        CHANGELOG.replace(
          "## [Unreleased]\n",
          `## [Unreleased]\n\n## [9.1.0] - ${today}\n`,
        ),
      );
      assert.match(run.stdout, new RegExp(`${before} -> 9\\.1\\.0`));
      // The checkout's own files are untouched.
      assert.notEqual(
        (JSON.parse(await readFile(join(ROOT, "deno.json"), "utf8")) as {
          version: string;
        }).version,
        "9.1.0",
      );
    },
  );

  it("takes a pre-release above the current version", { skip }, async () => {
    const run = await version(root, ["9.0.0-rc.1"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await current(), "9.0.0-rc.1");
  });

  for (const bad of ["1.2", "v9.0.0", "9.0.0.0", "latest", "9.0.0 "]) {
    it(
      `refuses ${JSON.stringify(bad)}, which is not semver`,
      { skip },
      async () => {
        const before = await current();
        const run = await version(root, [bad]);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /is not a semantic version/);
        assert.equal(await current(), before);
        assert.equal(
          await readFile(join(root, "CHANGELOG.md"), "utf8"),
          CHANGELOG,
        );
      },
    );
  }

  it(
    "refuses a version that is not greater than the current one",
    { skip },
    async () => {
      const before = await current();
      for (const low of [before, "0.0.0"]) {
        const run = await version(root, [low]);
        assert.equal(run.code, 1, `${low}: ${run.stdout}`);
        assert.match(
          run.stderr,
          new RegExp(`is not greater than the current version ${before}`),
        );
      }
      assert.equal(await current(), before);
      assert.equal(
        await readFile(join(root, "CHANGELOG.md"), "utf8"),
        CHANGELOG,
      );
    },
  );

  it(
    "refuses when [Unreleased] lists nothing, and writes nothing",
    { skip },
    async () => {
      const empty = CHANGELOG.replace("### Added\n\n- The thing.\n\n", "");
      await writeFile(join(root, "CHANGELOG.md"), empty);
      const before = await current();
      const run = await version(root, ["9.1.0"]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /"## \[Unreleased\]" lists nothing/);
      assert.equal(await current(), before);
    },
  );

  it("refuses a version the CHANGELOG already has", { skip }, async () => {
    await writeFile(
      join(root, "CHANGELOG.md"),
      CHANGELOG.replace("## [0.0.1]", "## [9.1.0]"),
    );
    const run = await version(root, ["9.1.0"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /already has a section for 9\.1\.0/);
  });

  it("says how to call it", { skip }, async () => {
    const run = await version(root, []);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /usage: deno task version <x\.y\.z>/);
  });
});
