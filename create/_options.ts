// The generator's command line: `<folder>` and the options, with errors that
// name what is wrong and what would be accepted instead.

/** What the user asked for. */
export interface CreateOptions {
  /** The project folder, as given (relative to the working directory). */
  folder: string;
  /** The runtime the project runs on. */
  runtime: "deno" | "node";
  /** Node.js only: the module format `tsc` emits. */
  module: "esm" | "commonjs";
  /** Add a Redis cache (memory until `REDIS_HOST` is set). */
  redis: boolean;
  /**
   * Add a database: Kit's `addDatabase`, migrations and a route that uses
   * it (PGlite in development, `DB_CONNECTION_STRING` in production).
   */
  postgres: boolean;
  /** Write into a folder that is not empty. */
  force: boolean;
  /** Print the usage and stop. */
  help: boolean;
}

/** A command line the generator cannot act on; exit code 2. */
export class UsageError extends Error {
  /** @param message What is wrong and what to do. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

const RUNTIMES = ["deno", "node"] as const;
const MODULES = ["esm", "commonjs"] as const;

/** The options, as the usage and the unknown-option error list them. */
export const VALID_OPTIONS =
  "--runtime deno|node, --module esm|commonjs, --redis, --postgres, --force, --help";

/**
 * The usage text.
 *
 * @param command How the user runs the generator (`deno task create`).
 * @param runtime The runtime used when `--runtime` is not given.
 * @returns The text, ending in a newline.
 */
export function usage(command: string, runtime: "deno" | "node"): string {
  return `Usage: ${command} <folder> [options]

Writes a small Kit service into <folder>: configuration files with a schema of
its own, main.ts served by Kit's host with Hono, one route with its test, the
/health probes, a Dockerfile and compose.yaml.

Options:
  --runtime deno|node     the runtime (default: ${runtime})
  --module esm|commonjs   Node.js: the module format tsc emits (default: esm)
  --redis                 add a Redis cache (memory until REDIS_HOST is set)
  --postgres              add a PostgreSQL database with migrations (embedded in
                          development; DB_CONNECTION_STRING in production)
  --force                 write into a folder that is not empty (same-named files are replaced)
  --help                  print this text
`;
}

function choice<T extends string>(
  option: string,
  value: string | undefined,
  allowed: readonly T[],
): T {
  if (value === undefined || value.startsWith("--")) {
    throw new UsageError(
      `${option} needs a value: one of ${allowed.join(", ")}.`,
    );
  }
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(
      `Invalid ${option} '${value}': use one of ${allowed.join(", ")}.`,
    );
  }
  return value as T;
}

/**
 * Reads the command line.
 *
 * @param args The arguments after the program name.
 * @param defaultRuntime The runtime when `--runtime` is not given.
 * @returns The options.
 * @throws {UsageError} For an unknown option, a bad value, a missing or
 * second folder, or `--module` with the Deno runtime.
 */
export function parseArgs(
  args: readonly string[],
  defaultRuntime: "deno" | "node",
): CreateOptions {
  const options: CreateOptions = {
    folder: "",
    runtime: defaultRuntime,
    module: "esm",
    redis: false,
    postgres: false,
    force: false,
    help: false,
  };
  let moduleGiven = false;
  let runtimeGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const value = (): string | undefined => inline ?? args[++i];
    switch (name) {
      case "--runtime":
        options.runtime = choice("--runtime", value(), RUNTIMES);
        runtimeGiven = true;
        break;
      case "--module":
        options.module = choice("--module", value(), MODULES);
        moduleGiven = true;
        break;
      case "--redis":
      case "--postgres":
      case "--force":
      case "--help":
        if (inline !== undefined) {
          throw new UsageError(`${name} takes no value (got '${arg}').`);
        }
        options[name.slice(2) as "redis" | "postgres" | "force" | "help"] =
          true;
        break;
      case "-h":
        options.help = true;
        break;
      default:
        if (arg.startsWith("-")) {
          throw new UsageError(
            `Unknown option '${name}'. Valid options: ${VALID_OPTIONS}.`,
          );
        }
        if (options.folder !== "") {
          throw new UsageError(
            `One folder only: got '${options.folder}' and '${arg}'.`,
          );
        }
        options.folder = arg;
    }
  }
  if (options.help) return options;
  if (options.folder === "") {
    throw new UsageError(
      "Missing the project folder: give the folder to create, e.g. my-service.",
    );
  }
  if (moduleGiven && options.runtime !== "node") {
    throw new UsageError(
      `--module applies to Node.js only: add --runtime node${
        runtimeGiven ? " instead of --runtime " + options.runtime : ""
      }, or drop --module.`,
    );
  }
  return options;
}
