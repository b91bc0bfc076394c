/**
 * Checks the built npm packages (run `deno task build:npm` first):
 *
 * - `deno.json` exports, the eight `package.json` files and their versions
 *   agree (one version for all; sibling dependencies at that version);
 * - no built file references the `Deno` global, and no file of a `browser/`
 *   build imports a `node:` module or a Node-only package;
 * - `publint` and `@arethetypeswrong/cli` find no problem in any package.
 *
 * Exits non-zero with one line per problem. Run: `deno task check:npm`.
 *
 * @module
 */
import ts from "typescript";
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { readdir, readFile } from "node:fs/promises";
import process from "node:process";
import { PACKAGES } from "./_packages.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const PUBLINT = "publint@0.3.25";
const ATTW = "@arethetypeswrong/cli@0.18.5";

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
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
const NODE_ONLY_PACKAGES = new Set(["redis", "dotenv"]);

/** Specifiers of a browser build file that a web bundler could not serve. */
function nodeOnlyImports(code: string): string[] {
  return ts.preProcessFile(code, true, true).importedFiles
    .map((ref) => ref.fileName)
    .filter((specifier) =>
      specifier.startsWith("node:") ||
      NODE_ONLY_PACKAGES.has(specifier.split("/")[0])
    );
}

const problems: string[] = [];
const denoJson = JSON.parse(
  await readFile(join(ROOT, "deno.json"), "utf8"),
) as {
  version: string;
  exports: Record<string, string>;
};

for (const info of PACKAGES) {
  const exportKey = `./${info.folder}`;
  if (denoJson.exports[exportKey] !== `./${info.folder}/mod.ts`) {
    problems.push(
      `deno.json exports has no '${exportKey}': './${info.folder}/mod.ts'`,
    );
  }
  const dir = join(ROOT, "npm", info.dir);
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
    if (dependency.startsWith("@vendor/kit") && range !== denoJson.version) {
      problems.push(
        `${info.name}: depends on ${dependency}@${range}, expected ${denoJson.version}`,
      );
    }
  }
  for (const file of await walk(dir)) {
    if (!file.endsWith(".js")) continue;
    const code = await readFile(file, "utf8");
    if (file.includes("/browser/")) {
      for (const specifier of nodeOnlyImports(code)) {
        problems.push(
          `${file.slice(ROOT.length + 1)} (browser build) imports ${specifier}`,
        );
      }
    }
    if (referencesDeno(file, code)) {
      problems.push(
        `${file.slice(ROOT.length + 1)} references the Deno global`,
      );
    }
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
  console.log(`checked ${info.name}`);
}

if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s):\n- ${problems.join("\n- ")}`);
  process.exitCode = 1;
} else {
  console.log(
    `all ${PACKAGES.length} packages agree with deno.json ${denoJson.version}; publint and attw clean`,
  );
}
