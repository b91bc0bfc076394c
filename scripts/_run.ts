/**
 * Running a command with a deadline, for the checks that drive real tools
 * (scripts/release_check.ts, scripts/create_check.ts, scripts/_podman.ts).
 *
 * Each command starts in its own process group, so that a kill at the
 * deadline reaches what it started too: npm, pnpm, tsc, `deno task` and
 * `node --test` leave children that hold the output pipes open otherwise.
 * Only the end of the output is kept, and a run settles a few seconds after
 * its kill even if something outside the group still holds a pipe.
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import process from "node:process";

/** Output kept per command by default, for the failure message. */
export const OUTPUT_LIMIT = 64 * 1024;

/** What a finished command left. */
export interface RunResult {
  /** The exit code; `null` when a signal (or the time limit) ended it. */
  code: number | null;
  /** The end of stdout and stderr together, secrets masked. */
  output: string;
}

/** A command and where it runs. */
export interface RunOptions {
  /** The working folder. */
  cwd: string;
  /** The whole environment of the child (nothing is inherited). */
  env: Record<string, string | undefined>;
  /** The time limit in milliseconds. */
  timeoutMs: number;
  /** Strings that must never reach the output (tokens, passwords). */
  secrets?: readonly string[];
  /** The characters of output kept (the end); {@linkcode OUTPUT_LIMIT} by default. */
  outputLimit?: number;
  /**
   * How long after the kill the run settles even though something still
   * holds its output pipes (a process that left the group); 5 s by default.
   */
  settleMs?: number;
}

/** Every child still running, killed by `killAll` on the way out. */
const running = new Set<ChildProcess>();

/**
 * Runs a command to its end, killing its process group past the time limit.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param options Folder, environment, time limit and secrets to mask.
 * @returns The exit code and the end of the output.
 * @example
 * ```ts
 * const { code, output } = await run("npm", ["install"], {
 *   cwd: dir,
 *   env: { PATH: process.env.PATH ?? "" },
 *   timeoutMs: 120_000,
 * });
 * ```
 */
export function run(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<RunResult> {
  const limit = options.outputLimit ?? OUTPUT_LIMIT;
  const secrets = options.secrets ?? [];
  return new Promise((resolvePromise) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let settled = false;
    const settle = (code: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      running.delete(child);
      resolvePromise({
        code,
        output: mask(output, secrets).slice(-limit),
      });
    };
    running.add(child);
    let output = "";
    // Masked before the end is cut: a cut through a secret would leave its
    // tail, unmasked. One decoder a stream, so a character split between two
    // chunks of one stream is not garbled by the other's bytes.
    const keep = (decoder: TextDecoder) => (chunk: Uint8Array): void => {
      output = mask(output + decoder.decode(chunk, { stream: true }), secrets)
        .slice(-limit);
    };
    child.stdout!.on("data", keep(new TextDecoder()));
    child.stderr!.on("data", keep(new TextDecoder()));
    const timer = setTimeout(() => {
      output += `\n(killed after ${Math.round(options.timeoutMs / 1000)} s)`;
      killGroup(child);
      // Settle even if something still holds the pipes.
      setTimeout(() => settle(null), options.settleMs ?? 5_000).unref();
    }, options.timeoutMs);
    child.on("error", (error) => {
      output += `\n${error.message}`;
    });
    child.on("close", (code) => settle(code));
  });
}

/**
 * Keeps `child` in the set {@linkcode killAll} ends, until it closes: for a
 * long-running process a check starts itself (a registry, a service).
 *
 * @param child The started process.
 */
export function track(child: ChildProcess): void {
  running.add(child);
  child.once("close", () => running.delete(child));
}

/**
 * Kills every command {@linkcode run} started (or {@linkcode track} was
 * given) that still runs, with its process group.
 */
export function killAll(): void {
  for (const child of running) killGroup(child);
}

/**
 * Kills a child and, when it was started in its own process group, the
 * group.
 *
 * @param child The process.
 */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // Not a group leader (or gone): the child alone.
    child.kill("SIGKILL");
  }
}

/**
 * Replaces each secret in a text with `***`.
 *
 * @param text The text.
 * @param secrets The values to hide.
 * @returns The text without them.
 */
export function mask(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length > 0) out = out.split(secret).join("***");
  }
  return out;
}

/** What a command run by {@linkcode runSync} left. */
export interface SyncResult {
  /** The exit code, 1 when it could not start or was killed. */
  code: number;
  /** Everything it wrote to stdout. */
  stdout: string;
  /** Everything it wrote to stderr, and the spawn error if any. */
  stderr: string;
}

/**
 * Runs a short command to its end and waits for it, killed past `timeout`:
 * for the synchronous podman calls, whose stdout is parsed apart from
 * stderr.
 *
 * @param command The program.
 * @param args Its arguments.
 * @param options The folder, the time limit in ms (10 min by default) and
 * the whole environment.
 * @returns Its exit code and output.
 */
export function runSync(
  command: string,
  args: readonly string[],
  options: {
    cwd: string;
    timeout?: number;
    env: Record<string, string | undefined>;
  },
): SyncResult {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    encoding: "utf8",
    timeout: options.timeout ?? 600_000,
    maxBuffer: 64 * 1024 * 1024,
    env: options.env,
  });
  return {
    code: result.status ?? 1,
    stdout: result.stdout ?? "",
    stderr: (result.stderr ?? "") +
      (result.error ? String(result.error.message) : ""),
  };
}
