// File helpers of the doctor: reading text and JSON with comments
// (tsconfig.json, deno.json; through the configuration's own JSON reader),
// and finding files without following node_modules.
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseConfigurationJson } from "../../internal/json_syntax.ts";

/** The text of a file, or `undefined` when it does not exist. */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    if ((error as { code?: string }).code === "EISDIR") return undefined;
    throw error;
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
