/**
 * Builds Kit's eight npm packages from the Deno sources:
 *
 * - JavaScript: one bundle per package entry, made by esbuild (pinned in
 *   deno.json): `esm/mod.js` (ES module) and `script/mod.js` (CommonJS), and
 *   `esm/mod_browser.js` (and Bun bundles) where runtime variants differ
 *   (below). Each bundle holds the package's own source files; sibling Kit
 *   packages and npm dependencies stay imports by package name, so npm
 *   installs each once and bundlers still tree-shake (`sideEffects: false`). Node.js then loads
 *   one file per package instead of one per source file, which is most of
 *   the cold-import time (bench/cold_import_bench.ts). The bundles are not
 *   minified (a line of a bundle is a line of code; comments are left out),
 *   so a trace names a bundle line a person can read. A linked source map
 *   beside each bundle (`mod.js.map`) names the TypeScript file and line of
 *   every position (`node --enable-source-maps`) as a path inside the
 *   package (`src/locator/service_locator.ts`, relative to the map), and carries
 *   the text of those files, which do not ship themselves;
 * - declarations from the TypeScript compiler, one `.d.ts` per public file
 *   (and per internal file a public one reaches) in `esm/` and in `script/`
 *   (whose package.json says `commonjs`, so `require` gets CommonJS types);
 * - imports between Kit's folders (`../core/mod.ts`) become dependencies on
 *   the sibling package at `^` the same version; bare imports go through the
 *   `imports` map of deno.json and become `dependencies` with its ranges;
 * - further entry points of `PackageInfo.subpaths` (`@vendor/kit-platform/hono`)
 *   get bundles of their own; the npm packages only they need
 *   (`optionalPeers`) become optional peer dependencies;
 * - `package.json` with `main`/`types` for `moduleResolution: node` and
 *   `exports` with `browser`/`import`/`require`/`types` conditions, `bin` for
 *   the command-line programs of `PackageInfo.bins` (`bin/<name>.mjs`, written
 *   without `./`, which npm drops on publish; a Node.js bundle that runs the
 *   program's `main`), `keywords`, `author` and `license` (the LICENSE's
 *   holder, deno.json's license), the package's own README (the module's
 *   `docs/<folder>.md`) and the LICENSE;
 * - the JSR import paths in the declarations' doc comments
 *   (`@vendor/kit/platform`) become npm package names
 *   (`@vendor/kit-platform`).
 *
 * Declarations come from each file on its own (`transpileDeclaration`): the
 * sources have explicit types everywhere (no slow types, which `deno
 * publish` enforces), so they need no whole program. Type-checking of the
 * result happens in `scripts/check_packages.ts` and in the consumer check.
 *
 * Files of the top-level `internal/` folder (mechanisms shared by several
 * modules; no mod.ts exports them) are bundled into each package that
 * imports them, like the package's own files: a module may import
 * `../internal/x.ts` besides its own files and its siblings' mod.ts. Their
 * imports count as the package's dependencies. Their declarations do not
 * ship, so the build fails when a public declaration names one of their
 * types. In the source maps they stand under `src/_internal/`.
 *
 * Runtime-specific code is a runtime variant: a module imports `#name`
 * (`#http/ky`), which deno.json maps to the Deno file and `VARIANTS` of
 * `scripts/_variants.ts` maps, per package.json condition (`node`, `bun`,
 * `browser`, `default`), to the npm files. Each bundle is made for one
 * runtime and resolves every `#name` by the conditions that runtime matches
 * (Node.js `node`, `default`; Bun `bun`, `node`, `default`; web bundlers
 * `browser`, `default`): the Node.js bundles (`esm/mod.js`,
 * `script/mod.js`), `esm/mod_browser.js` for the `browser` export condition
 * where a variant the package reaches has a browser file of its own (so
 * bundlers for the web never see a `node:` module or a Node-only package
 * such as node-redis or dotenv), and `esm/mod_bun.js`/`script/mod_bun.js`
 * for the `bun` condition where one has a Bun file of its own. A variant
 * with no file for a runtime and no `default` fails the build, naming the
 * variant, the runtime and the importing file. The variants are bundled in:
 * nothing shipped names a `#` specifier (declarations name the Node.js
 * file), so the package.json has no `imports` field. Files only Deno uses
 * stay out of the npm build, so no `Deno` global ships to npm
 * (`scripts/check_packages.ts` enforces it). See docs/architecture.md,
 * "Runtime variants".
 *
 * Beside the eight, the project generator's package (`CREATE_PACKAGE`,
 * `@vendor/create-kit`, which `npm init @vendor/kit` runs): its program
 * only, one Node.js bundle of `create/` with no dependencies, at the same
 * version (`buildCreatePackage`).
 *
 * Environment: `KIT_NPM_REGISTRY` sets `publishConfig.registry` (the private
 * registry the packages are published to); `KIT_NPM_REPOSITORY`, the web
 * address of Kit's repository (`https://<host>/<owner>/kit`), sets
 * `repository`, `homepage` and `bugs` (`<address>/issues`, or
 * `KIT_NPM_BUGS`), which are left out when it is unset; `KIT_NPM_OUT`
 * builds into another folder than `npm/`.
 *
 * A complete build leaves `.kit-build.json` in that folder: a hash of the
 * checkout's sources and of those settings (scripts/_build_stamp.ts), by
 * which the project generator (`KIT_NPM_REUSE=1`) and the generator's check
 * tell whether the build is what building again would make, and use it
 * instead.
 *
 * Run: `deno task build:npm`.
 *
 * @module
 */
import ts from "typescript";
import * as esbuild from "esbuild";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import {
  chmod,
  copyFile,
  mkdir,
  readdir,
  readFile,
  rm,
  writeFile,
} from "node:fs/promises";
import {
  authorOf,
  CREATE_PACKAGE,
  jsrAliases,
  type PackageInfo,
  packageOfFolder,
  PACKAGES,
  repositoryFields,
} from "./_packages.ts";
import { replaceSpecifiers, resolveNpmImport } from "./_specifiers.ts";
import { assertModuleGraph } from "./_module_graph.ts";
import { sourcesStamp, STAMP_FILE } from "./_build_stamp.ts";
import {
  checkVariants,
  type NpmRuntime,
  variantFile,
  type VariantFiles,
  VARIANTS,
} from "./_variants.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const OUT = resolve(ROOT, Deno.env.get("KIT_NPM_OUT") ?? "npm");
/**
 * The shared internal folder: mechanisms written once for several modules
 * (backoff, the telemetry preamble, the LRU loader). No mod.ts exports it;
 * each package whose sources import one of its files gets a copy in its
 * bundles, as if the file were its own.
 */
const INTERNAL = join(ROOT, "internal");
/**
 * The command-line programs' folder: one folder per program (`cli/doctor/`),
 * whose files are bundled into that program's `bin/<name>.mjs` only. They
 * reach Kit through the modules' mod.ts (the package itself or a sibling,
 * by package name) and the files of internal/.
 */
const CLI = join(ROOT, "cli");

/**
 * Whether `path` is a file of the package in `moduleDir`, of internal/ or
 * of a program under cli/ (which only a program's bundle reaches).
 */
function isBundledSource(path: string, moduleDir: string): boolean {
  return path.startsWith(moduleDir + "/") || path.startsWith(INTERNAL + "/") ||
    path.startsWith(CLI + "/");
}

/** The program folder (`<root>/cli/<name>`) `file` belongs to, if any. */
function programFolderOf(file: string): string | undefined {
  const [top, name, ...rest] = relative(ROOT, file).split("/");
  return top === "cli" && rest.length > 0 ? join(CLI, name) : undefined;
}

/**
 * Where a bundled source file stands inside its package's source folder:
 * its place in the module, or `_internal/<file>` for a file of internal/.
 */
function packagePathOf(path: string, moduleDir: string): string {
  return path.startsWith(INTERNAL + "/")
    ? join("_internal", relative(INTERNAL, path))
    : relative(moduleDir, path);
}

interface DenoJson {
  version: string;
  license: string;
  imports: Record<string, string>;
}

/** What the build of one package found. */
export interface BuiltPackage {
  info: PackageInfo;
  dir: string;
  files: number;
  dependencies: Record<string, string>;
  /** The bytes of each bundle written, by path relative to `dir`. */
  bundles: Record<string, number>;
}

async function listSources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await listSources(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
      out.push(path);
    }
  }
  return out.sort();
}

/**
 * The runtime variants' npm files: scripts/_variants.ts, or with the
 * entries of the JSON file `KIT_NPM_VARIANTS` names in place of its own
 * (how the tests make a build with a variant missing a file).
 */
const VARIANT_TABLE: Readonly<Record<string, VariantFiles>> = {
  ...VARIANTS,
  ...(Deno.env.get("KIT_NPM_VARIANTS") === undefined ? {} : JSON.parse(
    readFileSync(Deno.env.get("KIT_NPM_VARIANTS")!, "utf8"),
  ) as Record<string, VariantFiles>),
};

/** Every runtime the npm packages are bundled for (scripts/_variants.ts). */
const NPM_RUNTIME_LIST: readonly NpmRuntime[] = ["node", "bun", "browser"];

/**
 * The npm files of the runtime variant `name`, for every runtime a package
 * is bundled for (as absolute paths). A runtime without a file is left out
 * here; the bundles then fail on it (`resolveForNpm`).
 */
function npmFilesOf(name: string, importer: string): string[] {
  const files = new Set<string>();
  for (const runtime of NPM_RUNTIME_LIST) {
    try {
      files.add(
        join(ROOT, variantFile(name, runtime, importer, VARIANT_TABLE)),
      );
    } catch {
      // Reported by the bundle of that runtime, with the importing file.
    }
  }
  return [...files];
}

/**
 * The files of internal/ that `sources` import, directly or through other
 * files of internal/, the npm files of every runtime variant included.
 */
function internalFilesOf(sources: readonly string[]): string[] {
  const found = new Set<string>();
  const pending = [...sources];
  while (pending.length > 0) {
    const file = pending.pop()!;
    const text = readFileSync(file, "utf8");
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      const targets = ref.fileName.startsWith("#")
        ? npmFilesOf(ref.fileName, relative(ROOT, file))
        : ref.fileName.startsWith(".")
        ? [resolve(dirname(file), ref.fileName)]
        : [];
      for (const target of targets) {
        if (!target.startsWith(INTERNAL + "/") || !existsSync(target)) continue;
        if (found.has(target)) continue;
        found.add(target);
        pending.push(target);
      }
    }
  }
  return [...found].sort();
}

/**
 * The files only Deno uses: what deno.json maps a runtime variant to where
 * no npm runtime takes the same file. They are not part of the npm build (no
 * declarations, no dependencies), so no `Deno` global ships to npm.
 */
function denoOnlyFiles(config: DenoJson): Set<string> {
  const npm = new Set<string>();
  for (const files of Object.values(VARIANT_TABLE)) {
    for (const file of Object.values(files)) npm.add(join(ROOT, file));
  }
  const only = new Set<string>();
  for (const [name, target] of Object.entries(config.imports)) {
    if (!name.startsWith("#")) continue;
    const path = join(ROOT, target);
    if (!npm.has(path)) only.add(path);
  }
  return only;
}

/**
 * Rewrites the module specifiers of one source file for npm, as its
 * declarations import them: files of the package stay relative (`.js`,
 * the Node.js file of a runtime variant), sibling modules become their
 * package names, bare imports their npm names. Records every package reached
 * in `dependencies` (with type-only imports, which declarations keep).
 *
 * @throws {Error} When an import reaches outside the module other than
 * through a sibling's mod.ts, or skips the imports map of deno.json.
 */
function rewriteSpecifiers(
  source: string,
  file: string,
  info: PackageInfo,
  config: DenoJson,
  version: string,
  dependencies: Record<string, string>,
): string {
  return replaceSpecifiers(source, (specifier) => {
    // Declarations name the Node.js files of runtime variants: a `#name`
    // specifier would need package.json `imports`, which TypeScript's
    // `moduleResolution: node` (node10) does not read.
    const target = resolveForNpm(specifier, file, info, config, "node");
    if (target.kind === "file") {
      const local = relative(dirname(file), target.path);
      return (local.startsWith(".") ? local : "./" + local).slice(0, -3) +
        ".js";
    }
    if (target.range !== undefined) {
      // Siblings accept any later compatible release of each other (a fix
      // published for one package alone reaches applications).
      dependencies[target.name] = target.range === "sibling"
        ? `^${version}`
        : target.range;
    }
    return target.specifier;
  });
}

/** Where an import of a source file leads on npm. */
type NpmTarget =
  /** A file of the package itself (a variant's file for the runtime). */
  | { kind: "file"; path: string }
  /**
   * An import left to the package's user: a Node built-in (`range`
   * undefined), a sibling Kit package (`range` "sibling") or an npm
   * dependency with its range.
   */
  | { kind: "external"; specifier: string; name: string; range?: string };

/**
 * Resolves one import of a source file for an npm runtime: a runtime
 * variant (`#name`) through scripts/_variants.ts, a relative import to the
 * file it names.
 *
 * @throws {Error} When the import reaches outside the module other than
 * through a sibling's mod.ts, is relative without `.ts`, skips the imports
 * map of deno.json, or names a runtime variant without a file for `runtime`.
 */
function resolveForNpm(
  specifier: string,
  file: string,
  info: PackageInfo,
  config: DenoJson,
  runtime: NpmRuntime,
): NpmTarget {
  const where = relative(ROOT, file);
  if (specifier.startsWith("#")) {
    const path = join(
      ROOT,
      variantFile(specifier, runtime, where, VARIANT_TABLE),
    );
    if (
      !path.startsWith(join(ROOT, info.folder) + "/") &&
      !path.startsWith(INTERNAL + "/")
    ) {
      throw new Error(
        `${where}: the runtime variant '${specifier}' names ${
          relative(ROOT, path)
        } for ${runtime}, outside ${info.folder}/ and internal/; a variant's files belong to the module that imports it`,
      );
    }
    return { kind: "file", path };
  }
  if (specifier.startsWith("./") || specifier.startsWith("../")) {
    const target = resolve(dirname(file), specifier);
    // A program under cli/<name>/ bundles its own files and internal/, and
    // reaches the modules through their mod.ts only, as an application does.
    const program = programFolderOf(file);
    const rel = relative(ROOT, target).split("/");
    if (
      program !== undefined && !target.startsWith(program + "/") &&
      !target.startsWith(INTERNAL + "/") &&
      !(rel.length === 2 && rel[1] === "mod.ts")
    ) {
      throw new Error(
        `${where}: '${specifier}' reaches into a module; a program under cli/ imports Kit through the modules' mod.ts (shared internals live in internal/)`,
      );
    }
    // A file of internal/ is bundled into every package that imports it.
    if (
      target.startsWith(join(ROOT, info.folder) + "/") ||
      target.startsWith(INTERNAL + "/") ||
      (program !== undefined && target.startsWith(program + "/"))
    ) {
      if (!specifier.endsWith(".ts")) {
        throw new Error(
          `${where}: relative import '${specifier}' must end in .ts`,
        );
      }
      return { kind: "file", path: target };
    }
    const sibling = rel.length === 2 && rel[1] === "mod.ts"
      ? packageOfFolder(rel[0])
      : undefined;
    if (sibling === undefined) {
      throw new Error(
        `${where}: '${specifier}' reaches outside the module; import other modules through their mod.ts (shared internals live in internal/)`,
      );
    }
    return {
      kind: "external",
      specifier: sibling.name,
      name: sibling.name,
      range: "sibling",
    };
  }
  // Node built-ins stay as they are.
  if (specifier.startsWith("node:")) {
    return { kind: "external", specifier, name: specifier };
  }
  if (
    specifier.startsWith("npm:") || specifier.startsWith("jsr:") ||
    specifier.includes("://")
  ) {
    throw new Error(
      `${where}: '${specifier}' must go through the imports map of deno.json`,
    );
  }
  const npm = resolveNpmImport(specifier, config.imports, where);
  return {
    kind: "external",
    specifier: npm.replacement,
    name: npm.name,
    range: npm.range,
  };
}

/**
 * The esbuild plugin that resolves every import the way `resolveForNpm` says
 * for one runtime, and counts the runtime variants whose file for it is not
 * the Node.js one (a bundle of its own is then worth making). Given
 * `record`, it also hands it each npm or sibling package the bundle imports.
 */
function kitResolver(
  info: PackageInfo,
  config: DenoJson,
  runtime: NpmRuntime,
  used: { twins: number },
  self = false,
  record?: (dependency: string, range: string) => void,
): esbuild.Plugin {
  return {
    name: "kit-npm",
    setup(build): void {
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") return undefined;
        // The program entry of a bin (esbuild's stdin) has no importer file.
        const importer = args.importer && args.importer !== "<stdin>"
          ? args.importer
          : join(args.resolveDir, "_bin_entry.ts");
        const target = resolveForNpm(
          args.path,
          importer,
          info,
          config,
          runtime,
        );
        if (target.kind === "external") {
          // A program under cli/ is no source of the package, so rewriting
          // the package's sources does not see its imports: they are
          // recorded here.
          if (
            record !== undefined && target.range !== undefined &&
            target.name !== info.name
          ) record(target.name, target.range);
          return { path: target.specifier, external: true };
        }
        // A program imports the package's public API by the package's own
        // name, so its bundle holds only what the program adds.
        if (self && target.path === join(ROOT, info.folder, "mod.ts")) {
          return { path: info.name, external: true };
        }
        // A subpath that imports another subpath's entry (the test kit
        // imports the database's) shares that entry's bundle too.
        if (self) {
          const entry = Object.entries(info.subpaths ?? {}).find((
            [, source],
          ) => target.path === join(ROOT, source));
          if (entry !== undefined && args.importer !== join(ROOT, entry[1])) {
            return { path: info.name + entry[0].slice(1), external: true };
          }
        }
        if (
          args.path.startsWith("#") && runtime !== "node" &&
          target.path !==
            join(ROOT, variantFile(args.path, "node", importer, VARIANT_TABLE))
        ) used.twins++;
        return { path: target.path };
      });
    },
  };
}

/**
 * The package README's reference part: the module's `docs/<folder>.md`
 * without its title (the package README has its own), with npm package
 * names in its import statements (the prose names both already). Links to
 * other files of the repository do not resolve on npm, so they keep only
 * their text; `#` links stay.
 */
export function packageReadmeBody(doc: string): string {
  const body = doc.replace(/^# .*\n/, "");
  const unlinked = body.replace(
    /\[([^\]]*)\]\(((?![a-z]+:|#)[^)\s]+)\)/g,
    "$1",
  );
  return unlinked.replace(
    /(["'])@vendor\/kit\/([a-z]+)(\/[a-z_]+)?\1/g,
    (whole, quote: string, folder: string, subpath = "") => {
      const name = packageOfFolder(folder)?.name;
      return name === undefined ? whole : quote + name + subpath + quote;
    },
  ).trim();
}

const DTS_OPTIONS: ts.CompilerOptions = {
  declaration: true,
  isolatedDeclarations: true,
  target: ts.ScriptTarget.ES2022,
};

/**
 * Removes the property twin `transpileDeclaration` (TypeScript 5.9) emits
 * beside a method with a computed name: `[Symbol.asyncDispose]():
 * Promise<void> { … }` comes out both as `[Symbol.asyncDispose]: () =>
 * Promise<void>;` and as the method, which a consumer compiling with
 * `skipLibCheck: false` (TypeScript's default) rejects as TS2300 "Duplicate
 * identifier". The method stays; the property and its comment go.
 */
function dropDuplicateMembers(dts: string): string {
  const file = ts.createSourceFile("x.d.ts", dts, ts.ScriptTarget.ES2022, true);
  const cuts: [number, number][] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node)) {
      const methods = new Set(
        node.members.filter(ts.isMethodDeclaration)
          .filter((m) => ts.isComputedPropertyName(m.name))
          .map((m) => m.name.getText(file)),
      );
      for (const member of node.members) {
        if (
          ts.isPropertyDeclaration(member) &&
          ts.isComputedPropertyName(member.name) &&
          methods.has(member.name.getText(file))
        ) {
          cuts.push([member.getFullStart(), member.getEnd()]);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let out = dts;
  for (const [start, end] of cuts.reverse()) {
    out = out.slice(0, start) + out.slice(end);
  }
  return out;
}

/**
 * Rewrites the JSR import paths that the JSDoc examples and module docs show
 * (`@vendor/kit/platform`) to the npm package names an npm user imports
 * (`@vendor/kit-platform`). The root `@vendor/kit` has no npm package of its
 * own: as an import specifier (`from "@vendor/kit"`) it becomes the package
 * being built, whose docs these are. Only declarations need it: the
 * JavaScript ships without comments.
 */
export function npmDocPaths(text: string, info: PackageInfo): string {
  let out = text;
  for (const [jsr, npm] of jsrAliases()) {
    out = out.replace(new RegExp(`${jsr}(?![\\w/-])`, "g"), npm);
  }
  return out
    .replace(
      /@vendor\/kit\/([a-z]+)(\/[a-z_]+)?(?![\w/-])/g,
      (whole, folder: string, subpath = "") => {
        const name = packageOfFolder(folder)?.name;
        return name === undefined ? whole : name + subpath;
      },
    )
    .replace(/(["'])@vendor\/kit\1/g, `$1${info.name}$1`);
}

/** Comments a bundler or a license needs, which the bundles keep. */
const KEPT_COMMENT =
  /[@#]__(PURE|NO_SIDE_EFFECTS)__|webpackIgnore|@vite-ignore|@license|@preserve/;

/**
 * The source text with its comments turned into spaces (newlines stay), so
 * every other character keeps its line and column: the bundles then carry
 * no documentation (the .d.ts files do), while their source maps still
 * point into the original text, which `packageSourceMap` puts back.
 */
function blankComments(text: string, fileName: string): string {
  const file = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.TS,
  );
  const ranges = new Map<number, number>();
  const visit = (node: ts.Node): void => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      ranges.set(range.pos, range.end);
    }
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  let out = "";
  let at = 0;
  for (const [start, end] of [...ranges].sort(([a], [b]) => a - b)) {
    const comment = text.slice(start, end);
    if (start < at || KEPT_COMMENT.test(comment)) continue;
    out += text.slice(at, start) + comment.replace(/[^\r\n]/g, " ");
    at = end;
  }
  return out + text.slice(at);
}

/**
 * The esbuild plugin that loads the TypeScript files of a bundle through
 * `blankComments`.
 */
const withoutComments: esbuild.Plugin = {
  name: "kit-without-comments",
  setup(build): void {
    build.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: blankComments(await readFile(args.path, "utf8"), args.path),
      loader: "ts",
    }));
  },
};

/** What every bundle shares. */
const BUNDLE_OPTIONS: esbuild.BuildOptions = {
  bundle: true,
  write: false,
  target: "es2022",
  charset: "utf8",
  // Not minified: a line of a bundle is a line of code, so a trace without
  // source maps names a line a person can read (Node.js prints the line an
  // uncaught error was thrown on, which for a minified bundle is the whole
  // bundle), and the names stay those of the sources.
  // Linked maps carry the sources' text and name them relative to
  // themselves inside the package (`packageSourceMap`): with
  // `--enable-source-maps` a trace names Kit's TypeScript file and line, and
  // a debugger shows that file.
  sourcemap: "linked",
  sourcesContent: true,
  // Documentation lives in the .d.ts files (editors show it from there); the
  // JavaScript ships without comments (`withoutComments`) to keep every
  // package small.
  legalComments: "none",
  logLevel: "warning",
};

/**
 * The folder of a package that its source maps name the TypeScript files
 * in (`src/locator/service_locator.ts`). The files themselves do not ship: each map
 * carries their text (`sourcesContent`).
 */
const MAP_SOURCES_FOLDER = "src";

/**
 * Rewrites the `sources` of a source map esbuild wrote for a bundle of
 * `moduleDir` (relative to the map, leading out of the package into the
 * checkout) to paths relative to the map inside the package
 * (`../src/locator/service_locator.ts`), so they resolve wherever the package is
 * installed.
 *
 * @throws {Error} When a source is not a file of `moduleDir`.
 */
function packageSourceMap(
  text: string,
  mapPath: string,
  moduleDir: string,
  dir: string,
): string {
  const map = JSON.parse(text) as {
    sources: string[];
    sourcesContent?: (string | null)[];
    sourceRoot?: string;
  };
  map.sources = map.sources.map((source, index) => {
    const path = resolve(dirname(mapPath), source);
    if (!isBundledSource(path, moduleDir)) {
      throw new Error(
        `${
          relative(ROOT, mapPath)
        } names ${source}, which is not a source file of ${
          relative(ROOT, moduleDir)
        }/`,
      );
    }
    // The text as written, comments included (the bundle was made from a
    // copy with its comments blanked out, line and column for line and
    // column the same).
    if (map.sourcesContent !== undefined) {
      map.sourcesContent[index] = readFileSync(path, "utf8");
    }
    return relative(
      dirname(mapPath),
      join(dir, MAP_SOURCES_FOLDER, packagePathOf(path, moduleDir)),
    );
  });
  delete map.sourceRoot;
  return JSON.stringify(map);
}

/**
 * Bundles one command-line program of a package: `bin/<name>.mjs`, an
 * executable Node.js script that runs the `main(args)` of `path` and exits
 * with what it returns.
 *
 * @returns The bundle's size in bytes.
 */
async function bundleProgram(
  moduleDir: string,
  dir: string,
  name: string,
  path: string,
  plugins?: esbuild.Plugin[],
): Promise<number> {
  const outfile = join(dir, "bin", `${name}.mjs`);
  const size = (await bundle(moduleDir, dir, {
    stdin: {
      contents: [
        `import process from "node:process";`,
        `import { main } from "./${relative(dirname(path), path)}";`,
        `process.exitCode = await main(process.argv.slice(2));`,
        "",
      ].join("\n"),
      resolveDir: dirname(path),
      sourcefile: `${name}.ts`,
      loader: "ts",
    },
    outfile,
    format: "esm",
    platform: "node",
    banner: { js: "#!/usr/bin/env node" },
    // Programs run without --enable-source-maps as a rule; no map.
    sourcemap: false,
    ...(plugins === undefined ? {} : { plugins }),
  }))!;
  await chmod(outfile, 0o755);
  return size;
}

/**
 * Bundles one entry with esbuild and writes the bundle and its source map
 * (whose sources `packageSourceMap` places inside the package `dir`).
 *
 * @returns The bundle's size in bytes, or undefined when `keep` said no.
 * @throws {Error} When a file from outside `moduleDir` would be bundled in, or
 * esbuild fails (an import the resolver refuses, a
 * syntax error); esbuild has printed the details.
 */
async function bundle(
  moduleDir: string,
  dir: string,
  options: esbuild.BuildOptions & { outfile: string },
  keep: () => boolean = () => true,
): Promise<number | undefined> {
  const result = await esbuild.build({
    ...BUNDLE_OPTIONS,
    // The comment esbuild writes where each source file starts names it
    // from here: `// locator/service_locator.ts`, as in the package's source maps.
    absWorkingDir: moduleDir,
    ...options,
    plugins: [...(options.plugins ?? []), withoutComments],
    metafile: true,
  });
  // Only the package's own source files go into a bundle: a sibling package
  // or an npm dependency copied in would ship twice.
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = resolve(moduleDir, input);
    if (
      input !== options.stdin?.sourcefile &&
      !isBundledSource(path, moduleDir)
    ) {
      throw new Error(
        `${
          relative(ROOT, options.outfile)
        } would hold ${input}, which is not a source file of ${
          relative(ROOT, moduleDir)
        }/ or internal/; import it by package name`,
      );
    }
  }
  if (!keep()) return undefined;
  let size = 0;
  for (const output of result.outputFiles ?? []) {
    await mkdir(dirname(output.path), { recursive: true });
    await writeFile(
      output.path,
      output.path.endsWith(".map")
        ? packageSourceMap(output.text, output.path, moduleDir, dir)
        : options.format === "cjs"
        ? requireOnce(output.text)
        : output.contents,
    );
    if (output.path === options.outfile) size = output.contents.byteLength;
  }
  return size;
}

/**
 * A CommonJS bundle with each package required once: esbuild writes a
 * `var import_x = require("pkg");` for every source file that imports
 * `pkg`, and Node.js resolves the name again on each call unless that
 * same bundle was the first to load the package (its cache of names per
 * parent is filled only then): a resolution through the package's
 * `exports` map, up to half a millisecond, a dozen times per bundle at
 * load. A later top-level line with the same `require(…)` expression reads
 * the first one's variable instead (top-level lines run in order; lines of
 * a lazily run wrapper are indented and left as they are). Every line stays
 * a line, so the source map still holds.
 */
function requireOnce(code: string): string {
  const first = new Map<string, string>();
  return code.replace(
    /^var ([\w$]+) = (require\("[^"]+"\)|__toESM\(require\("[^"]+"\)(?:, 1)?\));$/gm,
    (line, name: string, expression: string) => {
      const earlier = first.get(expression);
      if (earlier === undefined) {
        first.set(expression, name);
        return line;
      }
      return `var ${name} = ${earlier};`;
    },
  );
}

/**
 * The package.json fields that describe a package: description, keywords,
 * author (the LICENSE's copyright holder), license (deno.json's), and the
 * links to the repository when `KIT_NPM_REPOSITORY` names it.
 */
function metadata(
  info: PackageInfo,
  config: DenoJson,
): Record<string, unknown> {
  return {
    description: info.description,
    keywords: info.keywords,
    author: authorOf(readFileSync(join(ROOT, "LICENSE"), "utf8")),
    license: config.license,
    ...repositoryFields(info.folder),
  };
}

async function buildPackage(
  info: PackageInfo,
  config: DenoJson,
): Promise<BuiltPackage> {
  const version = config.version;
  const dir = join(OUT, info.dir);
  await rm(dir, { recursive: true, force: true });
  const dependencies: Record<string, string> = {};
  const moduleDir = join(ROOT, info.folder);
  const denoOnly = denoOnlyFiles(config);
  const sources = (await listSources(moduleDir)).filter((file) =>
    !denoOnly.has(file)
  );
  const declarations = new Map<string, string>();
  // Files whose declarations need explicit types they lack; a problem only
  // for the files whose declarations ship (below).
  const problems = new Map<string, string>();
  for (const file of sources) {
    const rel = relative(moduleDir, file);
    // Declarations name the server files: types never depend on the
    // browser choice. Rewriting every file also records the dependencies,
    // type-only imports included (declarations keep those).
    const direct = rewriteSpecifiers(
      await readFile(file, "utf8"),
      file,
      info,
      config,
      version,
      dependencies,
    );
    const dts = ts.transpileDeclaration(direct, {
      compilerOptions: DTS_OPTIONS,
      fileName: rel,
      reportDiagnostics: true,
    });
    declarations.set(
      rel.slice(0, -3),
      npmDocPaths(dropDuplicateMembers(dts.outputText), info),
    );
    if (dts.diagnostics && dts.diagnostics.length > 0) {
      problems.set(
        rel.slice(0, -3),
        ts.formatDiagnostics(dts.diagnostics, {
          getCanonicalFileName: (f) => f,
          getCurrentDirectory: () => ROOT,
          getNewLine: () => "\n",
        }),
      );
    }
  }
  // The files of internal/ the package's sources reach: bundled with them,
  // so their imports are the package's dependencies too.
  for (const file of internalFilesOf(sources)) {
    rewriteSpecifiers(
      await readFile(file, "utf8"),
      file,
      info,
      config,
      version,
      dependencies,
    );
  }
  // Declarations: for every public file, and for the internal (`_`) files
  // the public declarations reach. The other internal files are unreachable
  // through `exports` and no public type names them.
  const declared = new Set<string>();
  const reach = [...declarations.keys()].filter((base) =>
    !base.split("/").at(-1)!.startsWith("_")
  );
  while (reach.length > 0) {
    const base = reach.pop()!;
    if (declared.has(base)) continue;
    declared.add(base);
    if (problems.has(base)) {
      throw new Error(
        `${info.folder}/${base}.ts: declarations need explicit types:\n${
          problems.get(base)
        }`,
      );
    }
    const text = declarations.get(base)!;
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      const target = join(dirname(base), ref.fileName).replace(/\.js$/, "");
      // A file of internal/ is bundled, but its declarations do not ship:
      // a public signature naming one of its types would dangle.
      if (target.startsWith("../")) {
        throw new Error(
          `${info.folder}/${base}.ts: its declarations name ${
            target.slice(3)
          }.ts; a public signature must not use a type of internal/ (declare the type in the module, or export it from core)`,
        );
      }
      if (declarations.has(target)) reach.push(target);
    }
  }
  for (const base of declared) {
    for (const folder of ["esm", "script"]) {
      const target = join(dir, folder, base + ".d.ts");
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, declarations.get(base)!);
    }
  }
  await writeFile(
    join(dir, "script", "package.json"),
    JSON.stringify({ type: "commonjs" }, null, 2) + "\n",
  );

  // The bundles: ES module and CommonJS for servers, and an ES module with
  // the browser files of runtime variants when the package reaches any.
  const entry = join(moduleDir, "mod.ts");
  const bundles: Record<string, number> = {};
  const server = { twins: 0 };
  bundles["esm/mod.js"] = (await bundle(moduleDir, dir, {
    entryPoints: [entry],
    outfile: join(dir, "esm", "mod.js"),
    format: "esm",
    platform: "node",
    plugins: [kitResolver(info, config, "node", server)],
  }))!;
  bundles["script/mod.js"] = (await bundle(moduleDir, dir, {
    entryPoints: [entry],
    outfile: join(dir, "script", "mod.js"),
    format: "cjs",
    platform: "node",
    // `import.meta` is empty in CommonJS: the Node.js adapters that load a
    // dependency on first use pass it and `__filename` to internal/'s
    // requireDependency, which uses `__filename` when `import.meta.resolve`
    // is absent (internal/_require_dependency_node.ts).
    logOverride: { "empty-import-meta": "silent" },
    plugins: [kitResolver(info, config, "node", server)],
  }))!;
  const web = { twins: 0 };
  const browserSize = await bundle(moduleDir, dir, {
    entryPoints: [entry],
    outfile: join(dir, "esm", "mod_browser.js"),
    format: "esm",
    platform: "browser",
    plugins: [kitResolver(info, config, "browser", web)],
  }, () => web.twins > 0);
  if (browserSize !== undefined) bundles["esm/mod_browser.js"] = browserSize;
  // Bun matches `node` after `bun`: it gets bundles of its own only where a
  // runtime variant names a Bun file apart from the Node.js one.
  const bun = { twins: 0 };
  for (
    const [folder, format] of [["esm", "esm"], ["script", "cjs"]] as const
  ) {
    const size = await bundle(moduleDir, dir, {
      entryPoints: [entry],
      outfile: join(dir, folder, "mod_bun.js"),
      format,
      platform: "node",
      ...(format === "cjs"
        ? { logOverride: { "empty-import-meta": "silent" } }
        : {}),
      plugins: [kitResolver(info, config, "bun", bun)],
    }, () => bun.twins > 0);
    if (size !== undefined) bundles[`${folder}/mod_bun.js`] = size;
  }
  const bunBundles = bun.twins > 0;

  // Subpath entries (`@vendor/kit-platform/hono`): server bundles of their
  // own, which the main entry never imports.
  const subpathExports: Record<string, unknown> = {};
  const stubs: string[] = [];
  for (const [subpath, source] of Object.entries(info.subpaths ?? {})) {
    const path = join(ROOT, source);
    if (!path.startsWith(moduleDir + "/") || !existsSync(path)) {
      throw new Error(
        `${info.name}: the subpath '${subpath}' needs ${source}, which ${
          existsSync(path) ? "is outside the module" : "does not exist"
        }; create it or drop it from subpaths in scripts/_packages.ts`,
      );
    }
    const base = relative(moduleDir, path).slice(0, -3);
    for (
      const [folder, format] of [["esm", "esm"], ["script", "cjs"]] as const
    ) {
      bundles[`${folder}/${base}.js`] = (await bundle(moduleDir, dir, {
        entryPoints: [path],
        outfile: join(dir, folder, `${base}.js`),
        format,
        platform: "node",
        ...(format === "cjs"
          ? { logOverride: { "empty-import-meta": "silent" } }
          : {}),
        // The package's public API by its own name: a subpath shares the
        // main entry's classes and state (the test kit's Application)
        // rather than bundling a copy.
        plugins: [kitResolver(info, config, "node", { twins: 0 }, true)],
      }))!;
    }
    // A subpath has server bundles only: a runtime variant it reaches must
    // give Bun the Node.js file.
    const subpathBun = { twins: 0 };
    await bundle(moduleDir, dir, {
      entryPoints: [path],
      outfile: join(dir, "esm", `${base}_bun.js`),
      format: "esm",
      platform: "node",
      plugins: [kitResolver(info, config, "bun", subpathBun, true)],
    }, () => false);
    if (subpathBun.twins > 0) {
      throw new Error(
        `${info.name}: the subpath '${subpath}' reaches a runtime variant with a Bun file of its own, but subpaths are bundled for Node.js and Bun alike; give Bun the Node.js file in scripts/_variants.ts or add Bun bundles for subpaths`,
      );
    }
    subpathExports[subpath] = {
      import: { types: `./esm/${base}.d.ts`, default: `./esm/${base}.js` },
      require: {
        types: `./script/${base}.d.ts`,
        default: `./script/${base}.js`,
      },
    };
    // Resolvers that ignore `exports` (TypeScript's `moduleResolution:
    // node`, older bundlers) find the subpath as a folder with its own
    // package.json.
    const stub = join(dir, subpath.slice(2));
    await mkdir(stub, { recursive: true });
    await writeFile(
      join(stub, "package.json"),
      JSON.stringify(
        {
          main: `../script/${base}.js`,
          module: `../esm/${base}.js`,
          types: `../script/${base}.d.ts`,
        },
        null,
        2,
      ) + "\n",
    );
    stubs.push(subpath.slice(2) + "/");
  }
  // What only a subpath needs is an optional peer, not a dependency.
  const peers: Record<string, string> = {};
  for (const name of info.optionalPeers ?? []) {
    peers[name] = dependencies[name] ??
      resolveNpmImport(name, config.imports, "scripts/_packages.ts").range;
    delete dependencies[name];
  }

  // Command-line programs: a Node.js bundle per program that runs its main.
  const bins: Record<string, string> = {};
  for (const [name, source] of Object.entries(info.bins ?? {})) {
    const path = join(ROOT, source);
    if (
      !(path.startsWith(moduleDir + "/") ||
        programFolderOf(path) !== undefined) ||
      !existsSync(path)
    ) {
      throw new Error(
        `${info.name}: the program '${name}' needs ${source}, which ${
          existsSync(path) ? "is outside the module" : "does not exist"
        }; create it (exporting main(args: string[]): Promise<number>) or drop it from bins in scripts/_packages.ts`,
      );
    }
    bundles[`bin/${name}.mjs`] = await bundleProgram(
      moduleDir,
      dir,
      name,
      path,
      [
        kitResolver(
          info,
          config,
          "node",
          { twins: 0 },
          true,
          (dependency, range) => {
            if (!(dependency in peers) && !(dependency in dependencies)) {
              dependencies[dependency] = range === "sibling"
                ? `^${version}`
                : range;
            }
          },
        ),
      ],
    );
    // Without `./`: npm drops a `./bin/…` entry on publish.
    bins[name] = `bin/${name}.mjs`;
  }

  const sortedDependencies = Object.fromEntries(
    Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)),
  );
  const registry = Deno.env.get("KIT_NPM_REGISTRY");
  const manifest = {
    name: info.name,
    version,
    ...metadata(info, config),
    type: "module",
    main: "./script/mod.js",
    module: "./esm/mod.js",
    types: "./script/mod.d.ts",
    exports: {
      ".": {
        // Web bundlers take the browser bundle, imported or required alike.
        ...(browserSize !== undefined
          ? {
            browser: {
              types: "./esm/mod.d.ts",
              default: "./esm/mod_browser.js",
            },
          }
          : {}),
        ...(bunBundles
          ? {
            bun: {
              import: { types: "./esm/mod.d.ts", default: "./esm/mod_bun.js" },
              require: {
                types: "./script/mod.d.ts",
                default: "./script/mod_bun.js",
              },
            },
          }
          : {}),
        import: { types: "./esm/mod.d.ts", default: "./esm/mod.js" },
        require: { types: "./script/mod.d.ts", default: "./script/mod.js" },
      },
      ...subpathExports,
      "./package.json": "./package.json",
    },
    ...(Object.keys(bins).length > 0 ? { bin: bins } : {}),
    engines: { node: ">=20.19" },
    sideEffects: false,
    files: [
      "esm/",
      "script/",
      ...(Object.keys(bins).length > 0 ? ["bin/"] : []),
      ...stubs,
      "README.md",
      "LICENSE",
    ],
    dependencies: sortedDependencies,
    ...(Object.keys(peers).length > 0
      ? {
        peerDependencies: peers,
        peerDependenciesMeta: Object.fromEntries(
          Object.keys(peers).map((name) => [name, { optional: true }]),
        ),
      }
      : {}),
    publishConfig: registry
      ? { registry, access: "restricted" }
      : { access: "restricted" },
  };
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify(manifest, null, 2) + "\n",
  );

  const doc = await readFile(join(ROOT, "docs", `${info.folder}.md`), "utf8");
  const section = packageReadmeBody(doc);
  await writeFile(
    join(dir, "README.md"),
    `# ${info.name}\n\n${info.description}\n\nPart of Kit (\`@vendor/kit\` on JSR); ` +
      `see the main README for the whole framework.\n\n` +
      "```sh\nnpm install " + info.name + "\n```\n\n" +
      (section ? section + "\n" : ""),
  );
  await copyFile(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
  return {
    info,
    dir,
    files: sources.length,
    dependencies: sortedDependencies,
    bundles,
  };
}

/**
 * Builds the generator's package, `npm/create-kit`: `bin/create-kit.mjs`
 * (a Node.js bundle of `create/` that runs `main` of its npm entry), its
 * README (`create/README.md`) and the LICENSE. Its program reads the
 * version from the package.json, so a project it writes depends on Kit at
 * `^` that version.
 *
 * @param config deno.json.
 * @returns What was built.
 * @throws {Error} When the bundle would hold a file from outside `create/`
 * or esbuild fails.
 */
export async function buildCreatePackage(
  config: DenoJson,
): Promise<BuiltPackage> {
  const info = CREATE_PACKAGE;
  const dir = join(OUT, info.dir);
  await rm(dir, { recursive: true, force: true });
  const moduleDir = join(ROOT, info.folder);
  const bundles: Record<string, number> = {};
  const bins: Record<string, string> = {};
  for (const [name, source] of Object.entries(info.bins ?? {})) {
    const path = join(ROOT, source);
    bundles[`bin/${name}.mjs`] = await bundleProgram(
      moduleDir,
      dir,
      name,
      path,
    );
    // Without `./`: npm drops a `./bin/…` entry on publish.
    bins[name] = `bin/${name}.mjs`;
  }
  const registry = Deno.env.get("KIT_NPM_REGISTRY");
  const manifest = {
    name: info.name,
    version: config.version,
    ...metadata(info, config),
    type: "module",
    bin: bins,
    engines: { node: ">=20.19" },
    files: ["bin/", "README.md", "LICENSE"],
    publishConfig: registry
      ? { registry, access: "restricted" }
      : { access: "restricted" },
  };
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify(manifest, null, 2) + "\n",
  );
  await copyFile(join(moduleDir, "README.md"), join(dir, "README.md"));
  await copyFile(join(ROOT, "LICENSE"), join(dir, "LICENSE"));
  return { info, dir, files: 0, dependencies: {}, bundles };
}

/**
 * Builds every package and returns what was built.
 *
 * @returns One entry per package, in dependency order, then the generator's.
 */
export async function buildAll(): Promise<BuiltPackage[]> {
  const config = JSON.parse(
    await readFile(join(ROOT, "deno.json"), "utf8"),
  ) as DenoJson;
  // Imports between folders keep the direction scripts/_packages.ts declares.
  await assertModuleGraph(ROOT);
  checkVariants(
    config.imports,
    (file) => existsSync(join(ROOT, file)),
    VARIANT_TABLE,
  );
  await mkdir(OUT, { recursive: true });
  // The stamp says what a complete build was made from: the old one goes
  // first (a build that stops half-way leaves none), and the sources are
  // read before building (a file changed meanwhile makes it not match).
  await rm(join(OUT, STAMP_FILE), { force: true });
  const stamp = await sourcesStamp(ROOT, OUT);
  const built: BuiltPackage[] = [];
  try {
    for (const info of PACKAGES) {
      built.push(await buildPackage(info, config));
    }
    built.push(await buildCreatePackage(config));
  } finally {
    // esbuild's service process would keep the caller alive.
    await esbuild.stop();
  }
  await writeFile(
    join(OUT, STAMP_FILE),
    JSON.stringify(stamp, null, 2) + "\n",
  );
  return built;
}

if (import.meta.main) {
  const started = performance.now();
  const built = await buildAll();
  for (const pkg of built) {
    const sizes = Object.entries(pkg.bundles).map(([path, bytes]) =>
      `${path} ${(bytes / 1000).toFixed(1)} kB`
    ).join(", ");
    console.log(
      `${pkg.info.name}: ${pkg.files} source files → ${sizes}; dependencies: ${
        Object.keys(pkg.dependencies).join(", ") || "none"
      }`,
    );
  }
  console.log(
    `built ${built.length} packages in ${
      Math.round(performance.now() - started)
    } ms into ${relative(ROOT, OUT) || "."}/`,
  );
}
