// File helpers of the doctor: reading text and JSON with comments
// (tsconfig.json, deno.json), and finding files without following
// node_modules.
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

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
  constructor(
    readonly message: string,
    readonly line: number,
    readonly column: number,
  ) {}
}

/**
 * Parses JSON that may hold comments and trailing commas (tsconfig.json,
 * deno.jsonc). Returns a {@linkcode JsonSyntax} on a syntax error.
 */
export function parseJsonc(text: string): unknown {
  const stripped = stripComments(text);
  try {
    return JSON.parse(stripped);
  } catch (error) {
    const position = positionOf(error, stripped);
    const { line, column } = lineColumn(stripped, position);
    const message = error instanceof Error ? error.message : String(error);
    return new JsonSyntax(message, line, column);
  }
}

// Blanks comments and trailing commas, keeping every offset (so line and
// column stay true to the file).
function stripComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      let j = i;
      while (j < text.length && text[j] !== "\n") j++;
      out += " ".repeat(j - i);
      i = j;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const j = end === -1 ? text.length : end + 2;
      out += text.slice(i, j).replace(/[^\n]/g, " ");
      i = j;
    } else if (c === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j])) j++;
      out += text[j] === "}" || text[j] === "]" ? " " : ",";
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function positionOf(error: unknown, text: string): number {
  const message = error instanceof Error ? error.message : "";
  const at = /position (\d+)/.exec(message);
  if (at) return Number(at[1]);
  const lineColumnMatch = /line (\d+) column (\d+)/.exec(message);
  if (lineColumnMatch) {
    const lines = text.split("\n");
    let offset = 0;
    for (let i = 0; i < Number(lineColumnMatch[1]) - 1; i++) {
      offset += lines[i].length + 1;
    }
    return offset + Number(lineColumnMatch[2]) - 1;
  }
  return text.length;
}

function lineColumn(
  text: string,
  position: number,
): { line: number; column: number } {
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const column = position - before.lastIndexOf("\n");
  return { line, column };
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
