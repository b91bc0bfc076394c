// File helpers of the doctor: reading text and JSON with comments
// (tsconfig.json, deno.json; through the configuration's own JSON reader),
// and finding files without following node_modules. Every file is read by
// Kit's bounded file reader: a regular file of a bounded size, in bounded
// time, so a FIFO or a device in the project never holds or floods the
// doctor.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  FileReadTimeoutError,
  FileTooLargeError,
  NotRegularFileError,
  readBoundedTextFile,
} from "../../internal/bounded_file.ts";
import { parseConfigurationJson } from "../../internal/json_syntax.ts";

/**
 * The largest file the doctor reads: 64 MiB, far above any project file it
 * looks at (the largest are lockfiles and TypeScript's build info).
 */
export const MAX_FILE_SIZE = 64 * 1024 * 1024;

/** The longest the doctor waits for one file read: 10 s. */
export const READ_TIMEOUT = 10_000;

/** A file the doctor found but could not read; a failed check reports it. */
export class UnreadableFileError extends Error {
  /** The file's path. */
  readonly path: string;
  /** What to do about it. */
  readonly advice: string;

  /**
   * Creates the error.
   *
   * @param path The file's path.
   * @param problem Why it was not read (`is not a regular file (a FIFO)`).
   * @param advice What to do about it.
   * @param cause What the reader threw.
   */
  constructor(path: string, problem: string, advice: string, cause: unknown) {
    super(`${path} ${problem}, so it was not read`, { cause });
    this.name = "UnreadableFileError";
    this.path = path;
    this.advice = advice;
  }
}

/**
 * The text of a file, or `undefined` when it does not exist (or is a
 * folder).
 *
 * @throws {UnreadableFileError} When it is a FIFO, a device or a socket, is
 * larger than {@linkcode MAX_FILE_SIZE}, takes longer than
 * {@linkcode READ_TIMEOUT} to read, or cannot be opened (`EACCES`…).
 */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readBoundedTextFile(path, {
      limit: MAX_FILE_SIZE,
      timeout: READ_TIMEOUT,
    });
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      if (error.kind === "a folder") return undefined;
      throw new UnreadableFileError(
        path,
        `is not a regular file (${error.kind})`,
        "replace it with a regular file, or remove it",
        error,
      );
    }
    if (error instanceof FileTooLargeError) {
      throw new UnreadableFileError(
        path,
        `is larger than the ${
          MAX_FILE_SIZE / 1024 / 1024
        } MiB the doctor reads`,
        "check that this is the file meant to be there",
        error,
      );
    }
    if (error instanceof FileReadTimeoutError) {
      throw new UnreadableFileError(
        path,
        `could not be read within ${READ_TIMEOUT} ms`,
        "check the file system it is on",
        error,
      );
    }
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new UnreadableFileError(
      path,
      `could not be read (${code ?? String(error)})`,
      "check the file's permissions",
      error,
    );
  }
}

/** Whether a path exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether a path is a directory. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The modification time of a file in milliseconds, or `undefined`. */
export async function modifiedAt(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
}

/** A JSON parse failure with its 1-based line and column. */
export class JsonSyntax {
  /**
   * Creates the failure.
   *
   * @param message What is wrong there (never a quote of the text).
   * @param line The 1-based line.
   * @param column The 1-based column.
   */
  constructor(
    readonly message: string,
    readonly line: number,
    readonly column: number,
  ) {}
}

/**
 * Parses JSON that may hold comments and trailing commas (tsconfig.json,
 * deno.json, package.json) with the reader the configuration files use, so
 * the doctor accepts exactly what Kit and TypeScript accept.
 *
 * @param text The file's text.
 * @returns The value, or a {@linkcode JsonSyntax} on a syntax error.
 */
export function parseJsonc(text: string): unknown {
  const result = parseConfigurationJson(text);
  if (result.ok) return result.value;
  return new JsonSyntax(
    result.problem.description,
    result.problem.line,
    result.problem.column,
  );
}

/**
 * Files whose name ends with `suffix` under `root`, at most `depth` folders
 * down, never inside `node_modules` or dot folders.
 */
export async function findFiles(
  root: string,
  suffix: string,
  depth = 3,
): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, left: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (
          left > 0 && entry.name !== "node_modules" &&
          !entry.name.startsWith(".")
        ) {
          await walk(path, left - 1);
        }
      } else if (entry.name.endsWith(suffix)) {
        found.push(path);
      }
    }
  };
  await walk(root, depth);
  return found.sort();
}

/** A plain object, or `undefined`. */
export function objectOf(
  value: unknown,
): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}
