/**
 * One name per thing across Kit's modules: no two modules (the eight
 * packages' folders and internal/) define an export of the same name, so a
 * search for a class, function, type or constant finds one thing. Inside a
 * module the files behind one runtime variant (`#platform/server/server`) define
 * the same names by design, and may share them with the module's other
 * files; that stays allowed.
 *
 * The one exception across modules: core imports nothing else of Kit, so a
 * private helper of core (a file starting with `_`, which core/mod.ts does
 * not export) may have its copy under the same name in internal/, which
 * the other modules use. Part of scripts/check_modules.ts.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { sourceFiles } from "./_module_graph.ts";
import { PACKAGES } from "./_packages.ts";

/** A file and the names it defines with `export`. */
export interface ExportedNames {
  /** The file, from the repository root (`caching/_telemetry.ts`). */
  readonly file: string;
  /** Its source text. */
  readonly source: string;
}

// `export function x`, `export class X`, `export const X`,
// `export interface X`, `export type X =`, `export enum X` (not re-exports:
// `export { x } from` names a thing defined elsewhere).
const DEFINITION =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;

/**
 * The names `source` defines with `export`.
 *
 * @param source A module's text.
 * @returns The names, in order.
 */
export function definedNames(source: string): string[] {
  return [...source.matchAll(DEFINITION)].map((match) => match[1]);
}

function moduleOf(file: string): string {
  return file.slice(0, file.indexOf("/"));
}

/**
 * Finds names defined by more than one module.
 *
 * @param files Every library file with its text.
 * @returns One message per name, naming every file that defines it.
 */
export function repeatedNames(
  files: readonly ExportedNames[],
): string[] {
  const byName = new Map<string, string[]>();
  for (const { file, source } of files) {
    for (const name of definedNames(source)) {
      const list = byName.get(name) ?? [];
      list.push(file);
      byName.set(name, list);
    }
  }
  const problems: string[] = [];
  for (const [name, where] of [...byName].sort(([a], [b]) => a < b ? -1 : 1)) {
    const modules = new Set(where.map(moduleOf));
    if (modules.size < 2) continue;
    const mirror = modules.size === 2 && modules.has("core") &&
      modules.has("internal") &&
      where.filter((file) => moduleOf(file) === "core").every((file) =>
        file.slice(file.lastIndexOf("/") + 1).startsWith("_")
      );
    if (mirror) continue;
    problems.push(
      `'${name}' is defined by ${
        [...new Set(where)].sort().join(", ")
      }: one name per thing across modules; rename all but one (a module's private names can carry its name, as HTTP_SCOPE does)`,
    );
  }
  return problems;
}

/**
 * Checks the modules under `root` for names defined twice.
 *
 * @param root The repository root.
 * @returns One message per repeated name; empty when every name is one
 * thing.
 */
export async function checkExportNames(root: string): Promise<string[]> {
  const folders = [...PACKAGES.map((pkg) => pkg.folder), "internal"];
  const files: ExportedNames[] = [];
  for (const folder of folders) {
    for (const file of await sourceFiles(root, folder)) {
      if (!file.endsWith(".ts")) continue;
      files.push({ file, source: await readFile(join(root, file), "utf8") });
    }
  }
  return repeatedNames(files);
}
