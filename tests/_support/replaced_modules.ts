// Runs an ES module script in a child of the runtime running the tests with
// some npm modules replaced by sources the test gives: a module that throws
// when loaded, or one that records its loading. Each runtime has its own way
// in: an import map under Deno (the checkout's deno.dev.json imports, with the
// replaced names pointing elsewhere), a resolve hook registered with
// `--import` under Node.js, a load plugin given with `--preload` under Bun.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type ProcessResult, runProcess } from "./child_script.ts";

export type { ProcessResult };

/** How to run the script. */
export interface ReplacedModulesOptions {
  /** Milliseconds before the child is killed and the run fails; 30000. */
  timeoutMs?: number;
}

const versions = process.versions as Record<string, string | undefined>;

/**
 * Runs the ES module `source` in a child of the runtime running the tests
 * (Deno, Node.js or Bun), each module named in `replacements` replaced by
 * the ES module source given for it. A replaced name is a bare specifier
 * (`ky`, `@electric-sql/pglite`): under Deno and Node.js an import of exactly
 * that name gets the replacement; under Bun every `.js` file of the package
 * installed in node_modules does (so its entry points, whichever Kit's
 * bundle loads). The script is written in a temporary folder, removed
 * afterwards; it imports Kit by absolute URL (tests/_support/module_url.ts).
 *
 * @param source The script (ES module).
 * @param replacements Module name → the source that stands for it.
 * @param options The timeout.
 * @returns How the child ended: its exit code, its output (standard output
 * and error interleaved) and its standard error.
 * @throws {Error} When the child still runs after the timeout (it is killed).
 * @example
 * ```ts ignore
 * const result = await runWithModulesReplaced(
 *   `import ky from "ky";`,
 *   { ky: 'throw new Error("no ky");' },
 * );
 * // result.code is 1, result.stderr names "no ky".
 * ```
 */
export async function runWithModulesReplaced(
  source: string,
  replacements: Readonly<Record<string, string>>,
  options: ReplacedModulesOptions = {},
): Promise<ProcessResult> {
  const dir = await mkdtemp(join(tmpdir(), "kit-replaced-"));
  try {
    const files: Record<string, string> = {};
    let index = 0;
    for (const [name, replacement] of Object.entries(replacements)) {
      files[name] = join(dir, `replaced_${index++}.mjs`);
      await writeFile(files[name], replacement);
    }
    const script = join(dir, "child.mjs");
    await writeFile(script, source);
    const args = versions.deno !== undefined
      ? await denoArgs(dir, files)
      : versions.bun !== undefined
      ? await bunArgs(dir, replacements)
      : await nodeArgs(dir, files);
    return await runProcess(process.execPath, [...args, script], {
      timeoutMs: options.timeoutMs,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Deno: the checkout's deno.dev.json, and an import map of its imports
// (made absolute, the map being elsewhere) with the replaced names pointing
// at their files.
async function denoArgs(
  dir: string,
  files: Record<string, string>,
): Promise<string[]> {
  const config = new URL("../../deno.dev.json", import.meta.url);
  const { imports } = JSON.parse(await readFile(config, "utf8")) as {
    imports: Record<string, string>;
  };
  const absolute: Record<string, string> = {};
  for (const [name, target] of Object.entries(imports)) {
    absolute[name] = target.startsWith(".")
      ? new URL(target, config).href
      : target;
  }
  for (const [name, file] of Object.entries(files)) {
    absolute[name] = pathToFileURL(file).href;
  }
  const map = join(dir, "import_map.json");
  await writeFile(map, JSON.stringify({ imports: absolute }));
  return ["run", "-A", "--config", fileURLToPath(config), "--import-map", map];
}

// Bun: a load plugin that gives every `.js` file of each replaced package
// in node_modules the replacement's source (the packages' own entry points
// are then the replacement too, however they are reached).
async function bunArgs(
  dir: string,
  replacements: Readonly<Record<string, string>>,
): Promise<string[]> {
  const separator = String.raw`[\\/]`;
  const loads = Object.entries(replacements).map(([name, contents]) => [
    `${separator}node_modules${separator}${
      name.split("/").map(escapeRegExp).join(separator)
    }${separator}.*\\.js$`,
    contents,
  ]);
  const preload = join(dir, "preload.mjs");
  await writeFile(
    preload,
    `const loads = ${JSON.stringify(loads)};
Bun.plugin({
  name: "replaced-modules",
  setup(build) {
    for (const [filter, contents] of loads) {
      build.onLoad({ filter: new RegExp(filter) }, () => ({ contents, loader: "js" }));
    }
  },
});
`,
  );
  return ["--preload", preload];
}

// Node.js: a resolve hook, registered before the script runs, that sends
// each replaced name to its file.
async function nodeArgs(
  dir: string,
  files: Record<string, string>,
): Promise<string[]> {
  const urls = Object.fromEntries(
    Object.entries(files).map((
      [name, file],
    ) => [name, pathToFileURL(file).href]),
  );
  const hook = `const replaced = ${JSON.stringify(urls)};
export async function resolve(specifier, context, next) {
  if (Object.hasOwn(replaced, specifier)) {
    return { url: replaced[specifier], shortCircuit: true };
  }
  return next(specifier, context);
}`;
  const register = join(dir, "register.mjs");
  await writeFile(
    register,
    `import { register } from "node:module";
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));
`,
  );
  return ["--import", pathToFileURL(register).href];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
