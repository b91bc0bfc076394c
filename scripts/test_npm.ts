/**
 * Runs the same `node:test` files that `deno test` runs, against the built npm
 * packages, where npm users run them:
 *
 * 1. builds the packages (`scripts/build_npm.ts`);
 * 2. writes `npm/package.json`, a private workspace of the eight packages plus
 *    the test-only dependencies and Bun, and runs `npm install` there, so
 *    `@vendor/kit-*` resolve to the built packages exactly as after
 *    `npm install` in an application;
 * 3. transpiles `tests/` twice: to ES modules (`npm/tests/esm`, importing the
 *    packages with `import`) and to CommonJS (`npm/tests/cjs`, loading them
 *    with `require`), rewriting `../../<module>/mod.ts` to the package name;
 * 4. runs Node's test runner on both and Bun's on the ES modules;
 * 5. with the platform's tests, runs the test kit's check of each other
 *    runner (`tests/testing_runners/`): one file under Bun's own `bun:test`
 *    (in the Bun pass) and one under Vitest, a test-only dependency of the
 *    workspace that no package depends on.
 *
 * Every test is bounded (scripts/_test_limits.ts): Node.js's runner stops a
 * test file past `--test-timeout`, and a second reporter
 * (scripts/_node_limit_reporter.ts) names the test it was running; Bun's
 * stops a test or hook past `--timeout`, naming it.
 *
 * It prints one `<runtime>: N passed, N failed, N skipped` line per pass and
 * exits non-zero when a pass fails. `KIT_NPM_PASSES` picks passes
 * (`node-esm,node-cjs,bun,vitest`; all by default); `KIT_NPM_TESTS` limits the
 * test folders or files (`core,platform`, `platform/database` or
 * `platform/hono_test.ts`; all by default); `KIT_NPM_OUT` builds and
 * runs in another folder than `npm/` (so two runs need not share one).
 *
 * @module
 */
import ts from "typescript";
import { spawn } from "node:child_process";
import { dirname, join, relative, resolve } from "node:path";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import process from "node:process";
import { buildAll } from "./build_npm.ts";
import { packageOfFolder, PACKAGES } from "./_packages.ts";
import { replaceSpecifiers, resolveNpmImport } from "./_specifiers.ts";
import { variantFile } from "./_variants.ts";
import { BUN_TEST_LIMIT_MS, NODE_FILE_LIMIT_MS } from "./_test_limits.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
// The build's folder: `npm/`, or KIT_NPM_OUT (as scripts/build_npm.ts).
const NPM = resolve(ROOT, process.env.KIT_NPM_OUT ?? "npm");
const BUN_VERSION = "1.4.5";
// Vitest 3 still runs on Node.js 20.
const VITEST_VERSION = "3.2.7";

interface DenoJson {
  imports: Record<string, string>;
}

async function listTests(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await listTests(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out.sort();
}

/** Where the transpiled copies of internal/ stand among the tests. */
const INTERNAL_COPY = "_kit_internal";

/** A file's place among the transpiled tests (internal/ files included). */
function testPathOf(file: string): string {
  const internal = relative(join(ROOT, "internal"), file);
  return internal.startsWith("..")
    ? relative(join(ROOT, "tests"), file)
    : join(INTERNAL_COPY, internal);
}

function rewrite(
  source: string,
  file: string,
  imports: Record<string, string>,
  used: Map<string, string>,
): string {
  const where = relative(ROOT, file);
  const copyOf = (name: string): string => {
    const local = relative(
      dirname(testPathOf(file)),
      join(INTERNAL_COPY, name),
    );
    return (local.startsWith(".") ? local : "./" + local).slice(0, -3) + ".js";
  };
  return replaceSpecifiers(source, (specifier) => {
    // A runtime variant of internal/: the copy of its Node.js file.
    if (specifier.startsWith("#")) {
      const path = variantFile(specifier, "node", where);
      if (!path.startsWith("internal/")) {
        throw new Error(
          `${where}: '${specifier}' is a variant of a module; import that module's mod.ts`,
        );
      }
      return copyOf(path.slice("internal/".length));
    }
    if (specifier.startsWith("./") || specifier.startsWith("../")) {
      const rel = relative(ROOT, resolve(dirname(file), specifier)).split("/");
      const sibling = rel.length === 2 && rel[1] === "mod.ts"
        ? packageOfFolder(rel[0])
        : undefined;
      if (sibling !== undefined) return sibling.name;
      if (rel[0] === "internal") {
        // A shared internal file (its own tests, or another internal file):
        // its transpiled copy under tests/<format>/_kit_internal/.
        return copyOf(rel.slice(1).join("/"));
      }
      if (rel[0] !== "tests") {
        throw new Error(
          `${where}: '${specifier}' must import Kit through a module's mod.ts`,
        );
      }
      return specifier.endsWith(".ts")
        ? specifier.slice(0, -3) + ".js"
        : specifier;
    }
    if (specifier.startsWith("node:")) return specifier;
    // Kit's own names, npm's (`@vendor/kit-core`) or JSR's
    // (`@vendor/kit/core`), appear in code a test writes for a child
    // process or a scratch project, which picks what fits its runtime.
    if (
      specifier === "@vendor/kit" || specifier.startsWith("@vendor/kit/") ||
      PACKAGES.some((info) =>
        specifier === info.name || specifier.startsWith(info.name + "/")
      )
    ) return specifier;
    const npm = resolveNpmImport(specifier, imports, where);
    used.set(npm.name, npm.range);
    return npm.replacement;
  });
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, {
      cwd,
      // KIT_TEST_REPO: where the tests find the checkout's fixtures, wherever
      // KIT_NPM_OUT put the build (tests/_support/module_url.ts).
      env: { ...process.env, KIT_TEST_REPO: ROOT, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const relay = (
      chunk: Uint8Array,
      stream: { write(text: string): unknown },
    ): void => {
      const text = new TextDecoder().decode(chunk);
      output += text;
      stream.write(text);
    };
    child.stdout.on(
      "data",
      (chunk: Uint8Array) => relay(chunk, process.stdout),
    );
    child.stderr.on(
      "data",
      (chunk: Uint8Array) => relay(chunk, process.stderr),
    );
    child.on(
      "close",
      (code: number | null) => resolvePromise({ code: code ?? 1, output }),
    );
  });
}

interface PassResult {
  name: string;
  ms: number;
  passed: number;
  failed: number;
  skipped: number;
  code: number;
}

function countNode(
  output: string,
): { passed: number; failed: number; skipped: number } {
  const grab = (label: string): number => {
    const matches = [
      ...output.matchAll(new RegExp(`^# ${label} (\\d+)$`, "gm")),
    ];
    return matches.length ? Number(matches[matches.length - 1][1]) : 0;
  };
  return {
    passed: grab("pass"),
    failed: grab("fail") + grab("cancelled"),
    skipped: grab("skipped") + grab("todo"),
  };
}

function countBun(
  output: string,
): { passed: number; failed: number; skipped: number } {
  const grab = (label: string): number => {
    const match = new RegExp(`^\\s*(\\d+) ${label}$`, "m").exec(output);
    return match ? Number(match[1]) : 0;
  };
  return {
    passed: grab("pass"),
    failed: grab("fail"),
    skipped: grab("skip") + grab("todo"),
  };
}

function countVitest(
  output: string,
): { passed: number; failed: number; skipped: number } {
  const line = /^\s*Tests\s+(.*)$/m.exec(output)?.[1] ?? "";
  const grab = (label: string): number =>
    Number(new RegExp(`(\\d+) ${label}`).exec(line)?.[1] ?? 0);
  return {
    passed: grab("passed"),
    failed: grab("failed"),
    skipped: grab("skipped") + grab("todo"),
  };
}

async function main(): Promise<number> {
  const passes = (process.env.KIT_NPM_PASSES ?? "node-esm,node-cjs,bun,vitest")
    .split(",");
  // deno.dev.json maps what deno.json maps and the tests' own dependencies
  // (playwright-core, the OpenTelemetry SDK).
  const config = JSON.parse(
    await readFile(join(ROOT, "deno.dev.json"), "utf8"),
  ) as DenoJson;
  await buildAll();

  // Transpile the tests, collecting the npm packages they import.
  const used = new Map<string, string>();
  await rm(join(NPM, "tests"), { recursive: true, force: true });
  const only = process.env.KIT_NPM_TESTS?.split(",");
  const testFiles = (await listTests(join(ROOT, "tests"))).filter((file) => {
    const path = relative(join(ROOT, "tests"), file);
    const folder = path.split("/")[0];
    // Helpers are transpiled whatever the selection: a selected test may use
    // another folder's (tests/caching/_redis_server.ts). A selection may
    // name a folder inside one (`platform/database`), or one file.
    return only === undefined || folder.startsWith("_") ||
      only.some((name) => path === name || path.startsWith(`${name}/`)) ||
      !file.endsWith("_test.ts");
  });
  // The files of internal/ are not a package: their tests run against a
  // transpiled copy, which imports the packages by name.
  testFiles.push(...await listTests(join(ROOT, "internal")));
  const esmFiles: string[] = [];
  const cjsFiles: string[] = [];
  for (const file of testFiles) {
    const rel = testPathOf(file).slice(0, -3) + ".js";
    const source = rewrite(
      await readFile(file, "utf8"),
      file,
      config.imports,
      used,
    );
    const esm = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ES2022,
        target: ts.ScriptTarget.ES2022,
      },
      fileName: file,
    }).outputText;
    // CommonJS has no import.meta: give tests the same URL of their own file.
    let cjsSource = source.replaceAll(
      "import.meta.url",
      'require("node:url").pathToFileURL(__filename).href',
    );
    // A file of internal/ passes `import.meta` on (the loaders of the
    // dependencies loaded on first use): empty in CommonJS, as esbuild
    // leaves it in the packages' CommonJS bundles.
    if (testPathOf(file).startsWith(INTERNAL_COPY + "/")) {
      cjsSource = cjsSource.replace(/\bimport\.meta\b/g, "({})");
    }
    const cjs = ts.transpileModule(cjsSource, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
      fileName: file,
    }).outputText;
    for (
      const [folder, code, list] of [["esm", esm, esmFiles], [
        "cjs",
        cjs,
        cjsFiles,
      ]] as const
    ) {
      const target = join(NPM, "tests", folder, rel);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, code);
      if (/_test\.js$/.test(rel)) list.push(target);
    }
  }
  await writeFile(
    join(NPM, "tests", "esm", "package.json"),
    JSON.stringify({ type: "module" }) + "\n",
  );
  await writeFile(
    join(NPM, "tests", "cjs", "package.json"),
    JSON.stringify({ type: "commonjs" }) + "\n",
  );

  // The test kit under the runners of their own (plain JavaScript, copied
  // as they are, named as each runner looks for tests).
  const runners: Record<string, string> = {};
  if (only === undefined || only.includes("platform")) {
    const from = join(ROOT, "tests", "testing_runners");
    const to = join(NPM, "tests", "runners");
    await mkdir(to, { recursive: true });
    for (const name of await readdir(from)) {
      if (!name.endsWith(".mjs")) continue;
      const runner = /^(\w+)_runner\.mjs$/.exec(name)?.[1];
      const target = runner === undefined
        ? name
        : name.replace(/\.mjs$/, ".test.mjs");
      await writeFile(join(to, target), await readFile(join(from, name)));
      if (runner !== undefined) runners[runner] = join(to, target);
    }
  }

  // The optional peers of the packages (a subpath's drivers: pg, PGlite)
  // are installed as an application using that subpath would install them.
  for (const info of PACKAGES) {
    for (const name of info.optionalPeers ?? []) {
      if (used.has(name)) continue;
      used.set(
        name,
        resolveNpmImport(name, config.imports, "scripts/_packages.ts").range,
      );
    }
  }
  // A workspace of the built packages, installed the way an application would.
  const workspace = {
    name: "kit-npm-workspace",
    private: true,
    workspaces: PACKAGES.map((info) => info.dir),
    devDependencies: {
      ...Object.fromEntries(used),
      bun: BUN_VERSION,
      ...(runners.vitest === undefined ? {} : { vitest: VITEST_VERSION }),
    },
  };
  await writeFile(
    join(NPM, "package.json"),
    JSON.stringify(workspace, null, 2) + "\n",
  );
  const installStarted = performance.now();
  const install = await run("npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ], NPM);
  if (install.code !== 0) {
    console.log("npm install failed: 0 passed, 1 failed");
    return 1;
  }

  console.log(
    `npm install of the workspace: ${
      Math.round(performance.now() - installStarted)
    } ms`,
  );
  // The reporter that names the test a file was running when it ran out of
  // time, as the plain JavaScript Node.js loads.
  const limitReporter = join(NPM, "node_limit_reporter.mjs");
  await writeFile(
    limitReporter,
    ts.transpileModule(
      await readFile(join(ROOT, "scripts", "_node_limit_reporter.ts"), "utf8"),
      {
        compilerOptions: {
          module: ts.ModuleKind.ES2022,
          target: ts.ScriptTarget.ES2022,
        },
      },
    ).outputText,
  );
  const results: PassResult[] = [];
  const nodeArgs = [
    "--test",
    "--test-concurrency=1",
    `--test-timeout=${NODE_FILE_LIMIT_MS}`,
    "--test-reporter=tap",
    "--test-reporter-destination=stdout",
    `--test-reporter=${limitReporter}`,
    "--test-reporter-destination=stdout",
  ];
  if (passes.includes("node-esm")) {
    const started = performance.now();
    const { code, output } = await run("node", [...nodeArgs, ...esmFiles], NPM);
    const ms = Math.round(performance.now() - started);
    results.push({ name: "node (import)", ms, code, ...countNode(output) });
  }
  if (passes.includes("node-cjs")) {
    const started = performance.now();
    const { code, output } = await run("node", [...nodeArgs, ...cjsFiles], NPM);
    const ms = Math.round(performance.now() - started);
    results.push({ name: "node (require)", ms, code, ...countNode(output) });
  }
  if (passes.includes("bun")) {
    const bun = join(NPM, "node_modules", ".bin", "bun");
    const started = performance.now();
    const files = runners.bun === undefined
      ? esmFiles
      : [...esmFiles, runners.bun];
    const { code, output } = await run(bun, [
      "test",
      `--timeout=${BUN_TEST_LIMIT_MS}`,
      ...files.map((f) => "./" + relative(NPM, f)),
    ], NPM);
    const ms = Math.round(performance.now() - started);
    results.push({ name: "bun (import)", ms, code, ...countBun(output) });
  }
  if (passes.includes("vitest") && runners.vitest !== undefined) {
    const vitest = join(NPM, "node_modules", ".bin", "vitest");
    const started = performance.now();
    const { code, output } = await run(
      vitest,
      [
        "run",
        relative(NPM, runners.vitest),
      ],
      NPM,
      { CI: "true", NO_COLOR: "1" },
    );
    const ms = Math.round(performance.now() - started);
    results.push({ name: "vitest (import)", ms, code, ...countVitest(output) });
  }
  let failedPasses = 0;
  console.log("");
  for (const result of results) {
    if (result.code !== 0 && result.failed === 0) result.failed = 1;
    if (result.passed === 0) result.failed += 1;
    if (result.failed > 0) failedPasses++;
    console.log(
      `${result.name}: ${result.passed} passed, ${result.failed} failed, ${result.skipped} skipped`,
    );
    console.log(`  (${result.name} took ${Math.round(result.ms / 1000)} s)`);
  }
  return failedPasses === 0 ? 0 : 1;
}

process.exitCode = await main();
