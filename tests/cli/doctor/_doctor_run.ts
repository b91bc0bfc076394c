// Runs `kit doctor` as a real child process over a copy of a fixture folder.
// Under `deno test` the child is `deno run -A scripts/doctor.ts`; in the npm
// passes it is the installed bin, `node <package>/bin/kit-doctor.mjs`, as
// `npx kit-doctor` runs it. Fixture folders live in tests/cli/doctor/
// fixtures/; a copy renames `_node_modules` to `node_modules` (git ignores
// those) and strips a `.fixture` suffix (files the formatter must not fix).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { isNpmPass, moduleUrl } from "../../_support/module_url.ts";

// The checkout: the nearest folder above this file holding the fixtures
// (the repository root under Deno, also from npm/tests/<flavour>/cli/doctor/).
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "tests", "cli", "doctor", "fixtures"))) {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("the doctor fixtures are not found");
    dir = parent;
  }
}

const ROOT = findRoot();
const FIXTURES = join(ROOT, "tests", "cli", "doctor", "fixtures");

/** The npm bin, in the npm passes: `<package>/bin/kit-doctor.mjs`. */
const BIN = isNpmPass()
  ? fileURLToPath(new URL("../bin/kit-doctor.mjs", moduleUrl("config")))
  : undefined;

/**
 * `false` when the doctor can run here, else why not (the built package
 * has no bin yet): the reason a skipped top-level test gives.
 */
export const doctorSkip: string | false = BIN !== undefined && !existsSync(BIN)
  ? `the built @vendor/kit-platform-configuration has no bin/kit-doctor.mjs yet (${BIN})`
  : false;

/** What one run printed and returned. */
export interface DoctorRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A fixture copied to a temp folder. */
export interface Fixture {
  /** The project folder to check. */
  readonly dir: string;
  /** A user `.npmrc` outside the project (NPM_CONFIG_USERCONFIG). */
  readonly userNpmrc: string;
  /** Removes the copy. */
  [Symbol.asyncDispose](): Promise<void>;
}

async function copy(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const name = entry.name === "_node_modules"
      ? "node_modules"
      : entry.name.replace(/\.fixture$/, "");
    if (entry.isDirectory()) {
      await copy(join(from, entry.name), join(to, name));
    } else {
      await writeFile(join(to, name), await readFile(join(from, entry.name)));
    }
  }
}

/**
 * Copies a fixture folder to a temp folder.
 *
 * @param name The folder under tests/cli/doctor/fixtures/.
 * @param userNpmrc The user `.npmrc` text (default: empty).
 */
export async function fixture(
  name: string,
  userNpmrc = "",
): Promise<Fixture> {
  const temp = await mkdtemp(join(tmpdir(), "kit-doctor-"));
  const dir = join(temp, name);
  await copy(join(FIXTURES, name), dir);
  const npmrc = join(temp, "user.npmrc");
  await writeFile(npmrc, userNpmrc);
  return {
    dir,
    userNpmrc: npmrc,
    async [Symbol.asyncDispose]() {
      await rm(temp, { recursive: true, force: true });
    },
  };
}

/** Sets a file's modification time (seconds since the epoch). */
export async function touch(path: string, seconds: number): Promise<void> {
  await utimes(path, seconds, seconds);
}

// Variables that would change what the doctor finds: the configuration's,
// npm's, colour switches. The child starts without them.
const CLEARED =
  /^(APP_|RUNTIME_ENV$|NODE_ENV$|APP_ENV$|DB_|API_|LOG_|LOGGING_|REDIS_|JWT_|AUTH_|FEATURE_|GOOGLE_|OPENAI_|ANALYTICS_|KIT_|NPM_CONFIG_|NO_COLOR$|FORCE_COLOR$|OTEL_|INIT_CWD$)/i;

/** Options of {@linkcode runDoctor}. */
export interface RunOptions {
  /** The working directory (default: the temp folder). */
  readonly cwd?: string;
  /** Variables to set in the child, on top of a cleaned environment. */
  readonly env?: Record<string, string>;
  /** The user `.npmrc` (NPM_CONFIG_USERCONFIG). */
  readonly userNpmrc?: string;
  /** Run under a pseudo-terminal (`script`), so stdout is a TTY. */
  readonly tty?: boolean;
  /**
   * Milliseconds the run may take before the child is killed and the run
   * fails (default 180000): a doctor that hangs must not hang the tests.
   */
  readonly timeout?: number;
}

function nodeRuntime(): string {
  // In the npm passes under Bun, process.execPath is bun: the bin runs on
  // Node, as npx would run it.
  return (process.versions as Record<string, string | undefined>).bun !==
      undefined
    ? "node"
    : process.execPath;
}

/** The command line that starts the doctor in this pass. */
export function doctorCommand(args: readonly string[]): string[] {
  if (BIN !== undefined) return [nodeRuntime(), BIN, ...args];
  return [
    process.execPath,
    "run",
    "-A",
    "--config",
    join(ROOT, "deno.json"),
    join(ROOT, "scripts", "doctor.ts"),
    ...args,
  ];
}

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Runs the doctor and collects its output and exit code.
 *
 * @param args The command-line arguments.
 * @param options Working directory, variables, user .npmrc, TTY.
 */
export function runDoctor(
  args: readonly string[],
  options: RunOptions = {},
): Promise<DoctorRun> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !CLEARED.test(name)) env[name] = value;
  }
  env.NPM_CONFIG_USERCONFIG = options.userNpmrc ??
    join(tmpdir(), "kit-doctor-no-user.npmrc");
  Object.assign(env, options.env ?? {});
  let [command, ...rest] = doctorCommand(args);
  if (options.tty === true) {
    rest = ["-qec", [command, ...rest].map(quote).join(" "), "/dev/null"];
    command = "script";
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, rest, {
      cwd: options.cwd ?? tmpdir(),
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Uint8Array) => {
      stdout += new TextDecoder().decode(chunk);
    });
    child.stderr.on("data", (chunk: Uint8Array) => {
      stderr += new TextDecoder().decode(chunk);
    });
    const limit = options.timeout ?? 180_000;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `kit-doctor ${
            args.join(" ")
          } ran over ${limit} ms and was killed:\n${stdout}\n${stderr}`,
        ),
      );
    }, limit);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code: number | null) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** The lines of a report that mention a check, for focused assertions. */
export function lineOf(stdout: string, pattern: RegExp): string {
  const line = stdout.split("\n").find((text) => pattern.test(text));
  if (line === undefined) {
    throw new Error(`no line matches ${pattern} in:\n${stdout}`);
  }
  return line;
}

/** The JSON report of `--json`. */
export interface JsonReport {
  folder: string;
  ok: boolean;
  summary: { pass: number; warn: number; fail: number; skip: number };
  checks: {
    group: string;
    name: string;
    status: "pass" | "warn" | "fail" | "skip";
    message: string;
    advice?: string;
    details?: string[];
  }[];
  report?: Record<string, string>;
}

/** Runs the doctor with `--json` and parses what it printed. */
export async function runDoctorJson(
  args: readonly string[],
  options: RunOptions = {},
): Promise<{ code: number; report: JsonReport; stderr: string }> {
  const run = await runDoctor(["--json", ...args], options);
  let report: JsonReport;
  try {
    report = JSON.parse(run.stdout) as JsonReport;
  } catch {
    throw new Error(
      `not JSON (exit ${run.code}):\n${run.stdout}\n${run.stderr}`,
    );
  }
  return { code: run.code, report, stderr: run.stderr };
}

/** The checks of one group whose status is `status`. */
export function checksOf(
  report: JsonReport,
  group: string,
  status?: "pass" | "warn" | "fail" | "skip",
): JsonReport["checks"] {
  return report.checks.filter((check) =>
    check.group === group && (status === undefined || check.status === status)
  );
}

/** Every failed check as `Group/name`, in report order. */
export function failures(report: JsonReport): string[] {
  return report.checks.filter((check) => check.status === "fail").map((
    check,
  ) => `${check.group}/${check.name}`);
}
