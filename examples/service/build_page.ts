/**
 * Builds the browser page of the example service (`public/`) with esbuild:
 * `public/app.ts` and everything it imports, for browsers, into one ES module.
 *
 * - From the **packages** (the Node.js build: `npm run build`, run by the
 *   Dockerfile): Kit comes from `node_modules`, and esbuild's `browser`
 *   condition picks each package's browser files, as any web bundler does.
 *   `node dist/build_page.js` writes `dist/public/` (`index.html`, `app.js`,
 *   `app.meta.json`, the module graph).
 * - From the **sources** (`deno task serve`): Kit's `mod.ts` files stand in
 *   for the packages, and a resolve plugin gives each runtime variant of
 *   the sources (a `#name` import) the file the npm build's browser bundle
 *   takes for it (`browser`, else `default`, in Kit's scripts/_variants.ts).
 *   npm dependencies come from Deno's npm cache. The service builds this
 *   way, in memory, on the first request for `/app.js`.
 *
 * Neither way ever bundles a `node:` module or a `Deno` call: a `node:`
 * import fails the build (it is not marked external).
 *
 * @module
 */
import { execFile } from "node:child_process";
import {
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build, type Metafile, type Plugin } from "esbuild";

/** A built page bundle. */
export interface PageBundle {
  /** The JavaScript of `app.js`. */
  readonly code: string;
  /** esbuild's metafile: every input module and what it imports. */
  readonly metafile: Metafile;
}

/** Options of {@linkcode buildPage}. */
export interface BuildPageOptions {
  /** The folder holding `public/app.ts`. */
  root: string;
  /**
   * `"packages"`: Kit from `node_modules` (the Node.js build);
   * `"sources"`: Kit's sources of this repository (Deno).
   */
  from: "packages" | "sources";
}

const HERE = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

/**
 * Bundles `public/app.ts` for browsers.
 *
 * @param options Where the page is and where Kit comes from.
 * @returns The code and its module graph.
 * @throws {Error} When esbuild fails (an unresolved import, a `node:` import).
 */
export async function buildPage(
  options: BuildPageOptions,
): Promise<PageBundle> {
  const entry = join(options.root, "public", "app.ts");
  const sources = options.from === "sources"
    ? await kitSources(resolve(options.root, "..", ".."))
    : undefined;
  try {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      target: "es2022",
      minify: true,
      sourcemap: false,
      metafile: true,
      logLevel: "silent",
      nodePaths: sources ? [sources.nodeModules] : [],
      plugins: sources ? [sources.plugin] : [],
    });
    return { code: result.outputFiles[0].text, metafile: result.metafile };
  } finally {
    if (sources) await rm(sources.temp, { recursive: true, force: true });
  }
}

interface KitSources {
  plugin: Plugin;
  nodeModules: string;
  temp: string;
}

// The resolve plugin for Kit's sources, and a node_modules folder of links
// into Deno's npm cache for their npm dependencies.
async function kitSources(repo: string): Promise<KitSources> {
  const config = JSON.parse(
    await readFile(join(repo, "deno.json"), "utf8"),
  ) as { imports: Record<string, string> };
  const kit = new Map<string, string>();
  for (const [name, target] of Object.entries(config.imports)) {
    if (name.startsWith("@vendor/kit-")) kit.set(name, resolve(repo, target));
  }
  const temp = await mkdtemp(join(tmpdir(), "kit-page-"));
  const nodeModules = join(temp, "node_modules");
  try {
    await linkNpmCache(repo, nodeModules);
  } catch (error) {
    // The caller's finally never sees this folder: remove it here.
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  const { variantFile } = await import(
    pathToFileURL(join(repo, "scripts", "_variants.ts")).href
  ) as {
    variantFile(name: string, runtime: "browser", importer: string): string;
  };
  const plugin: Plugin = {
    name: "kit-browser-sources",
    setup(build) {
      build.onResolve({ filter: /^@vendor\/kit-/ }, (args) => {
        const path = kit.get(args.path);
        return path === undefined ? undefined : { path };
      });
      build.onResolve({ filter: /^#/ }, (args) => {
        if (!args.importer.startsWith(repo + "/")) return undefined;
        if (args.importer.includes("/node_modules/")) return undefined;
        return {
          path: join(repo, variantFile(args.path, "browser", args.importer)),
        };
      });
    },
  };
  return { plugin, nodeModules, temp };
}

// Deno keeps npm packages in its cache, one folder per name and version, not
// in a node_modules tree. `deno info --json` tells which ones Kit's sources
// import and what each depends on, with their folders; they are linked here
// by name, nearest first (Kit's own imports, then their dependencies).
async function linkNpmCache(repo: string, nodeModules: string): Promise<void> {
  const deno = (globalThis as { Deno?: { execPath(): string } }).Deno;
  let stdout: string;
  try {
    ({ stdout } = await run(
      deno?.execPath() ?? "deno",
      ["info", "--json", join(repo, "mod.ts")],
      { cwd: repo, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
    ));
  } catch (error) {
    throw new Error(
      `deno info failed; the page is bundled from Kit's sources only under Deno: ${
        (error as Error).message
      }`,
    );
  }
  const info = JSON.parse(stdout) as {
    modules: { kind?: string; npmPackage?: string }[];
    npmPackages?: Record<
      string,
      { name: string; dependencies: string[]; localPath?: string }
    >;
  };
  const packages = info.npmPackages ?? {};
  const queue = info.modules.flatMap((m) =>
    m.kind === "npm" && m.npmPackage ? [m.npmPackage] : []
  );
  const linked = new Map<string, string>();
  for (let i = 0; i < queue.length; i++) {
    const item = packages[queue[i]];
    if (item?.localPath === undefined || linked.has(item.name)) continue;
    linked.set(item.name, item.localPath);
    queue.push(...item.dependencies);
  }
  for (const [name, path] of linked) {
    const link = join(nodeModules, name);
    await mkdir(dirname(link), { recursive: true });
    await symlink(path, link, "dir");
  }
}

/**
 * The Node.js build step: bundles from the packages and writes `index.html`,
 * `app.js` and `app.meta.json` into `<root>/dist/public/`.
 *
 * @param root The built app's folder (holding `public/` and `node_modules/`).
 * @returns The output folder.
 */
export async function writePage(root: string): Promise<string> {
  const out = join(root, "dist", "public");
  const bundle = await buildPage({ root, from: "packages" });
  await mkdir(out, { recursive: true });
  await writeFile(join(out, "app.js"), bundle.code);
  await writeFile(
    join(out, "app.meta.json"),
    JSON.stringify(bundle.metafile, null, 2),
  );
  await copyFile(
    join(root, "public", "index.html"),
    join(out, "index.html"),
  );
  return out;
}

// `node dist/build_page.js`: run from the app's folder by `npm run build`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await writePage(resolve(HERE, ".."));
  console.log(`page built into ${out}`);
}
