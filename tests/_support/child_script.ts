// Runs an ES module script in a child of the runtime running the tests: Deno
// under `deno test` (with the checkout's deno.dev.json, so bare imports resolve),
// Node.js or Bun in the npm passes. `CORE_URL`, `PLATFORM_URL`, … `<FOLDER>_URL`
// in the script become the entry point of that Kit module (the source under
// Deno, the built package in the npm passes; see module_url.ts).
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { moduleUrl } from "./module_url.ts";

/** What the child did. */
export interface ChildResult {
  /** Its exit code (null when killed). */
  code: number | null;
  /** Its standard output and error, interleaved. */
  out: string;
  /** Its standard error alone. */
  stderr: string;
}

/** How to run the script. */
export interface ChildScriptOptions {
  /** The folder to write it in (kept); a new temporary one by default. */
  dir?: string;
  /** Arguments before the script for Node.js or Bun (`--no-install`). */
  runtimeArgs?: string[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Milliseconds before the child is killed and the run fails; 30000. */
  timeoutMs?: number;
}

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;

/** Runs `source` in a child process; fails after 30 seconds by default. */
export async function runChildScript(
  source: string,
  options: ChildScriptOptions = {},
): Promise<ChildResult> {
  const dir = options.dir ?? await mkdtemp(join(tmpdir(), "kit-child-"));
  try {
    const script = join(dir, "child.mjs");
    await writeFile(
      script,
      source.replace(
        /\b([A-Z]+)_URL\b/g,
        (_, folder: string) => JSON.stringify(moduleUrl(folder.toLowerCase())),
      ),
    );
    const { code, out, stderr } = await runProcess(
      process.execPath,
      scriptArgs(script, options.runtimeArgs),
      { env: options.env, timeoutMs: options.timeoutMs },
    );
    return { code, out, stderr };
  } finally {
    if (options.dir === undefined) {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * The arguments that run the ES module `script` in a child of the runtime
 * running the tests: `deno run -A --config <the checkout's deno.dev.json>` under
 * Deno, else the script after `runtimeArgs` (Node.js or Bun).
 */
export function scriptArgs(
  script: string,
  runtimeArgs: string[] = [],
): string[] {
  return isDeno
    ? [
      "run",
      "-A",
      "--config",
      fileURLToPath(new URL("../../deno.dev.json", import.meta.url)),
      script,
    ]
    : [...runtimeArgs, script];
}

/** How a child process ended. */
export interface ProcessResult {
  /** Its exit code (null when killed). */
  code: number | null;
  /** Its standard output and error, interleaved. */
  out: string;
  /** Its standard error alone. */
  stderr: string;
  /** Milliseconds from the start to the exit. */
  ms: number;
}

/**
 * Runs `command args…` to its end with `NO_COLOR=1` and `env` added to this
 * process's environment, collecting its output.
 *
 * @throws Error when it still runs after `timeoutMs` (30 s by default); it
 * is killed then.
 */
export function runProcess(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ProcessResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", ...options.env },
    });
    let out = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => {
      out += chunk;
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `the child is still running after ${timeoutMs / 1000} s: ${out}`,
        ),
      );
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, stderr, ms: Date.now() - started });
    });
  });
}

/** The JSON the child printed on its last line. */
export function lastJson(result: ChildResult): Record<string, unknown> {
  const lines = result.out.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}
