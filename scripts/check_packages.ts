/**
 * Checks the built npm packages (run `deno task build:npm` first):
 *
 * - `deno.json` exports, the eight `package.json` files and their versions
 *   agree (one version for all; sibling dependencies at that version);
 * - no declaration file shows a JSR import path (`"@vendor/kit/platform"`)
 *   where an npm user imports `@vendor/kit-platform`;
 * - no built file references the `Deno` global, and no file a web bundler
 *   reaches from `esm/mod.js` (the `browser` export condition; the package's
 *   `#` imports resolved under the `browser` condition) imports a `node:`
 *   module or a Node-only package;
 * - every package packs to under a 64 kB ceiling (`npm pack`, dependencies
 *   excluded), which catches accidents such as a dependency copied in; the
 *   size goal of 50 kB is a performance goal like the others, so a package
 *   between the two is reported (a `size:` line) and tracked in
 *   BENCHMARKS.md rather than failing the build;
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
const PACKED_GOAL = 50 * 1000;
const PACKED_CEILING = 64 * 1000;
const ATTW = "@arethetypeswrong/cli@0.18.5";

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  imports?: Record<string, { browser: string; default: string }>;
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
  // The module graph a web bundler builds: the `browser` export condition
  // (or, without one, `import`) leads to esm/mod.js, whose `#` imports
  // resolve to the browser twins.
  const pending = [join(dir, "esm", "mod.js")];
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
      const specifier = ref.fileName;
      if (specifier.startsWith(".")) {
        pending.push(resolve(dirname(file), specifier));
      } else if (specifier.startsWith("#")) {
        const target = manifest.imports?.[specifier];
        if (target === undefined) {
          problems.push(
            `${
              file.slice(ROOT.length + 1)
            } imports ${specifier}, which package.json does not map`,
          );
        } else {
          pending.push(join(dir, target.browser));
        }
      }
    }
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
    }
    if (!file.endsWith(".js")) continue;
    const code = await readFile(file, "utf8");
    if (referencesDeno(file, code)) {
      problems.push(
        `${file.slice(ROOT.length + 1)} references the Deno global`,
      );
    }
  }
  // Package size: the 50 kB goal is reported (see BENCHMARKS.md); past the
  // 64 kB ceiling something went wrong (a dependency bundled in, a source map
  // shipped), and the check fails.
  const pack = spawnSync("npm", ["pack", "--dry-run", "--json", dir], {
    encoding: "utf8",
  });
  const packed = pack.status === 0
    ? (JSON.parse(pack.stdout) as { size: number }[])[0].size
    : undefined;
  if (packed === undefined) {
    problems.push(`${info.name}: npm pack --dry-run failed: ${pack.stderr}`);
  } else {
    const kB = (packed / 1000).toFixed(1);
    if (packed >= PACKED_CEILING) {
      problems.push(
        `${info.name}: ${kB} kB packed, over the 64 kB ceiling`,
      );
    } else {
      console.log(
        `size: ${info.name} ${kB} kB packed${
          packed >= PACKED_GOAL ? " (over the 50 kB goal)" : ""
        }`,
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
  console.log(
    `checked ${info.name}${
      packed === undefined ? "" : ` (${(packed / 1000).toFixed(1)} kB packed)`
    }`,
  );
}

if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s):\n- ${problems.join("\n- ")}`);
  process.exitCode = 1;
} else {
  console.log(
    `all ${PACKAGES.length} packages agree with deno.json ${denoJson.version}; publint and attw clean`,
  );
}
