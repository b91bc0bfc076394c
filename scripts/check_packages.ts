/**
 * Checks the built npm packages (run `deno task build:npm` first):
 *
 * - `deno.json` exports, the eight `package.json` files and their versions
 *   agree (one version for all; sibling dependencies as `^` that version);
 * - package.json metadata: license as in deno.json, the LICENSE's holder as
 *   author, keywords, and `repository`/`homepage`/`bugs` as
 *   `KIT_NPM_REPOSITORY` gives them (left out when unset), never a
 *   placeholder domain;
 * - every `bin` path is written without `./` and `npm publish --dry-run`
 *   (offline) corrects nothing in package.json (npm drops `./bin/…`
 *   entries on publish);
 * - the JavaScript is readable (no line over 1000 characters, so a trace
 *   prints one line of code) and each source map names files inside the
 *   package, relative to itself, and carries their text;
 * - no declaration file shows a JSR import path (`"@vendor/kit/platform"`)
 *   where an npm user imports `@vendor/kit-platform`, or imports a file the
 *   package does not ship (the declarations of internal/ never do);
 * - no built file references the `Deno` global, and no file a web bundler
 *   reaches from the `browser` export condition (`esm/mod_browser.js`, or
 *   `esm/mod.js` where no variant has a browser file) imports a `node:`
 *   module or a Node-only package;
 * - every bundle (`esm/mod.js`, `script/mod.js`, `esm/mod_browser.js`,
 *   `bin/*.mjs`) gzips to under a 64 kB ceiling, which catches accidents such
 *   as a dependency copied in (the build refuses those too); the packed size
 *   of each package (`npm pack`, dependencies excluded) is reported against
 *   the 50 kB goal without the source maps, a performance goal like the
 *   others tracked in BENCHMARKS.md, with the size with the maps beside it;
 * - each subpath entry (`@vendor/kit-platform/hono`) is in both `exports`
 *   maps and built, and the npm packages only it needs are optional peers
 *   that the main bundles never import, not even on first use;
 * - the server bundles (`esm/mod.js`, `script/mod.js`) load none of the
 *   dependencies Kit loads on first use (`DEFERRED`: the OpenTelemetry API,
 *   ky, LogTape, valibot, the FormatJS parser and matcher, lru-cache,
 *   @hono/node-server) when
 *   they are imported: no static `import` or `require` of them, and, once the
 *   workspace of `scripts/test_npm.ts` is installed, none of them in
 *   `require.cache` after a fresh `node` requires the package (a cold start
 *   in Node.js pays for each: the cold-import section of BENCHMARKS.md);
 * - every program of the package.json `bin` field is a `#!/usr/bin/env node`
 *   script that starts: `--help` and no argument at all each exit with 0
 *   (help) or 2 (usage), when the workspace of `scripts/test_npm.ts` is
 *   installed (npm/node_modules), else the run is reported as skipped;
 * - `publint` and `@arethetypeswrong/cli` find no problem in any package;
 * - the generator's package (`@vendor/create-kit`, for `npm init
 *   @vendor/kit`) has Kit's version, no dependencies, only its program
 *   (`bin/create-kit.mjs`, no `Deno` global), passes publint, and its
 *   program prints the usage for `--help` (0) and for no argument (2).
 *
 * Exits non-zero with one line per problem. Run: `deno task check:npm`.
 *
 * @module
 */
import ts from "typescript";
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { readdir, readFile } from "node:fs/promises";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";
import process from "node:process";
import {
  authorOf,
  CREATE_PACKAGE,
  jsrExportOf,
  PACKAGES,
} from "./_packages.ts";
import {
  type Metadata,
  packedSizes,
  sharedProblems,
} from "./_package_checks.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
// The build's folder: `npm/`, or KIT_NPM_OUT (as scripts/build_npm.ts).
const NPM = resolve(ROOT, process.env.KIT_NPM_OUT ?? "npm");
const PUBLINT = "publint@0.3.25";
const PACKED_GOAL = 50 * 1000;
const BUNDLE_CEILING = 64 * 1000;
const ATTW = "@arethetypeswrong/cli@0.18.5";

interface Manifest extends Metadata {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  exports: Record<string, { browser?: { default: string } } | string>;
  bin?: Record<string, string>;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await walk(path));
    else out.push(path);
  }
  return out;
}

// True when code (not comments) names `Deno`: an identifier, or a property
// reached as `globalThis.Deno` / `globalThis["Deno"]`.
function referencesDeno(fileName: string, code: string): boolean {
  const source = ts.createSourceFile(
    fileName,
    code,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.JS,
  );
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isIdentifier(node) && node.text === "Deno") found = true;
    else if (ts.isStringLiteral(node) && node.text === "Deno") found = true;
    else ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// npm packages a browser bundle must never reach (they need node: modules).
const NODE_ONLY_PACKAGES = new Set(["redis", "dotenv", "@hono/node-server"]);

/** Specifiers of a browser build file that a web bundler could not serve. */
function nodeOnlyImports(code: string): string[] {
  return ts.preProcessFile(code, true, true).importedFiles
    .map((ref) => ref.fileName)
    .filter((specifier) =>
      specifier.startsWith("node:") ||
      NODE_ONLY_PACKAGES.has(
        specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1)
          .join("/"),
      )
    );
}

// Dependencies the server bundles load on their first use, never at import:
// each costs a Node.js cold start 5 to 40 ms (see BENCHMARKS.md).
const DEFERRED = [
  "@opentelemetry/api",
  "ky",
  "@logtape/logtape",
  "valibot",
  "@formatjs/intl-localematcher",
  "@formatjs/icu-messageformat-parser",
  "lru-cache",
  // The host's request listener on Node.js, loaded with the first `serve`.
  "@hono/node-server",
];

/**
 * The deferred dependencies a server bundle imports or requires at load: an
 * `import`/`export … from` declaration, or a `require("…")` call outside any
 * function (a dynamic `import()`, or the `require` esbuild makes of one in
 * CommonJS, runs later and is fine).
 */
function deferredImports(fileName: string, code: string): string[] {
  const source = ts.createSourceFile(
    fileName,
    code,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.JS,
  );
  const found: string[] = [];
  const note = (specifier: ts.Expression | undefined): void => {
    if (
      specifier !== undefined && ts.isStringLiteral(specifier) &&
      DEFERRED.some((name) =>
        specifier.text === name || specifier.text.startsWith(name + "/")
      )
    ) {
      found.push(specifier.text);
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      note(node.moduleSpecifier);
    } else if (
      ts.isCallExpression(node) && ts.isIdentifier(node.expression) &&
      node.expression.text === "require"
    ) {
      note(node.arguments[0]);
    }
    if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The deferred dependencies in `require.cache` after a fresh `node` requires
 * the package from the installed workspace, or undefined when the workspace
 * is not installed.
 */
function deferredLoaded(
  name: string,
  also: readonly string[] = [],
): string[] | undefined {
  if (!existsSync(join(NPM, "node_modules", "@vendor"))) return undefined;
  const run = spawnSync("node", [
    "-e",
    `require(${JSON.stringify(name)});` +
    "console.log(JSON.stringify(Object.keys(require.cache)))",
  ], { cwd: NPM, encoding: "utf8", timeout: 60_000 });
  if (run.status !== 0) return [`(node failed: ${run.stderr.trim()})`];
  const files = JSON.parse(run.stdout) as string[];
  return [...DEFERRED, ...also].filter((dependency) =>
    files.some((file) => file.includes(`/node_modules/${dependency}/`))
  );
}

const problems: string[] = [];
const denoJson = JSON.parse(
  await readFile(join(ROOT, "deno.json"), "utf8"),
) as {
  version: string;
  license: string;
  exports: Record<string, string>;
};
const expectedMetadata = {
  license: denoJson.license,
  author: authorOf(await readFile(join(ROOT, "LICENSE"), "utf8")),
};
// Sibling packages accept any later compatible release of each other.
const siblingRange = `^${denoJson.version}`;

for (const info of PACKAGES) {
  const exportKey = `./${info.folder}`;
  if (denoJson.exports[exportKey] !== `./${info.folder}/mod.ts`) {
    problems.push(
      `deno.json exports has no '${exportKey}': './${info.folder}/mod.ts'`,
    );
  }
  const dir = join(NPM, info.dir);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(
      await readFile(join(dir, "package.json"), "utf8"),
    ) as Manifest;
  } catch {
    problems.push(
      `${info.name}: npm/${info.dir}/package.json is missing (run deno task build:npm)`,
    );
    continue;
  }
  if (manifest.name !== info.name) {
    problems.push(
      `npm/${info.dir}: name is ${manifest.name}, expected ${info.name}`,
    );
  }
  if (manifest.version !== denoJson.version) {
    problems.push(
      `${info.name}: version ${manifest.version} differs from deno.json ${denoJson.version}`,
    );
  }
  for (
    const [dependency, range] of Object.entries(manifest.dependencies ?? {})
  ) {
    if (dependency.startsWith("@vendor/kit") && range !== siblingRange) {
      problems.push(
        `${info.name}: depends on ${dependency}@${range}, expected ${siblingRange}`,
      );
    }
  }
  // The module graph a web bundler builds: the `browser` export condition
  // (or, without one, `import`) leads to one bundle, whose imports are
  // packages (checked below) and, should a build split, relative files.
  const root = manifest.exports["."];
  const browserEntry = typeof root === "object" && root.browser
    ? root.browser.default
    : "./esm/mod.js";
  const pending = [join(dir, browserEntry)];
  const reached = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    const code = await readFile(file, "utf8");
    for (const specifier of nodeOnlyImports(code)) {
      problems.push(
        `${file.slice(ROOT.length + 1)} (browser build) imports ${specifier}`,
      );
    }
    for (const ref of ts.preProcessFile(code, true, true).importedFiles) {
      if (ref.fileName.startsWith(".")) {
        pending.push(resolve(dirname(file), ref.fileName));
      }
    }
  }
  // What a server bundle loads at import.
  for (const bundle of ["esm/mod.js", "script/mod.js"]) {
    const code = await readFile(join(dir, bundle), "utf8");
    for (const specifier of deferredImports(bundle, code)) {
      problems.push(
        `${info.name}: ${bundle} loads ${specifier} at import; load it on first use (an adapter pair such as internal/telemetry/_open_telemetry_api_deno.ts / _open_telemetry_api_node.ts, see scripts/_variants.ts)`,
      );
    }
  }
  // Subpath entries: declared on both sides, built; what only they need is
  // an optional peer that the main bundles never import, even on demand.
  for (const [subpath, source] of Object.entries(info.subpaths ?? {})) {
    const jsrKey = jsrExportOf(info, subpath);
    if (denoJson.exports[jsrKey] !== `./${source}`) {
      problems.push(`deno.json exports has no '${jsrKey}': './${source}'`);
    }
    if (manifest.exports[subpath] === undefined) {
      problems.push(`${info.name}: package.json exports has no '${subpath}'`);
    }
    const base = source.slice(info.folder.length + 1, -3);
    for (const bundle of [`esm/${base}.js`, `script/${base}.js`]) {
      if (!existsSync(join(dir, bundle))) {
        problems.push(`${info.name}: ${bundle} (for '${subpath}') is missing`);
      }
    }
  }
  for (const peer of info.optionalPeers ?? []) {
    if (manifest.dependencies?.[peer] !== undefined) {
      problems.push(
        `${info.name}: ${peer} is a dependency; it must be an optional peer`,
      );
    }
    if (
      manifest.peerDependencies?.[peer] !== undefined &&
      manifest.peerDependenciesMeta?.[peer]?.optional !== true
    ) {
      problems.push(`${info.name}: the peer ${peer} is not marked optional`);
    }
    for (const bundle of ["esm/mod.js", "script/mod.js"]) {
      const code = await readFile(join(dir, bundle), "utf8");
      const refs = ts.preProcessFile(code, true, true).importedFiles
        .map((ref) => ref.fileName)
        .filter((name) => name === peer || name.startsWith(peer + "/"));
      if (refs.length > 0) {
        problems.push(
          `${info.name}: ${bundle} imports ${
            refs.join(", ")
          }, which only a subpath may load`,
        );
      }
    }
  }
  problems.push(
    ...await sharedProblems(manifest, info.folder, dir, expectedMetadata),
  );
  const loaded = deferredLoaded(info.name, info.optionalPeers);
  if (loaded === undefined) {
    console.log(
      `SKIPPED: what ${info.name} loads at require: npm/node_modules is not installed (run scripts/test_npm.ts first)`,
    );
  } else if (loaded.length > 0) {
    problems.push(
      `${info.name}: requiring it loads ${loaded.join(", ")}`,
    );
  } else {
    console.log(`load: requiring ${info.name} loads no deferred dependency`);
  }
  // Bundle sizes: past the ceiling, something went wrong.
  for (const file of await walk(dir)) {
    if (!/\.(m?js)$/.test(file)) continue;
    const gzipped = gzipSync(await readFile(file)).byteLength;
    if (gzipped >= BUNDLE_CEILING) {
      problems.push(
        `${file.slice(ROOT.length + 1)}: ${
          (gzipped / 1000).toFixed(1)
        } kB gzipped, over the 64 kB ceiling of one bundle`,
      );
    }
  }
  for (const [name, path] of Object.entries(manifest.bin ?? {})) {
    const file = join(dir, path);
    if (!existsSync(file)) {
      problems.push(
        `${info.name}: bin ${name} names ${path}, which is missing`,
      );
      continue;
    }
    if (!(await readFile(file, "utf8")).startsWith("#!/usr/bin/env node\n")) {
      problems.push(
        `${info.name}: ${path} does not start with #!/usr/bin/env node`,
      );
    }
    if (!existsSync(join(NPM, "node_modules", "@vendor"))) {
      console.log(
        `SKIPPED: running ${name}: npm/node_modules is not installed (run scripts/test_npm.ts first)`,
      );
      continue;
    }
    // `--help` prints the usage (0, or 2 where help counts as usage); with no
    // argument a program does its default work or prints its usage: any of
    // 0, 1 (its checks found a problem) or 2 (usage), but no crash. It runs
    // in an empty folder, so it finds nothing of this checkout.
    const empty = mkdtempSync(join(tmpdir(), "kit-bin-"));
    for (const args of [["--help"], []]) {
      const run = spawnSync("node", [file, ...args], {
        encoding: "utf8",
        timeout: 60_000,
        cwd: empty,
      });
      const allowed = args.length > 0 ? [0, 2] : [0, 1, 2];
      const crashed = /^\s+at .+:\d+:\d+\)?$/m.test(run.stderr) ||
        run.stdout.trim() + run.stderr.trim() === "";
      if (!allowed.includes(run.status ?? -1) || crashed) {
        problems.push(
          `${info.name}: \`${name} ${args.join(" ")}\` exited with ${
            run.status ?? run.signal
          }${crashed ? " after a crash or without output" : ""}:\n${
            (run.stdout + run.stderr).trim().slice(0, 600)
          }`,
        );
      } else {
        console.log(
          `bin: ${name}${
            args.length ? " " + args.join(" ") : ""
          } exited ${run.status}`,
        );
      }
    }
    rmSync(empty, { recursive: true, force: true });
  }
  for (const file of await walk(dir)) {
    // Doc examples show the import an npm user writes, not a JSR path.
    if (file.endsWith(".d.ts")) {
      const text = await readFile(file, "utf8");
      const jsr = /["'`]@vendor\/kit(\/[\w/.-]*)?["'`]/.exec(text);
      if (jsr !== null) {
        problems.push(
          `${file.slice(ROOT.length + 1)} shows the JSR import path ${
            jsr[0]
          } (npm users import @vendor/kit-<package>)`,
        );
      }
      // A file of internal/ is bundled, its declarations never ship: a
      // declaration must not import one (or anything outside the package).
      for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
        if (!ref.fileName.startsWith(".")) continue;
        const target = resolve(dirname(file), ref.fileName)
          .replace(/\.js$/, ".d.ts");
        if (!target.startsWith(dir + "/") || !existsSync(target)) {
          problems.push(
            `${
              file.slice(ROOT.length + 1)
            } imports ${ref.fileName}, which the package does not ship (a type of internal/ in a public signature?)`,
          );
        }
      }
    }
    if (!file.endsWith(".js")) continue;
    const code = await readFile(file, "utf8");
    if (referencesDeno(file, code)) {
      problems.push(
        `${file.slice(ROOT.length + 1)} references the Deno global`,
      );
    }
  }
  // Package size: the 50 kB goal (without the source maps, which are never
  // loaded with the package) is reported (see BENCHMARKS.md), with the
  // size with the maps beside it.
  let packed: number | undefined;
  try {
    const size = packedSizes(dir);
    packed = size.withoutMaps;
    console.log(
      `size: ${info.name} ${(size.withoutMaps / 1000).toFixed(1)} kB packed${
        size.withoutMaps >= PACKED_GOAL ? " (over the 50 kB goal)" : ""
      } without source maps, ${(size.packed / 1000).toFixed(1)} kB with them`,
    );
  } catch (error) {
    problems.push(`${info.name}: ${(error as Error).message}`);
  }
  const publint = spawnSync("npx", ["-y", PUBLINT, "--strict", dir], {
    encoding: "utf8",
  });
  const publintText = (publint.stdout + publint.stderr).replace(
    /npm warn.*\n/g,
    "",
  );
  if (
    publint.status !== 0 ||
    /warning|error|suggestion/i.test(publintText.replace(/All good!/, ""))
  ) {
    problems.push(`${info.name}: publint:\n${publintText.trim()}`);
  }
  const attw = spawnSync("npx", [
    "-y",
    ATTW,
    "--pack",
    dir,
    "--format",
    "ascii",
  ], { encoding: "utf8" });
  if (attw.status !== 0) {
    problems.push(
      `${info.name}: arethetypeswrong:\n${(attw.stdout + attw.stderr).trim()}`,
    );
  }
  console.log(
    `checked ${info.name}${
      packed === undefined ? "" : ` (${(packed / 1000).toFixed(1)} kB packed)`
    }`,
  );
}

// The generator: a program only, at Kit's version, with nothing to install.
{
  const info = CREATE_PACKAGE;
  const dir = join(NPM, info.dir);
  const manifestPath = join(dir, "package.json");
  if (!existsSync(manifestPath)) {
    problems.push(
      `${info.name}: npm/${info.dir}/package.json is missing (run deno task build:npm)`,
    );
  } else {
    const manifest = JSON.parse(
      await readFile(manifestPath, "utf8"),
    ) as Manifest;
    if (manifest.name !== info.name) {
      problems.push(
        `npm/${info.dir}: name is ${manifest.name}, expected ${info.name}`,
      );
    }
    if (manifest.version !== denoJson.version) {
      problems.push(
        `${info.name}: version ${manifest.version} differs from deno.json ${denoJson.version}`,
      );
    }
    if (Object.keys(manifest.dependencies ?? {}).length > 0) {
      problems.push(
        `${info.name}: has dependencies (${
          Object.keys(manifest.dependencies ?? {}).join(", ")
        }); the generator must install nothing`,
      );
    }
    problems.push(
      ...await sharedProblems(manifest, info.folder, dir, expectedMetadata),
    );
    const program = manifest.bin?.["create-kit"];
    const file = program === undefined ? undefined : join(dir, program);
    if (file === undefined || !existsSync(file)) {
      problems.push(`${info.name}: bin create-kit is missing`);
    } else {
      const code = await readFile(file, "utf8");
      if (!code.startsWith("#!/usr/bin/env node\n")) {
        problems.push(
          `${info.name}: ${program} does not start with #!/usr/bin/env node`,
        );
      }
      if (referencesDeno(file, code)) {
        problems.push(`${info.name}: ${program} references the Deno global`);
      }
      const empty = mkdtempSync(join(tmpdir(), "kit-create-bin-"));
      for (const [args, expected] of [[["--help"], 0], [[], 2]] as const) {
        const run = spawnSync("node", [file, ...args], {
          encoding: "utf8",
          timeout: 60_000,
          cwd: empty,
        });
        if (
          run.status !== expected ||
          !/npm init @vendor\/kit/.test(run.stdout + run.stderr)
        ) {
          problems.push(
            `${info.name}: \`create-kit ${args.join(" ")}\` exited with ${
              run.status ?? run.signal
            }, expected ${expected} and the usage:\n${
              (run.stdout + run.stderr).trim().slice(0, 600)
            }`,
          );
        } else {
          console.log(
            `bin: create-kit${
              args.length ? " " + args.join(" ") : ""
            } exited ${run.status}`,
          );
        }
      }
      rmSync(empty, { recursive: true, force: true });
    }
    const publint = spawnSync("npx", ["-y", PUBLINT, "--strict", dir], {
      encoding: "utf8",
    });
    const publintText = (publint.stdout + publint.stderr).replace(
      /npm warn.*\n/g,
      "",
    );
    if (
      publint.status !== 0 ||
      /warning|error|suggestion/i.test(publintText.replace(/All good!/, ""))
    ) {
      problems.push(`${info.name}: publint:\n${publintText.trim()}`);
    }
    console.log(`checked ${info.name}`);
  }
}

if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s):\n- ${problems.join("\n- ")}`);
  process.exitCode = 1;
} else {
  console.log(
    `all ${PACKAGES.length} packages and ${CREATE_PACKAGE.name} agree with deno.json ${denoJson.version}; publint and attw clean`,
  );
}
