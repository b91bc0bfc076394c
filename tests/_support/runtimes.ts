// The executables of the three server runtimes, for tests that start child
// processes: Deno (this process under `deno test`, else `deno` on PATH),
// Node.js (`node` on PATH) and Bun (this process under Bun, else the one the
// npm passes install at npm/node_modules/.bin/bun, else `bun` on PATH).
// `undefined` when a runtime is not installed.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import process from "node:process";

function works(command: string): boolean {
  try {
    return spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
  } catch {
    return false;
  }
}

// Where the npm passes install Bun, seen from tests/_support/ (Deno pass)
// and from npm/tests/<esm|cjs>/_support/ (npm passes).
const NPM_BUN = [
  "../../npm/node_modules/.bin/bun",
  "../../../node_modules/.bin/bun",
].map((path) => fileURLToPath(new URL(path, import.meta.url))).find((path) =>
  existsSync(path)
) ?? "bun";

/** The Deno executable, if installed. */
export const denoExecutable: string | undefined =
  (globalThis as { Deno?: unknown }).Deno !== undefined
    ? process.execPath
    : works("deno")
    ? "deno"
    : undefined;

/** The Node.js executable, if installed. */
export const nodeExecutable: string | undefined = works("node")
  ? "node"
  : undefined;

/** The Bun executable, if installed. */
export const bunExecutable: string | undefined =
  (process.versions as Record<string, string | undefined>).bun !== undefined
    ? process.execPath
    : works(NPM_BUN)
    ? NPM_BUN
    : undefined;
