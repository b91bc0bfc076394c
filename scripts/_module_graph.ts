// The direction of imports between Kit's folders, from the `uses` of each
// package in scripts/_packages.ts (and `INTERNAL_USES`): what
// `deno task check` (scripts/check_modules.ts) and the npm build
// (scripts/build_npm.ts) refuse, and what docs/architecture.svg draws.
//
// The rules, for a file in
// - a module (`core/`, `platform/`, …): its own files, internal/ (unless
//   internal/ uses the module: core), and the mod.ts of the modules its
//   `uses` names;
// - internal/: its own files and the mod.ts of the modules `INTERNAL_USES`
//   names (core);
// - a program under cli/<name>/: its own files, internal/, and the mod.ts of
//   the package that installs it (`bins`) and of that package's `uses`;
// - create/ (the project generator, a package with no dependencies): its own
//   files and the build scripts, no Kit module;
// - examples/ and the root mod.ts: Kit's public entry points only (each
//   module's mod.ts and the exports of deno.json), and the build scripts.
//
// A runtime variant (`#name`) counts as an import of each of its files (the
// Deno one of deno.json and the npm ones of scripts/_variants.ts), so a
// variant belongs to the folder that imports it.
import ts from "typescript";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { INTERNAL_USES, type PackageInfo, PACKAGES } from "./_packages.ts";
import { type VariantFiles, VARIANTS } from "./_variants.ts";

/** The folders whose files are checked, relative to the repository root. */
export const CHECKED_FOLDERS: readonly string[] = [
  ...PACKAGES.map((info) => info.folder),
  "internal",
  "cli",
  "create",
  "examples",
];

/** What the checker needs to know about the tree it checks. */
export interface ModuleGraphInput {
  /** The packages with their `uses` (scripts/_packages.ts). */
  packages: readonly PackageInfo[];
  /** The modules internal/ may use. */
  internalUses: readonly string[];
  /** The `imports` map of deno.json (bare and `#` specifiers). */
  imports: Readonly<Record<string, string>>;
  /** The `exports` map of deno.json (the public entry points). */
  exports: Readonly<Record<string, string>>;
  /** The runtime variants' npm files (scripts/_variants.ts). */
  variants: Readonly<Record<string, VariantFiles>>;
}

/** One import that breaks a rule. */
export interface ModuleViolation {
  /** The importing file, relative to the root (`core/clock.ts`). */
  importer: string;
  /** Its line (1-based). */
  line: number;
  /** The specifier as written (`../caching/mod.ts`, `#internal/unref`). */
  specifier: string;
  /** The imported file, relative to the root (`caching/mod.ts`). */
  imported: string;
  /** The rule broken and what to do, in a sentence. */
  rule: string;
}

/**
 * The message for one violation: both files, then the rule.
 *
 * @param violation What `checkModuleGraph` found.
 * @returns `core/clock.ts:1 imports caching/mod.ts ('../caching/mod.ts'): …`.
 */
export function violationMessage(violation: ModuleViolation): string {
  const written = violation.specifier === violation.imported
    ? ""
    : ` ('${violation.specifier}')`;
  return `${violation.importer}:${violation.line} imports ${violation.imported}${written}: ${violation.rule}`;
}

/**
 * Checks the declaration itself: every `uses` names a package listed before
 * it (so the modules form no cycle and build in order), and `INTERNAL_USES`
 * names packages whose own `uses` are empty (they cannot use internal/).
 *
 * @returns One message per mistake.
 */
export function checkDeclaration(input: ModuleGraphInput): string[] {
  const problems: string[] = [];
  const seen: string[] = [];
  for (const info of input.packages) {
    for (const use of info.uses) {
      if (!seen.includes(use)) {
        problems.push(
          `scripts/_packages.ts: ${info.folder} uses '${use}', which is not a package listed before it; a module uses only modules below it (${
            seen.join(", ") || "none"
          })`,
        );
      }
    }
    seen.push(info.folder);
  }
  for (const use of input.internalUses) {
    const info = input.packages.find((candidate) => candidate.folder === use);
    if (info === undefined || info.uses.length > 0) {
      problems.push(
        `scripts/_packages.ts: INTERNAL_USES names '${use}', which is not a package that uses nothing else; internal/ may only build on such a module`,
      );
    }
  }
  return problems;
}

/** Where a file stands: the folder whose rules apply to its imports. */
type Area =
  | { kind: "module"; info: PackageInfo }
  | { kind: "internal" }
  | { kind: "program"; folder: string; owner?: PackageInfo }
  | { kind: "create" }
  | { kind: "examples" }
  | { kind: "root" }
  | { kind: "other"; folder: string };

function areaOf(file: string, input: ModuleGraphInput): Area {
  const parts = file.split("/");
  if (parts.length === 1) {
    return file === "mod.ts"
      ? { kind: "root" }
      : { kind: "other", folder: "." };
  }
  const info = input.packages.find((candidate) =>
    candidate.folder === parts[0]
  );
  if (info !== undefined) return { kind: "module", info };
  if (parts[0] === "internal") return { kind: "internal" };
  if (parts[0] === "cli" && parts.length > 2) {
    const folder = `cli/${parts[1]}`;
    const owner = input.packages.find((candidate) =>
      Object.values(candidate.bins ?? {}).some((source) =>
        source.startsWith(folder + "/")
      )
    );
    return { kind: "program", folder, owner };
  }
  if (parts[0] === "create") return { kind: "create" };
  if (parts[0] === "examples") return { kind: "examples" };
  return { kind: "other", folder: parts[0] };
}

function sameArea(a: Area, b: Area): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "module" && b.kind === "module") {
    return a.info.folder === b.info.folder;
  }
  if (a.kind === "program" && b.kind === "program") {
    return a.folder === b.folder;
  }
  return a.kind !== "other";
}

function list(folders: readonly string[]): string {
  return folders.length === 0 ? "none" : folders.join(", ");
}

/**
 * The rule `imported` breaks when `importer` imports it, or undefined when
 * the import is allowed. Both are paths relative to the root.
 */
export function ruleBroken(
  importer: string,
  imported: string,
  input: ModuleGraphInput,
): string | undefined {
  const from = areaOf(importer, input);
  const to = areaOf(imported, input);
  if (sameArea(from, to)) return undefined;
  const entries = new Set(
    Object.values(input.exports).map((path) => path.replace(/^\.\//, "")),
  );
  const isModMts = to.kind === "module" &&
    imported === `${to.info.folder}/mod.ts`;
  // Reaching a module it may use, but past its mod.ts.
  const throughMod = (folder: string, who: string): string =>
    `${who} may use ${folder} only through ${folder}/mod.ts; ${imported} is not part of what ${folder} exports (move what is shared to internal/, or export it from ${folder}/mod.ts)`;
  switch (from.kind) {
    case "module": {
      const self = from.info.folder;
      const uses = from.info.uses;
      if (to.kind === "internal") {
        return input.internalUses.includes(self)
          ? `${self} may not import internal/, which builds on ${self} (internal/ uses ${
            list(input.internalUses)
          } in scripts/_packages.ts); ${self} keeps a private copy of what it needs`
          : undefined;
      }
      if (to.kind === "module") {
        if (!uses.includes(to.info.folder)) {
          return `${self} may not use ${to.info.folder}: a module imports only its own files, internal/ and the mod.ts of the modules its "uses" names in scripts/_packages.ts (${self}: ${
            list(uses)
          })`;
        }
        return isModMts ? undefined : throughMod(to.info.folder, self);
      }
      return `${self} may not import ${imported}, which belongs to no package; a module imports only its own files, internal/ and the mod.ts of the modules its "uses" names in scripts/_packages.ts`;
    }
    case "internal": {
      if (to.kind === "module" && input.internalUses.includes(to.info.folder)) {
        return isModMts ? undefined : throughMod(to.info.folder, "internal/");
      }
      return `internal/ may not import ${imported}: its files import only each other and the mod.ts of ${
        list(input.internalUses)
      } (INTERNAL_USES in scripts/_packages.ts), so every package can bundle them`;
    }
    case "program": {
      if (to.kind === "internal") return undefined;
      const allowed = from.owner === undefined
        ? []
        : [from.owner.folder, ...from.owner.uses];
      if (to.kind === "module" && allowed.includes(to.info.folder)) {
        return isModMts ? undefined : throughMod(to.info.folder, from.folder);
      }
      return `${from.folder} may not import ${imported}: a program imports its own files, internal/ and the mod.ts of the package that installs it${
        from.owner === undefined ? " (none names it in bins)" : ""
      } and of the modules that package uses (${list(allowed)})`;
    }
    case "create":
      if (to.kind === "other" && to.folder === "scripts") return undefined;
      return `create/ may not import ${imported}: the project generator's package has no dependencies, so it imports only its own files (and the build scripts, for a project made from this checkout)`;
    case "examples":
    case "root": {
      const who = from.kind === "root" ? "mod.ts" : "examples/";
      if (to.kind === "other" && to.folder === "scripts") return undefined;
      if (entries.has(imported) || isModMts) return undefined;
      return `${who} may not import ${imported}: it reaches Kit only through a module's mod.ts or an export of deno.json, as an application does`;
    }
    case "other":
      return undefined;
  }
}

/**
 * The files an import names, relative to the root: the file of a relative
 * import, the files of a runtime variant, the local file of a bare specifier
 * that deno.json maps to one; none for a package from a registry or a
 * built-in.
 */
export function importedFiles(
  importer: string,
  specifier: string,
  input: ModuleGraphInput,
): string[] {
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    return [join(dirname(importer), specifier)];
  }
  if (specifier.startsWith("#")) {
    const files = new Set<string>();
    const deno = input.imports[specifier];
    if (deno !== undefined) files.add(deno.replace(/^\.\//, ""));
    for (const file of Object.values(input.variants[specifier] ?? {})) {
      if (file !== undefined) files.add(file);
    }
    return [...files];
  }
  // An exact entry, or a folder entry (`name/`), as import maps resolve.
  const key = specifier in input.imports
    ? specifier
    : Object.keys(input.imports).filter((name) =>
      name.endsWith("/") && specifier.startsWith(name)
    ).sort((a, b) => b.length - a.length)[0];
  if (key === undefined || !input.imports[key].startsWith("./")) return [];
  return [
    join(input.imports[key], specifier.slice(key.length)).replace(
      /^\.\//,
      "",
    ),
  ];
}

/**
 * Every import of one source file that breaks a rule.
 *
 * @param importer The file, relative to the root.
 * @param source Its text.
 * @param input The declaration and the maps of deno.json.
 * @returns The violations, in the order of the file.
 */
export function checkSource(
  importer: string,
  source: string,
  input: ModuleGraphInput,
): ModuleViolation[] {
  const violations: ModuleViolation[] = [];
  // preProcessFile reads imports, exports, `import type` and `import()` with
  // a literal, and skips comments (a JSDoc example is no import).
  for (const ref of ts.preProcessFile(source, true, true).importedFiles) {
    for (const imported of importedFiles(importer, ref.fileName, input)) {
      const rule = ruleBroken(importer, imported, input);
      if (rule === undefined) continue;
      violations.push({
        importer,
        line: source.slice(0, ref.pos).split("\n").length,
        specifier: ref.fileName,
        imported,
        rule,
      });
    }
  }
  return violations;
}

/**
 * The source files under `folder` (from `root`), in any depth, skipping
 * node_modules and hidden folders.
 *
 * @param root The repository root.
 * @param folder A folder from the root (`platform`).
 * @returns Their paths from the root (`platform/host/application.ts`).
 */
export async function sourceFiles(
  root: string,
  folder: string,
): Promise<string[]> {
  const files: string[] = [];
  let entries;
  try {
    entries = await readdir(join(root, folder), { withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) {
        continue;
      }
      files.push(...await sourceFiles(root, path));
    } else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name)) {
      files.push(path);
    }
  }
  return files;
}

/**
 * The declaration of scripts/_packages.ts and the maps of `<root>/deno.json`
 * and scripts/_variants.ts.
 */
export async function moduleGraphInput(
  root: string,
): Promise<ModuleGraphInput> {
  const config = JSON.parse(
    await readFile(join(root, "deno.json"), "utf8"),
  ) as { imports?: Record<string, string>; exports?: Record<string, string> };
  return {
    packages: PACKAGES,
    internalUses: INTERNAL_USES,
    imports: config.imports ?? {},
    exports: config.exports ?? {},
    variants: VARIANTS,
  };
}

/**
 * Checks every import of the modules, internal/, cli/, create/, examples/
 * and the root mod.ts under `root`, and the declaration itself.
 *
 * @param root The repository root (a copy of it in the tests).
 * @param input The declaration and maps (`moduleGraphInput(root)` by
 * default).
 * @returns One message per mistake, each naming the importing file, the
 * imported one and the rule; empty when the tree keeps to the rules.
 */
export async function checkModuleGraph(
  root: string,
  input?: ModuleGraphInput,
): Promise<string[]> {
  const graph = input ?? await moduleGraphInput(root);
  const problems = checkDeclaration(graph);
  const files = ["mod.ts"];
  for (const folder of CHECKED_FOLDERS) {
    files.push(...await sourceFiles(root, folder));
  }
  for (const file of files.sort()) {
    let source: string;
    try {
      source = await readFile(join(root, file), "utf8");
    } catch {
      continue;
    }
    problems.push(...checkSource(file, source, graph).map(violationMessage));
  }
  return problems;
}

/**
 * Throws when the tree breaks a rule: how the npm build refuses it.
 *
 * @param root The repository root.
 * @param input The declaration and maps (`moduleGraphInput(root)` by
 * default).
 * @throws {Error} Listing every import that breaks a rule.
 */
export async function assertModuleGraph(
  root: string,
  input?: ModuleGraphInput,
): Promise<void> {
  const problems = await checkModuleGraph(root, input);
  if (problems.length > 0) {
    throw new Error(
      `imports between Kit's folders break the declared direction (scripts/_packages.ts):\n${
        problems.map((problem) => `  ${problem}`).join("\n")
      }`,
    );
  }
}
