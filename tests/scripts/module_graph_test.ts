// The direction of imports between Kit's folders (scripts/_module_graph.ts,
// from the `uses` of scripts/_packages.ts): a forbidden import fails,
// naming the importing file, the imported one and the rule; the checkout
// keeps to the rules; docs/architecture.svg draws the declaration. The
// checker runs from a checkout under Deno; under Node.js and Bun (the npm
// passes) there is nothing to check.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// One test runs the check's command in a child process: each has an
// explicit limit, on every runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;
const skip = isDeno
  ? false
  : "the module check runs from a checkout under Deno";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface PackageInfo {
  folder: string;
  name: string;
  uses: readonly string[];
  bins?: Record<string, string>;
}

interface ModuleGraphInput {
  packages: readonly PackageInfo[];
  internalUses: readonly string[];
  imports: Readonly<Record<string, string>>;
  exports: Readonly<Record<string, string>>;
  variants: Readonly<Record<string, Record<string, string>>>;
}

interface GraphModule {
  moduleGraphInput(root: string): Promise<ModuleGraphInput>;
  checkModuleGraph(root: string, input?: ModuleGraphInput): Promise<string[]>;
  assertModuleGraph(root: string, input?: ModuleGraphInput): Promise<void>;
  checkDeclaration(input: ModuleGraphInput): string[];
}

// Loaded by URL at run time: the npm passes transpile this file, whose
// static imports must name Kit's modules.
function graph(): Promise<GraphModule> {
  return import(
    new URL("../../scripts/_module_graph.ts", import.meta.url).href
  ) as Promise<GraphModule>;
}

/** Writes `files` (path → text) under a new temporary folder. */
async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kit-modules-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

/**
 * Runs scripts/check_modules.ts on the checkout, or on the tree in `root`;
 * fails after 120 s.
 */
function checkModules(
  root?: string,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [
      "run",
      "--allow-read",
      "--allow-env",
      "--config",
      join(ROOT, "deno.dev.json"),
      join(ROOT, "scripts", "check_modules.ts"),
      ...(root === undefined ? [] : ["--root", root]),
    ], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (chunk) => output += chunk);
    child.stderr.on("data", (chunk) => output += chunk);
    child.on("error", reject);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`scripts/check_modules.ts still running:\n${output}`));
    }, 120_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, output });
    });
  });
}

describe("module direction", { skip }, () => {
  it("refuses an import a module's uses do not name, naming both files and the rule", async () => {
    const { assertModuleGraph, checkModuleGraph, moduleGraphInput } =
      await graph();
    const input = await moduleGraphInput(ROOT);
    const dir = await tree({
      "core/mod.ts": 'export * from "./strings.ts";\n',
      "core/strings.ts":
        'import { CacheManager } from "../caching/mod.ts";\nexport const cache = CacheManager;\n',
      "caching/mod.ts": "export class CacheManager {}\n",
    });
    try {
      const problems = await checkModuleGraph(dir, input);
      assert.deepEqual(problems, [
        `core/strings.ts:1 imports caching/mod.ts ('../caching/mod.ts'): core may not use caching: a module imports only its own files, internal/ and the mod.ts of the modules its "uses" names in scripts/_packages.ts (core: none)`,
      ]);
      // What the npm build calls before it bundles anything.
      await assert.rejects(
        assertModuleGraph(dir, input),
        (error: Error) =>
          error.message.includes("core/strings.ts:1 imports caching/mod.ts"),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses core importing internal/, internal/ importing a feature module, and a module reaching past a mod.ts", async () => {
    const { checkModuleGraph, moduleGraphInput } = await graph();
    const input = await moduleGraphInput(ROOT);
    const dir = await tree({
      "core/clock.ts":
        'import { unrefTimer } from "../internal/unref_timer.ts";\nimport { unref } from "#internal/unref";\nexport { unref, unrefTimer };\n',
      "internal/unref_timer.ts": "export const unrefTimer = 1;\n",
      "internal/redirect.ts":
        'import type { HttpClient } from "../http/mod.ts";\nimport { systemClock } from "../core/mod.ts";\nexport type { HttpClient };\nexport { systemClock };\n',
      "caching/_store.ts":
        'import { Application } from "../platform/_application.ts";\nexport { Application };\n',
    });
    try {
      const problems = await checkModuleGraph(dir, input);
      assert.deepEqual(problems, [
        `caching/_store.ts:1 imports platform/_application.ts ('../platform/_application.ts'): caching may use platform only through platform/mod.ts; platform/_application.ts is not part of what platform exports (move what is shared to internal/, or export it from platform/mod.ts)`,
        `core/clock.ts:1 imports internal/unref_timer.ts ('../internal/unref_timer.ts'): core may not import internal/, which builds on core (internal/ uses core in scripts/_packages.ts); core keeps a private copy of what it needs`,
        `core/clock.ts:2 imports internal/_unref_deno.ts ('#internal/unref'): core may not import internal/, which builds on core (internal/ uses core in scripts/_packages.ts); core keeps a private copy of what it needs`,
        `core/clock.ts:2 imports internal/_unref_node.ts ('#internal/unref'): core may not import internal/, which builds on core (internal/ uses core in scripts/_packages.ts); core keeps a private copy of what it needs`,
        `internal/redirect.ts:1 imports http/mod.ts ('../http/mod.ts'): internal/ may not import http/mod.ts: its files import only each other and the mod.ts of core (INTERNAL_USES in scripts/_packages.ts), so every package can bundle them`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps programs and examples to the public entry points", async () => {
    const { checkModuleGraph, moduleGraphInput } = await graph();
    const input = await moduleGraphInput(ROOT);
    const dir = await tree({
      // kit-i18n is localization's program: it may not use caching.
      "cli/i18n/main.ts":
        'import { CacheManager } from "../../caching/mod.ts";\nimport { Localizer } from "../../localization/mod.ts";\nexport { CacheManager, Localizer };\n',
      "examples/app.ts":
        'import { kit } from "@vendor/kit-platform/hono";\nimport { backoff } from "../internal/backoff.ts";\nexport { backoff, kit };\n',
      "create/main.ts":
        'import { toCamelCase } from "../core/mod.ts";\nexport { toCamelCase };\n',
    });
    try {
      const problems = await checkModuleGraph(dir, input);
      assert.deepEqual(problems, [
        `cli/i18n/main.ts:1 imports caching/mod.ts ('../../caching/mod.ts'): cli/i18n may not import caching/mod.ts: a program imports its own files, internal/ and the mod.ts of the package that installs it and of the modules that package uses (localization, core, platform, config)`,
        `create/main.ts:1 imports core/mod.ts ('../core/mod.ts'): create/ may not import core/mod.ts: the project generator's package has no dependencies, so it imports only its own files (and the build scripts, for a project made from this checkout)`,
        `examples/app.ts:2 imports internal/backoff.ts ('../internal/backoff.ts'): examples/ may not import internal/backoff.ts: it reaches Kit only through a module's mod.ts or an export of deno.json, as an application does`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fails the check's command on a forbidden import and on a picture that no longer draws the declaration, saying which command redraws it", async () => {
    const dir = await tree({
      "deno.json": JSON.stringify({ imports: {}, exports: {} }),
      "platform/mod.ts":
        'import { Analytics } from "../analytics/mod.ts";\nexport { Analytics };\n',
      "analytics/mod.ts": "export class Analytics {}\n",
      "docs/architecture.svg": "<svg/>\n",
    });
    try {
      const result = await checkModules(dir);
      assert.equal(result.code, 1, result.output);
      assert.match(
        result.output,
        /platform\/mod\.ts:1 imports analytics\/mod\.ts \('\.\.\/analytics\/mod\.ts'\): platform may not use analytics: .*\(platform: core\)/,
      );
      assert.match(
        result.output,
        /docs\/architecture\.svg no longer draws the modules' "uses" of scripts\/_packages\.ts: run `deno run -A --config deno\.dev\.json scripts\/check_modules\.ts --write` and commit the result/,
      );
      assert.match(result.output, /module check: 2 problems/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a declaration whose uses name a module listed later", async () => {
    const { checkDeclaration, moduleGraphInput } = await graph();
    const input = await moduleGraphInput(ROOT);
    const packages = input.packages.map((info) =>
      info.folder === "platform" ? { ...info, uses: ["core", "caching"] } : info
    );
    assert.deepEqual(checkDeclaration({ ...input, packages }), [
      "scripts/_packages.ts: platform uses 'caching', which is not a package listed before it; a module uses only modules below it (core)",
    ]);
    assert.deepEqual(checkDeclaration(input), []);
  });

  it("passes on the checkout, whose picture draws the declaration", async () => {
    const { checkModuleGraph } = await graph();
    assert.deepEqual(await checkModuleGraph(ROOT), []);
    const result = await checkModules();
    assert.equal(result.code, 0, result.output);
    assert.match(
      result.output,
      /module check: every import keeps the declared direction/,
    );
    const picture = await readFile(
      join(ROOT, "docs", "architecture.svg"),
      "utf8",
    );
    assert.match(
      picture,
      /<title>Kit's modules and the imports allowed between them<\/title>/,
    );
    // Well-formed XML, or browsers show an error instead of the picture: no
    // `--` inside a comment.
    for (const [comment] of picture.matchAll(/<!--([\s\S]*?)-->/g)) {
      assert.equal(comment.slice(4, -3).includes("--"), false, comment);
    }
  });
});
