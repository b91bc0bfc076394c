// The generator's run: read the command line, refuse a folder that is not
// empty (or, with --force, one with a link leading out of it where the
// project goes), write the project, say what to do next. The entry points (the Deno
// task from a checkout, the npm package's program) differ only in the
// GeneratorHost they pass: where Kit comes from.
import { chmod, mkdir, readdir, stat } from "node:fs/promises";
import { basename, join, relative, resolve } from "node:path";
import {
  type CreateOptions,
  parseArgs,
  usage,
  UsageError,
} from "./_options.ts";
import {
  type KitSource,
  LOG_FOLDER,
  projectFiles,
  projectName,
  projectPaths,
} from "./_project_files.ts";
import {
  linksInTheWay,
  makeFolderInside,
  writeInside,
} from "./_write_inside.ts";

/** What an entry point supplies to {@linkcode runGenerator}. */
export interface GeneratorHost {
  /** How the user runs the generator, for the usage text. */
  command: string;
  /** The runtime when `--runtime` is not given. */
  defaultRuntime: "deno" | "node";
  /** The folder a relative project folder is relative to. */
  cwd: string;
  /**
   * Where the project gets Kit from; may write into `dir` (which exists),
   * such as packed packages under `vendor/`.
   */
  kitSource(options: CreateOptions, dir: string): Promise<KitSource>;
  /**
   * The folders {@linkcode kitSource} writes into, relative to the project
   * folder (`/` between parts): made before it runs, checked for links like
   * the project's own files.
   */
  kitFolders(options: CreateOptions): readonly string[];
  /** Writes a line of output. */
  out(text: string): void;
  /** Writes a line of error output. */
  err(text: string): void;
}

/**
 * `to` relative to `from` when they share a folder below the root, else
 * `to` itself (a path up to `/` and down again says nothing useful).
 *
 * @param from The folder the path starts from.
 * @param to An absolute path.
 * @returns The shorter, readable path.
 */
export function nearPath(from: string, to: string): string {
  const rel = relative(from, to) || ".";
  const ups = rel.split(/[\\/]/).filter((part) => part === "..").length;
  const depth = resolve(from).split(/[\\/]/).filter(Boolean).length;
  return ups > 0 && ups >= depth ? to : rel;
}

/** Exit code of a refused folder. */
const REFUSED = 1;
/** Exit code of a bad command line. */
const USAGE = 2;

/**
 * Runs the generator.
 *
 * @param args The arguments after the program name.
 * @param host The entry point's part.
 * @returns The exit code: 0 written, 1 refused or failed, 2 usage.
 */
export async function runGenerator(
  args: readonly string[],
  host: GeneratorHost,
): Promise<number> {
  let options: CreateOptions;
  try {
    options = parseArgs(args, host.defaultRuntime);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    host.err(`error: ${error.message}`);
    host.err(`Run ${host.command} --help for the usage.`);
    return USAGE;
  }
  if (options.help) {
    host.out(usage(host.command, host.defaultRuntime));
    return 0;
  }
  const dir = resolve(host.cwd, options.folder);
  let entries: string[] = [];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOTDIR") {
      host.err(
        `error: '${options.folder}' is a file, not a folder; choose another name.`,
      );
      return REFUSED;
    }
    if (code !== "ENOENT") throw error;
  }
  if (entries.length > 0 && !options.force) {
    const shown = entries.sort().slice(0, 5).join(", ");
    host.err(
      `error: the folder '${options.folder}' exists and is not empty (${entries.length} ${
        entries.length === 1 ? "entry" : "entries"
      }: ${shown}${
        entries.length > 5 ? ", …" : ""
      }). Choose a new or empty folder, or add --force to write into it (files with the same names are replaced, others kept).`,
    );
    return REFUSED;
  }
  const context = {
    runtime: options.runtime,
    module: options.module,
    redis: options.redis,
    postgres: options.postgres,
    name: projectName(basename(dir)),
  };
  const kitFolders = host.kitFolders(options);
  // With --force the folder may hold symbolic links where the project goes.
  // --force hands the folder over, not what a link leads to: one leading out
  // of it stops the run before anything is written; one that stays inside is
  // replaced like a file of the same name.
  const links = await linksInTheWay(dir, projectPaths(context), kitFolders);
  const outside = links.filter((link) => link.outside);
  if (outside.length > 0) {
    host.err(
      `error: --force replaces what is in '${options.folder}', never what a link there leads to outside it: ${
        outside.map((link) => `${link.path} -> ${link.target}`).join(", ")
      }. Remove ${
        outside.length === 1 ? "this link" : "these links"
      }, or choose another folder; nothing was written.`,
    );
    return REFUSED;
  }
  await mkdir(dir, { recursive: true });
  for (const folder of kitFolders) await makeFolderInside(dir, folder);
  // Made before the files, to know whether it was there: the mode of a
  // folder that was there is the user's and is kept.
  const madeLogFolder = await makeFolderInside(dir, LOG_FOLDER);
  const source = await host.kitSource(options, dir);
  const files = projectFiles({ ...context, source });
  for (const [path, text] of Object.entries(files)) {
    await writeInside(dir, path, text);
  }
  const logFolder = join(dir, LOG_FOLDER);
  if (madeLogFolder) {
    // The container runs as an unprivileged user whose id is not the one of
    // whoever owns this folder, and writes its log file into the log folder
    // through compose.yaml's bind mount: writable for all.
    await chmod(logFolder, 0o777);
  }
  for (const link of links) {
    host.out(`Replaced the link ${link.path} -> ${link.target}.`);
  }
  const logMode = (await stat(logFolder)).mode & 0o777;
  if (!madeLogFolder && (logMode & 0o002) === 0) {
    host.out(
      `Kept the mode of the folder ${LOG_FOLDER}, which was there (${
        logMode.toString(8)
      }): the container's user must be able to write its log file into it (chmod 777 ${LOG_FOLDER}).`,
    );
  }
  const shown = nearPath(host.cwd, dir);
  const flavour = options.runtime === "deno"
    ? "the Deno runtime"
    : `Node.js (${options.module === "esm" ? "ES modules" : "CommonJS"})`;
  const extras = [options.redis && "Redis", options.postgres && "PostgreSQL"]
    .filter(Boolean).join(" and ");
  host.out(
    `Created ${shown}: a Kit service for ${flavour}${
      extras ? ` with ${extras}` : ""
    }, ${Object.keys(files).length} files; Kit from ${
      source.kind === "checkout"
        ? "the checkout"
        : `the registry (^${source.version})`
    }.`,
  );
  host.out("");
  host.out("Next:");
  host.out(`  cd ${shown}`);
  if (options.runtime === "deno") {
    host.out("  deno task test");
    host.out("  deno task start");
  } else {
    host.out("  npm install");
    host.out("  npm test");
    host.out("  npm start");
  }
  return 0;
}
