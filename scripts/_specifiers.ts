// Module-specifier rewriting shared by the npm build (scripts/build_npm.ts)
// and the npm test passes (scripts/test_npm.ts).
import ts from "typescript";

/**
 * Replaces every module specifier of a source file (static imports and
 * exports, `import type`, dynamic `import()`) with what `replace` returns.
 */
export function replaceSpecifiers(
  source: string,
  replace: (specifier: string) => string,
): string {
  const refs = ts.preProcessFile(source, true, true).importedFiles;
  let result = "";
  let last = 0;
  for (const ref of refs) {
    const specifier = ref.fileName;
    // ref.pos points at the specifier inside its quotes.
    const start = source.indexOf(specifier, ref.pos);
    result += source.slice(last, start) + replace(specifier);
    last = start + specifier.length;
  }
  return result + source.slice(last);
}

/** An npm package reached through the `imports` map of deno.json. */
export interface NpmImport {
  /** The npm package name. */
  name: string;
  /** The version range of the `npm:` specifier. */
  range: string;
  /** The specifier to write for npm (`name` plus any subpath). */
  replacement: string;
}

/**
 * Resolves a bare specifier through the `imports` map of deno.json.
 *
 * @throws {Error} When the map has no entry for it, or the entry is not an
 * `npm:` specifier with a range.
 */
export function resolveNpmImport(
  specifier: string,
  imports: Record<string, string>,
  where: string,
): NpmImport {
  const key = Object.keys(imports).find((name) =>
    specifier === name || specifier.startsWith(name + "/")
  );
  if (key === undefined) {
    throw new Error(
      `${where}: '${specifier}' is not in the imports map of deno.json`,
    );
  }
  const match = /^npm:(@?[^@]+)@(.+)$/.exec(imports[key]);
  if (!match) {
    throw new Error(
      `imports map: '${imports[key]}' is not an npm: specifier with a range`,
    );
  }
  return {
    name: match[1],
    range: match[2],
    replacement: match[1] + specifier.slice(key.length),
  };
}
