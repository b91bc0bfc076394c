/**
 * Builds the eight npm packages of spec §1 from the Deno sources, doing what
 * dnt did, with the pinned TypeScript compiler:
 *
 * - `npm/<package>/esm/` (ES modules), `npm/<package>/script/` (CommonJS) and
 *   a `.d.ts` beside every output file, one output file per source file;
 * - imports between Kit's folders (`../core/mod.ts`) become dependencies on the
 *   sibling package at the same version; bare imports go through the
 *   `imports` map of deno.json and become `dependencies` with its ranges;
 * - `package.json` with `main`/`types` for `moduleResolution: node` and
 *   `exports` with `import`/`require`/`types` conditions, the package's own
 *   README (the module's `docs/<folder>.md`) and the LICENSE;
 * - the JSR import paths in the declarations' doc comments
 *   (`@vendor/kit/platform`) become npm package names
 *   (`@vendor/kit-platform`).
 *
 * Every file is transpiled on its own (`transpileModule` and
 * `transpileDeclaration`): the sources have explicit types everywhere (no
 * slow types, which `deno publish` enforces), so declarations need no whole
 * program. Type-checking of the result happens in `scripts/check_packages.ts`
 * and in the consumer check.
 *
 * Runtime-specific code follows one convention: a module imports
 * `./_x_deno.ts`, and where `./_x_node.ts` stands beside it the npm output
 * imports that one instead and leaves the Deno flavour out, so no `Deno`
 * global ships to npm (`scripts/check_packages.ts` enforces it). Where a
 * `./_x_browser.ts` stands beside `./_x.ts` (or `./_x_deno.ts`), the import
 * becomes the package-internal specifier `#_x`, which the package.json
 * `imports` field maps, under the `browser` condition, to the browser twin
 * and otherwise to the server file (ES module or CommonJS alike): bundlers for
 * the web then never see a `node:` module or a Node-only package such as
 * node-redis or dotenv, and the package holds one copy of everything else.
 *
 * Environment: `KIT_NPM_REGISTRY` sets `publishConfig.registry` (the private
 * registry of spec §1 rule 3).
 *
 * Run: `deno task build:npm`.
 *
 * @module
 */
import ts from "typescript";
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import {
  copyFile,
  mkdir,
  readdir,
  readFile,
  rm,
  writeFile,
} from "node:fs/promises";
import { type PackageInfo, packageOfFolder, PACKAGES } from "./_packages.ts";
import { replaceSpecifiers, resolveNpmImport } from "./_specifiers.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const OUT = join(ROOT, "npm");

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

/** Which runtime a file is chosen for: servers, or the `browser` condition. */
type Flavour = "node" | "browser";

/**
 * The file an npm flavour uses for a module file. Runtime-specific files:
 * `_x_deno.ts` is the Deno/JSR flavour and `_x_node.ts` beside it replaces it
 * on npm; `_x_browser.ts` beside `_x.ts` (or `_x_deno.ts`) replaces it under
 * the `browser` condition.
 */
function variantOf(target: string, flavour: Flavour): string {
  const base = target.endsWith("_deno.ts")
    ? target.slice(0, -"_deno.ts".length)
    : target.slice(0, -".ts".length);
  if (flavour === "browser" && existsSync(base + "_browser.ts")) {
    return base + "_browser.ts";
  }
  if (target.endsWith("_deno.ts") && existsSync(base + "_node.ts")) {
    return base + "_node.ts";
  }
  return target;
}

/**
 * A package-internal `#` import: the output file (relative to esm/ or
 * script/) under the `browser` condition, and otherwise.
 */
interface SubpathImport {
  browser: string;
  server: string;
}

/** Rewrites the module specifiers of one source file for npm. */
function rewriteSpecifiers(
  source: string,
  file: string,
  info: PackageInfo,
  config: DenoJson,
  version: string,
  dependencies: Record<string, string>,
  subpathImports: Record<string, SubpathImport> | undefined,
): string {
  const where = relative(ROOT, file);
  return replaceSpecifiers(source, (specifier) => {
    if (specifier.startsWith("./") || specifier.startsWith("../")) {
      const target = resolve(dirname(file), specifier);
      if (target.startsWith(join(ROOT, info.folder) + "/")) {
        if (!specifier.endsWith(".ts")) {
          throw new Error(
            `${where}: relative import '${specifier}' must end in .ts`,
          );
        }
        const chosen = variantOf(target, "node");
        const twin = variantOf(target, "browser");
        // (A twin importing its server file, for a type, imports it as is.)
        if (subpathImports !== undefined && twin !== chosen && twin !== file) {
          // Server file or browser twin, chosen by the importer's conditions.
          const moduleDir = join(ROOT, info.folder);
          const server = relative(moduleDir, chosen).slice(0, -3) + ".js";
          const browser = relative(moduleDir, twin).slice(0, -3) + ".js";
          const name = "#" +
            relative(moduleDir, chosen).slice(0, -3).replace(/_node$/, "");
          subpathImports[name] = { browser, server };
          return name;
        }
        const local = relative(dirname(file), chosen);
        return (local.startsWith(".") ? local : "./" + local).slice(0, -3) +
          ".js";
      }
      const rel = relative(ROOT, target).split("/");
      const sibling = rel.length === 2 && rel[1] === "mod.ts"
        ? packageOfFolder(rel[0])
        : undefined;
      if (sibling === undefined) {
        throw new Error(
          `${where}: '${specifier}' reaches outside the module; import other modules through their mod.ts`,
        );
      }
      dependencies[sibling.name] = version;
      return sibling.name;
    }
    // Node built-ins stay as they are.
    if (specifier.startsWith("node:")) return specifier;
    if (
      specifier.startsWith("npm:") || specifier.startsWith("jsr:") ||
      specifier.includes("://")
    ) {
      throw new Error(
        `${where}: '${specifier}' must go through the imports map of deno.json`,
      );
    }
    const npm = resolveNpmImport(specifier, config.imports, where);
    dependencies[npm.name] = npm.range;
    return npm.replacement;
  });
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
    /(["'])@vendor\/kit\/([a-z]+)\1/g,
    (whole, quote: string, folder: string) => {
      const name = packageOfFolder(folder)?.name;
      return name === undefined ? whole : quote + name + quote;
    },
  ).trim();
}

const ESM_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.ES2022,
  target: ts.ScriptTarget.ES2022,
  useDefineForClassFields: true,
  // Documentation lives in the .d.ts files (editors show it from there); the
  // JavaScript ships without comments to keep every package small.
  removeComments: true,
};
const CJS_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.CommonJS,
  removeComments: true,
  target: ts.ScriptTarget.ES2022,
  useDefineForClassFields: true,
  esModuleInterop: true,
};
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
  return text
    .replace(
      /@vendor\/kit\/([a-z]+)(?![\w/-])/g,
      (whole, folder: string) => packageOfFolder(folder)?.name ?? whole,
    )
    .replace(/(["'])@vendor\/kit\1/g, `$1${info.name}$1`);
}

async function buildPackage(
  info: PackageInfo,
  config: DenoJson,
): Promise<BuiltPackage> {
  const version = config.version;
  const dir = join(OUT, info.dir);
  await rm(dir, { recursive: true, force: true });
  const dependencies: Record<string, string> = {};
  const subpathImports: Record<string, SubpathImport> = {};
  const sources = await listSources(join(ROOT, info.folder));
  const declarations = new Map<string, string>();
  for (const file of sources) {
    // A Deno flavour with a Node twin is not part of the npm build.
    if (variantOf(file, "node") !== file) continue;
    const rel = relative(join(ROOT, info.folder), file);
    const text = await readFile(file, "utf8");
    const rewrite = (subpaths: typeof subpathImports | undefined): string =>
      rewriteSpecifiers(
        text,
        file,
        info,
        config,
        version,
        dependencies,
        subpaths,
      );
    const source = rewrite(subpathImports);
    const base = rel.slice(0, -3);
    const esm = ts.transpileModule(source, {
      compilerOptions: ESM_OPTIONS,
      fileName: rel,
    });
    // CommonJS requires the server files directly: a `#` import would
    // resolve through script/package.json, and the `imports` field of a
    // nested package.json is not one to rely on. Browser bundlers get the
    // ES build (the `browser` export condition), whose `#` imports choose.
    const direct = rewrite(undefined);
    const cjs = ts.transpileModule(direct, {
      compilerOptions: CJS_OPTIONS,
      fileName: rel,
    });
    // Declarations name the server files directly too: types never depend
    // on the browser choice, and script/ has no `#` imports to resolve.
    const dts = ts.transpileDeclaration(direct, {
      compilerOptions: DTS_OPTIONS,
      fileName: rel,
      reportDiagnostics: true,
    });
    if (dts.diagnostics && dts.diagnostics.length > 0) {
      const text = ts.formatDiagnostics(dts.diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => "\n",
      });
      throw new Error(
        `${info.folder}/${rel}: declarations need explicit types:\n${text}`,
      );
    }
    const outputs = [["esm", esm.outputText]];
    // CommonJS never reaches a browser twin (it requires the server files).
    if (!file.endsWith("_browser.ts")) outputs.push(["script", cjs.outputText]);
    for (const [folder, code] of outputs) {
      const target = join(dir, folder, base + ".js");
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, code);
    }
    declarations.set(
      base,
      npmDocPaths(dropDuplicateMembers(dts.outputText), info),
    );
  }
  // Declarations: for every public file, and for the internal (`_`) files
  // the public declarations reach. The other internal files are unreachable
  // through `exports` and no public type names them, so they ship JavaScript
  // only (declarations for them would only add weight to the package).
  const declared = new Set<string>();
  const reach = [...declarations.keys()].filter((base) =>
    !base.split("/").at(-1)!.startsWith("_")
  );
  while (reach.length > 0) {
    const base = reach.pop()!;
    if (declared.has(base)) continue;
    declared.add(base);
    const text = declarations.get(base)!;
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      const target = join(dirname(base), ref.fileName).replace(/\.js$/, "");
      if (declarations.has(target)) reach.push(target);
    }
  }
  for (const base of declared) {
    for (const folder of ["esm", "script"]) {
      await writeFile(
        join(dir, folder, base + ".d.ts"),
        declarations.get(base)!,
      );
    }
  }
  await writeFile(
    join(dir, "script", "package.json"),
    JSON.stringify({ type: "commonjs" }, null, 2) + "\n",
  );
  // The ES build's `#` imports: the browser twin under the `browser`
  // condition, the server file otherwise.
  const hasSubpathImports = Object.keys(subpathImports).length > 0;
  const imports = Object.fromEntries(
    Object.entries(subpathImports).sort(([a], [b]) => a.localeCompare(b))
      .map(([name, { browser, server }]) => [name, {
        browser: `./esm/${browser}`,
        default: `./esm/${server}`,
      }]),
  );

  const sortedDependencies = Object.fromEntries(
    Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)),
  );
  const registry = Deno.env.get("KIT_NPM_REGISTRY");
  const manifest = {
    name: info.name,
    version,
    description: info.description,
    license: config.license,
    repository: {
      type: "git",
      url: "git+https://example.invalid/vendor/kit.git",
      directory: info.folder,
    },
    type: "module",
    main: "./script/mod.js",
    module: "./esm/mod.js",
    types: "./script/mod.d.ts",
    exports: {
      ".": {
        // Web bundlers take the ES build, imported or required alike.
        ...(hasSubpathImports
          ? { browser: { types: "./esm/mod.d.ts", default: "./esm/mod.js" } }
          : {}),
        import: { types: "./esm/mod.d.ts", default: "./esm/mod.js" },
        require: { types: "./script/mod.d.ts", default: "./script/mod.js" },
      },
      "./package.json": "./package.json",
    },
    ...(hasSubpathImports ? { imports } : {}),
    engines: { node: ">=20.19" },
    sideEffects: false,
    files: [
      "esm/",
      "script/",
      "README.md",
      "LICENSE",
    ],
    dependencies: sortedDependencies,
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
  return { info, dir, files: sources.length, dependencies: sortedDependencies };
}

/**
 * Builds every package and returns what was built.
 *
 * @returns One entry per package, in dependency order.
 */
export async function buildAll(): Promise<BuiltPackage[]> {
  const config = JSON.parse(
    await readFile(join(ROOT, "deno.json"), "utf8"),
  ) as DenoJson;
  await mkdir(OUT, { recursive: true });
  const built: BuiltPackage[] = [];
  for (const info of PACKAGES) {
    built.push(await buildPackage(info, config));
  }
  return built;
}

if (import.meta.main) {
  const started = performance.now();
  const built = await buildAll();
  for (const pkg of built) {
    console.log(
      `${pkg.info.name}@${
        JSON.parse(await readFile(join(pkg.dir, "package.json"), "utf8"))
          .version
      }: ` +
        `${pkg.files} source files, dependencies: ${
          Object.keys(pkg.dependencies).join(", ") || "none"
        }`,
    );
  }
  console.log(
    `built ${built.length} packages in ${
      Math.round(performance.now() - started)
    } ms into npm/`,
  );
}
