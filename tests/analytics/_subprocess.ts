// Helpers of the analytics tests that need other processes: a JavaScript
// bundle of analytics/mod.ts (for the browser page and for Node.js, which
// cannot load the TypeScript sources), the Deno and Node executables, and a
// child runner with a hard time limit.
import { spawn } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import process from "node:process";
import { moduleUrl } from "../_support/module_url.ts";

// The sources under `deno test`; the built package's ES modules in the npm
// passes (also in the CommonJS pass: browsers and the bundler load the ES
// build, as an application's bundler would).
export const analyticsModulePath: string = fileURLToPath(
  moduleUrl("analytics").replace("/script/mod.js", "/esm/mod.js"),
);

// The runtimes' executables, shared with the other tests that start
// children.
import {
  bunExecutable,
  denoExecutable,
  nodeExecutable,
} from "../_support/runtimes.ts";
export { bunExecutable, denoExecutable, nodeExecutable };

export interface ChildResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
  timedOut: boolean;
}

/** Runs a command; kills it after `timeoutMs`. */
export function runChild(
  command: string,
  args: string[],
  timeoutMs = 30_000,
): Promise<ChildResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout!.on("data", (chunk) => (stdout += String(chunk)));
    child.stderr!.on("data", (chunk) => (stderr += String(chunk)));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout,
        stderr,
        elapsedMs: Date.now() - started,
        timedOut,
      });
    });
  });
}

/** A temporary directory, removed by the returned function. */
export async function tempDir(): Promise<
  { path: string; remove: () => Promise<void> }
> {
  const path = await mkdtemp(join(tmpdir(), "kit-analytics-"));
  return {
    path,
    remove: () => rm(path, { recursive: true, force: true }),
  };
}

/**
 * Bundles analytics/mod.ts for browsers with `deno bundle` into `dir`.
 *
 * @returns The bundle's path.
 */
export async function bundleAnalytics(dir: string): Promise<string> {
  if (denoExecutable === undefined) {
    throw new Error("deno is needed to bundle analytics/mod.ts");
  }
  const output = join(dir, "analytics.js");
  const args = ["bundle", "--quiet", "--platform", "browser"];
  if (analyticsModulePath.endsWith(".ts")) {
    // From the sources, the runtime variants resolve to their browser files
    // as the npm build's `browser` condition does (analytics reaches
    // platform's request-context storage, AsyncLocalStorage on servers).
    const importMap = join(dir, "browser_import_map.json");
    await writeFile(
      importMap,
      JSON.stringify({ imports: await browserTwins() }),
    );
    args.push("--import-map", importMap);
  }
  args.push("--output", output, analyticsModulePath);
  const result = await runChild(denoExecutable, args, 120_000);
  if (result.code !== 0) {
    throw new Error(`deno bundle failed (${result.code}): ${result.stderr}`);
  }
  await stat(output);
  return output;
}

// The runtime variants (`#name` imports, scripts/_variants.ts), each to the
// file a browser bundle of the npm build takes for it.
async function browserTwins(): Promise<Record<string, string>> {
  const root = dirname(dirname(analyticsModulePath));
  const { VARIANTS, variantFile } = await import(
    pathToFileURL(join(root, "scripts", "_variants.ts")).href
  ) as {
    VARIANTS: Record<string, unknown>;
    variantFile(name: string, runtime: "browser", importer: string): string;
  };
  const map: Record<string, string> = {};
  for (const name of Object.keys(VARIANTS)) {
    map[name] = pathToFileURL(
      join(
        root,
        variantFile(name, "browser", "tests/analytics/_subprocess.ts"),
      ),
    ).href;
  }
  return map;
}
