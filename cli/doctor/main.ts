// The `kit doctor` command line: `deno task doctor [folder]` and the npm
// bin `kit-doctor` of @vendor/kit-platform-configuration (`npx -p
// @vendor/kit-platform-configuration kit-doctor [folder]`, which works
// before the install does). It checks an application
// folder for the usual installation, compiler, configuration and service
// failures and says what to do about each. Never imported from mod.ts, so no
// browser bundle sees its node: imports.
import { resolve } from "node:path";
import process from "node:process";
import { bugReport } from "./bug_report.ts";
import { checkCompiler } from "./compiler.ts";
import { checkConfiguration } from "./configuration.ts";
import { isDirectory, UnreadableFileError } from "./files.ts";
import { readProject } from "./project.ts";
import { checkRegistry } from "./registry.ts";
import {
  type Check,
  type CheckGroup,
  type DoctorResult,
  exitCodeOf,
  mask,
  renderJson,
  renderText,
} from "./report.ts";
import { checkServices } from "./services.ts";

/** The parsed command line. */
export interface DoctorOptions {
  /** The folder to check (absolute). */
  readonly folder: string;
  /** Contact the services (`--connect`). */
  readonly connect: boolean;
  /** Print the bug-report block (`--report`). */
  readonly report: boolean;
  /** Print JSON (`--json`). */
  readonly json: boolean;
  /** Milliseconds each network check may wait (`--timeout`, default 3000). */
  readonly timeout: number;
  /** The environment name (`--environment`), else the variables decide. */
  readonly environment?: string;
  /** The variables' prefix (`--prefix`, default `APP`). */
  readonly prefix?: string;
}

/** The usage text. */
export const USAGE = `Usage: kit-doctor [options] [folder]
       npx -p @vendor/kit-platform-configuration kit-doctor [options] [folder]
       deno task doctor [options] [folder]

Checks an application folder (default: the working directory) for the
usual Kit failures and says what to do about each.

Options:
  --connect            also contact Redis, the API, the localization address
                       and the remote log and analytics endpoints
  --report             print runtime, TypeScript, Kit and OS versions for a
                       bug report
  --json               print JSON instead of the readable report
  --timeout <ms>       how long each network check may wait (default 3000)
  --environment <name> the environment name (default: RUNTIME_ENV, NODE_ENV,
                       APP_ENV, else development)
  --prefix <PREFIX>    the application's variable prefix (default APP)
  -h, --help           print this help

Exit code: 0 when no check fails, 1 when one fails, 2 for bad usage.
`;

/** A command-line mistake: printed with the usage, exit code 2. */
export class UsageError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong with the arguments.
   */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Parses the arguments.
 *
 * @param args The arguments after the program name.
 * @param cwd The working directory the folder resolves against.
 * @returns The options, or `"help"` for `--help`.
 * @throws {UsageError} for an unknown option, a missing or bad value, or
 * more than one folder.
 */
export function parseArguments(
  args: readonly string[],
  cwd: string,
): DoctorOptions | "help" {
  let folder: string | undefined;
  let connect = false;
  let report = false;
  let json = false;
  let timeout = 3000;
  let environment: string | undefined;
  let prefix: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = (): string => {
      const given = inline ?? args[++i];
      if (given === undefined || given === "") {
        throw new UsageError(`${flag} needs a value`);
      }
      return given;
    };
    switch (flag) {
      case "-h":
      case "--help":
        return "help";
      case "--connect":
        connect = true;
        break;
      case "--report":
        report = true;
        break;
      case "--json":
        json = true;
        break;
      case "--timeout": {
        const text = value();
        timeout = Number(text);
        if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600000) {
          throw new UsageError(
            `--timeout must be a whole number of milliseconds from 1 to 600000: ${text}`,
          );
        }
        break;
      }
      case "--environment":
        environment = value();
        break;
      case "--prefix":
        prefix = value();
        if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(prefix)) {
          throw new UsageError(
            `--prefix must be letters, digits and underscores: ${prefix}`,
          );
        }
        break;
      default:
        if (arg.startsWith("-")) throw new UsageError(`unknown option ${arg}`);
        if (folder !== undefined) {
          throw new UsageError(
            `one folder at a time: ${folder} and ${arg} were given`,
          );
        }
        folder = arg;
    }
  }
  return {
    folder: resolve(cwd, folder ?? "."),
    connect,
    report,
    json,
    timeout,
    environment,
    prefix,
  };
}

/** Whether the report may use colour: a terminal, and no NO_COLOR. */
export function useColor(): boolean {
  const noColor = process.env.NO_COLOR;
  if (noColor !== undefined && noColor !== "") return false;
  return process.stdout.isTTY === true;
}

/**
 * The checks of one group; a file the group needed but could not read (a
 * FIFO, a device, one too large) ends the group with a failed check naming
 * it, and the other groups still run.
 */
async function guarded(
  group: CheckGroup,
  run: () => Promise<Check[]>,
): Promise<Check[]> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof UnreadableFileError)) throw error;
    return [{
      group,
      name: "unreadable file",
      status: "fail",
      message: error.message,
      advice: error.advice,
    }];
  }
}

/**
 * Runs every check on a folder.
 *
 * @param options The parsed command line.
 * @returns The findings (and the bug report when asked).
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorResult> {
  const project = await readProject(options.folder);
  const checks: Check[] = [];
  checks.push(
    ...await guarded(
      "Registry",
      () => checkRegistry(project, options.connect, options.timeout),
    ),
  );
  checks.push(...await guarded("Compiler", () => checkCompiler(project)));
  const configuration = await checkConfiguration(options.folder, {
    environment: options.environment,
    prefix: options.prefix,
  });
  checks.push(...configuration.checks);
  try {
    checks.push(
      ...await checkServices(
        configuration.config,
        options.connect,
        options.timeout,
      ),
    );
  } finally {
    await configuration.config?.close();
  }
  return {
    folder: options.folder,
    checks,
    report: options.report ? await bugReport(project) : undefined,
  };
}

interface Output {
  write(text: string): boolean;
  once(event: "drain", listener: () => void): unknown;
}

function write(stream: Output, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(text)) resolve();
    else stream.once("drain", () => resolve());
  });
}

/**
 * Runs the doctor with command-line arguments; never exits the process.
 *
 * @param args The arguments after the program name.
 * @returns The exit code: 0 all checks pass, 1 a check fails, 2 bad usage.
 */
export async function main(args: string[]): Promise<number> {
  let options: DoctorOptions | "help";
  // `deno task` and npm scripts run in the project root and keep the
  // caller's folder in INIT_CWD: a relative folder means that one.
  const cwd = process.env.INIT_CWD || process.cwd();
  try {
    options = parseArguments(args, cwd);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    await write(process.stderr, `kit-doctor: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options === "help") {
    await write(process.stdout, USAGE);
    return 0;
  }
  if (!await isDirectory(options.folder)) {
    await write(
      process.stderr,
      `kit-doctor: ${options.folder} is not a folder\n\n${USAGE}`,
    );
    return 2;
  }
  let result: DoctorResult;
  try {
    result = await runDoctor(options);
  } catch (error) {
    await write(
      process.stderr,
      `kit-doctor: a check stopped unexpectedly: ${
        mask(
          error instanceof Error ? error.stack ?? error.message : String(error),
        )
      }\n`,
    );
    return 1;
  }
  await write(
    process.stdout,
    options.json ? renderJson(result) : renderText(result, useColor()),
  );
  return exitCodeOf(result.checks);
}
