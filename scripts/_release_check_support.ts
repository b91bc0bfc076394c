// The plumbing of the release check (scripts/release_check.ts): the state its
// cases share, running a case (one line with its verdict and time), commands
// with the check's deadline and secrets masked, the `.npmrc` lines the docs
// recommend, and the doctor's verdicts.
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  type Registry,
  type Result,
  run as runCommand,
  type Tools,
} from "./_release_registry.ts";

/** The checkout. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The variable the docs keep the registry token in. */
export const TOKEN_VARIABLE = "KIT_REGISTRY_TOKEN";

/** Something that went wrong in a case, with what to look at. */
export class CaseFailure extends Error {}
/** A case that cannot run, with the reason. */
export class CaseSkipped extends Error {}

/** One case's verdict. */
export interface CaseReport {
  /** What the case checks. */
  name: string;
  /** Its verdict. */
  status: "ok" | "FAILED" | "SKIPPED";
  /** What it found, or why it failed or was skipped. */
  detail: string;
  /** How long it took. */
  ms: number;
}

/**
 * Milliseconds as seconds with one decimal.
 *
 * @param ms The time.
 * @returns `1.2 s`.
 */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** What the cases share, filled in by the set-up cases. */
export interface Context {
  /** The scratch folder, removed at the end. */
  scratch: string;
  /** The environment of every command (no token). */
  env: Record<string, string>;
  /** The built packages' folder. */
  npmOut: string;
  /** The pinned tools, once installed. */
  tools?: Tools;
  /** The registry, once started. */
  registry?: Registry;
  /** The token of the registry's user, once created. */
  token?: string;
  /** Set once all nine packages are in the registry. */
  published?: true;
  /** Projects that installed, by package manager. */
  projects: Map<string, string>;
}

/**
 * The environment of every command: this one without npm's variables (a
 * `deno task` under `npm run` would pass them down) or a token, with npm's
 * and Bun's caches in the scratch folder and an empty user `.npmrc`.
 *
 * @param scratch The scratch folder.
 * @param userconfig An empty file, the user's `.npmrc` of a clean machine.
 * @returns The environment.
 */
export function baseEnvironment(
  scratch: string,
  userconfig: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^npm_/i.test(key) || key === TOKEN_VARIABLE) continue;
    env[key] = value;
  }
  return {
    ...env,
    NO_COLOR: "1",
    NPM_CONFIG_USERCONFIG: userconfig,
    npm_config_cache: join(scratch, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    BUN_INSTALL_CACHE_DIR: join(scratch, "bun-cache"),
  };
}

/** Runs the cases and keeps their verdicts. */
export class Check {
  /** The shared state. */
  readonly ctx: Context;
  readonly #deadline: number;
  readonly #reports: CaseReport[] = [];

  /**
   * @param ctx The shared state.
   * @param deadline The time (`Date.now()`) past which cases are skipped.
   */
  constructor(ctx: Context, deadline: number) {
    this.ctx = ctx;
    this.#deadline = deadline;
  }

  /**
   * Runs one case and prints its line: verdict, name, time, detail.
   *
   * @param name What the case checks.
   * @param body The case; returns what it found, throws `CaseFailure` or
   * `CaseSkipped` (any other error fails it too).
   * @returns Whether it passed.
   */
  async attempt(name: string, body: () => Promise<string>): Promise<boolean> {
    const t0 = performance.now();
    let status: CaseReport["status"] = "ok";
    let detail: string;
    if (Date.now() > this.#deadline) {
      // Running out of time is a failure, not a skip: a check that cannot
      // finish has not shown that the release works.
      status = "FAILED";
      detail = "not run: past the check's deadline";
    } else {
      try {
        detail = await body();
      } catch (error) {
        detail = error instanceof Error ? error.message : String(error);
        status = error instanceof CaseSkipped ? "SKIPPED" : "FAILED";
      }
    }
    const report: CaseReport = {
      name,
      status,
      detail: this.#mask(detail),
      ms: performance.now() - t0,
    };
    this.#reports.push(report);
    console.log(
      `${report.status}: ${report.name} (${
        seconds(report.ms)
      }): ${report.detail}`,
    );
    return status === "ok";
  }

  /**
   * Skips the running case when what it needs is missing.
   *
   * @param what The thing needed (undefined when missing).
   * @param setUp What provides it, for the message.
   * @throws {CaseSkipped} When `what` is undefined.
   */
  needs(what: unknown, setUp: string): void {
    if (what === undefined) throw new CaseSkipped(`needs ${setUp}`);
  }

  /**
   * The secrets to mask: the token, once there is one.
   *
   * @returns The values.
   */
  secrets(): string[] {
    return this.ctx.token === undefined ? [] : [this.ctx.token];
  }

  /**
   * Runs a command within the check's deadline, secrets masked.
   *
   * @param command The program.
   * @param args Its arguments.
   * @param cwd The working folder.
   * @param env The environment; the check's by default.
   * @param timeoutMs The command's own limit.
   * @returns The exit code and the end of the output.
   */
  run(
    command: string,
    args: readonly string[],
    cwd: string,
    env: Record<string, string> = this.ctx.env,
    timeoutMs = 180_000,
  ): Promise<Result> {
    return runCommand(command, args, {
      cwd,
      env,
      timeoutMs: Math.max(
        1_000,
        Math.min(timeoutMs, this.#deadline - Date.now()),
      ),
      secrets: this.secrets(),
    });
  }

  /**
   * The check's environment with the token in `KIT_REGISTRY_TOKEN`.
   *
   * @param extra More variables.
   * @returns The environment.
   */
  withToken(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...this.ctx.env,
      [TOKEN_VARIABLE]: this.ctx.token ?? "",
      ...extra,
    };
  }

  /**
   * Prints `release check: N passed, N failed, N skipped`.
   *
   * @returns The exit code: 1 when a case failed.
   */
  summary(): number {
    const count = (status: CaseReport["status"]): number =>
      this.#reports.filter((report) => report.status === status).length;
    console.log(
      `release check: ${count("ok")} passed, ${count("FAILED")} failed, ${
        count("SKIPPED")
      } skipped`,
    );
    return count("FAILED") > 0 ? 1 : 0;
  }

  #mask(text: string): string {
    return this.ctx.token === undefined
      ? text
      : text.split(this.ctx.token).join("***");
  }
}

/**
 * Fails the case unless the command exited 0.
 *
 * @param what The command, for the message.
 * @param result What it left.
 * @throws {CaseFailure} With the end of its output.
 */
export function expectOk(what: string, result: Result): void {
  if (result.code !== 0) {
    throw new CaseFailure(
      `${what} exited with ${result.code}:\n${result.output.slice(-2500)}`,
    );
  }
}

/**
 * The `.npmrc` line that maps the `@vendor` scope to the registry.
 *
 * @param registry The registry.
 * @returns The line.
 */
export function scopeLine(registry: Registry): string {
  return `@vendor:registry=${registry.url}\n`;
}

/**
 * The `.npmrc` credential line the docs recommend: the token read from
 * `KIT_REGISTRY_TOKEN`, never written into the file.
 *
 * @param registry The registry.
 * @returns The line.
 */
export function credentialLine(registry: Registry): string {
  return `${registry.authKey}:_authToken=\${${TOKEN_VARIABLE}}\n`;
}

let versionCache: string | undefined;

/**
 * Kit's version, from deno.json.
 *
 * @returns The version.
 */
export async function kitVersion(): Promise<string> {
  versionCache ??= (JSON.parse(
    await readFile(join(ROOT, "deno.json"), "utf8"),
  ) as { version: string }).version;
  return versionCache;
}

/** One check of the doctor's `--json` report. */
export interface DoctorCheck {
  /** `Registry`, `Compiler`, … */
  group: string;
  /** The check's name. */
  name: string;
  /** `pass`, `warn`, `fail` or `skip`. */
  status: string;
  /** What it found. */
  message: string;
  /** What to do, for a failure or warning. */
  advice?: string;
}

/**
 * Runs the doctor on a folder and returns its checks: this checkout's
 * (`scripts/doctor.ts`), or an installed `kit-doctor`.
 *
 * @param check The check (for the deadline and the secrets).
 * @param folder The project.
 * @param env The environment (the doctor reads the token's variable).
 * @param program An installed `kit-doctor`, with the runtime before it when
 * it is not Node.js; the checkout's by default.
 * @returns The checks.
 * @throws {CaseFailure} When it prints no JSON report.
 */
export async function doctor(
  check: Check,
  folder: string,
  env: Record<string, string>,
  program?: readonly string[],
): Promise<DoctorCheck[]> {
  const [command, ...args] = program ??
    [process.execPath, "run", "-A", join(ROOT, "scripts", "doctor.ts")];
  const result = await check.run(
    command,
    [...args, "--json", folder],
    folder,
    env,
    60_000,
  );
  try {
    return (JSON.parse(result.output.slice(result.output.indexOf("{"))) as {
      checks: DoctorCheck[];
    }).checks;
  } catch {
    throw new CaseFailure(
      `the doctor (${command}) gave no JSON (exit ${result.code}):\n${
        result.output.slice(-2000)
      }`,
    );
  }
}

/**
 * Fails the case unless the doctor failed a Registry check with a fix.
 *
 * @param checks The doctor's checks.
 * @param name The check that must fail.
 * @param advice What its fix must say.
 * @returns The verdict, for the case's line.
 * @throws {CaseFailure} With what the doctor said instead.
 */
export function expectDoctorFails(
  checks: DoctorCheck[],
  name: string | RegExp,
  advice: RegExp,
): string {
  const registry = checks.filter((check) => check.group === "Registry");
  const failed = registry.find((check) =>
    check.status === "fail" &&
    (typeof name === "string" ? check.name === name : name.test(check.name))
  );
  if (failed === undefined || !advice.test(failed.advice ?? "")) {
    throw new CaseFailure(
      `the doctor should FAIL ${name} with a fix matching ${advice}; it said:\n${
        registry.map((check) =>
          `  ${check.status} ${check.name}: ${check.message}${
            check.advice ? `\n    fix: ${check.advice}` : ""
          }`
        ).join("\n")
      }`,
    );
  }
  return `doctor FAIL ${failed.name}, fix: ${failed.advice}`;
}
