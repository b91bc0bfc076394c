// Kit's npm packages for a Node.js project created from a checkout: built
// from the checkout's sources (scripts/build_npm.ts) and packed into the
// project's vendor/ folder, as a registry would serve them: all eight, of
// which package.json depends on those the project imports (and the Kit
// packages they depend on).
//
// With KIT_NPM_REUSE=1 a build already in the build folder (KIT_NPM_OUT, or
// npm/) is packed instead, when its stamp (scripts/_build_stamp.ts) says it
// was made from the checkout's sources as they are now; otherwise it is
// built as without the variable. Never by default: a user's run builds.
import { spawnSync } from "node:child_process";
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
} from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { PACKAGES } from "../scripts/_packages.ts";
import { whyNotCurrent } from "../scripts/_build_stamp.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The longest the build may take on a loaded machine. */
const BUILD_TIMEOUT_MS = 10 * 60_000;
/** The most output of the build kept for an error message. */
const BUILD_OUTPUT_BYTES = 16 * 1024 * 1024;

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

/** How {@linkcode packCheckout} gets Kit's packages. */
export interface PackOptions {
  /**
   * Pack the build already in the build folder (`KIT_NPM_OUT`, or `npm/`)
   * when its stamp says it was made from the checkout as it is now, rather
   * than build (`KIT_NPM_REUSE=1`).
   */
  reuse: boolean;
  /** Writes a line of output: with `reuse`, which build was packed. */
  note?: (text: string) => void;
}

/**
 * Builds Kit's packages (or, with `options.reuse`, takes the build in
 * the build folder when it is up to date) and packs all eight into
 * `<dir>/vendor/`.
 *
 * @param dir The project folder.
 * @param names The Kit packages the project imports.
 * @param options Whether to reuse an up-to-date build, and where to say
 * which build was packed.
 * @returns package.json dependencies: each Kit package `names` need, by
 * name, with its `file:vendor/<package>.tgz` spec.
 * @throws {Error} When the build or `npm pack` fails.
 */
export async function packCheckout(
  dir: string,
  names: readonly string[],
  options: PackOptions = { reuse: false },
): Promise<Record<string, string>> {
  const out = new Map<string, { dir: string; manifest: Manifest }>();
  for (const dir of await builtPackages(options)) {
    const manifest = JSON.parse(
      await readFile(join(dir, "package.json"), "utf8"),
    ) as Manifest;
    out.set(manifest.name, { dir, manifest });
  }
  const wanted = new Set<string>();
  const visit = (name: string): void => {
    if (wanted.has(name)) return;
    const pkg = out.get(name);
    if (pkg === undefined) {
      throw new Error(`the build made no package ${name}`);
    }
    wanted.add(name);
    for (const dependency of Object.keys(pkg.manifest.dependencies ?? {})) {
      if (dependency.startsWith("@vendor/kit")) visit(dependency);
    }
  };
  names.forEach(visit);
  // Every package of Kit is packed, so that one the project does not import
  // yet (the HTTP client, localization, analytics) is one `npm install
  // ./vendor/<package>.tgz` away; package.json depends on those it uses.
  const packs = [...out.keys()].filter((name) =>
    name.startsWith("@vendor/kit-")
  );
  const vendor = join(dir, "vendor");
  await mkdir(vendor, { recursive: true });
  // npm pack writes into a folder made for it, never into a file that was
  // there (with --force, `vendor/` may hold links); each package is renamed
  // over its place, which replaces a link there rather than writing through.
  const packed = await mkdtemp(join(vendor, ".pack-"));
  const specs: Record<string, string> = {};
  try {
    for (const name of packs.sort()) {
      const pkg = out.get(name)!;
      const run = spawnSync("npm", [
        "pack",
        "--silent",
        "--pack-destination",
        packed,
        pkg.dir,
      ], { encoding: "utf8", timeout: 60_000, env: process.env });
      const made = (await readdir(packed)).find((file) =>
        file.endsWith(".tgz")
      );
      if (run.status !== 0 || made === undefined) {
        throw new Error(
          `npm pack ${pkg.dir} failed (${
            run.status ?? run.signal
          }): ${run.stderr}`,
        );
      }
      const file = `${name.replace("@vendor/", "")}.tgz`;
      await rename(join(packed, made), join(vendor, file));
      if (wanted.has(name)) specs[name] = `file:vendor/${file}`;
    }
  } finally {
    await rm(packed, { recursive: true, force: true });
  }
  return specs;
}

/**
 * Reads `KIT_NPM_REUSE`: whether a build in the build folder is to be packed
 * when it is up to date.
 *
 * @param value The variable's value.
 * @returns `true` for `1`; `false` for `0`, empty or unset.
 * @throws {Error} For any other value, naming the variable and the values
 * it takes.
 */
export function reuseSetting(value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "0") return false;
  if (value === "1") return true;
  throw new Error(
    `KIT_NPM_REUSE is '${value}': set it to 1 to pack the build in KIT_NPM_OUT (or npm/) when it is up to date with the checkout, or to 0 (or leave it unset) to build Kit's packages.`,
  );
}

/**
 * The folders of Kit's built packages: the build folder's, after building
 * into it, or as they are when reuse is asked and they are up to date.
 */
async function builtPackages(options: PackOptions): Promise<string[]> {
  const { reuse, note = () => {} } = options;
  const out = resolve(ROOT, process.env.KIT_NPM_OUT ?? "npm");
  const dirs = PACKAGES.map((info) => join(out, info.dir));
  if (reuse) {
    const stale = await whyNotCurrent(ROOT, out);
    if (stale === undefined) {
      note(
        `Kit's npm packages: packed the build in ${out}, made from the checkout's sources as they are now (KIT_NPM_REUSE=1).`,
      );
      return dirs;
    }
    note(
      `Kit's npm packages: building into ${out}, since the build there cannot be reused: ${stale}.`,
    );
  } else {
    // The build takes a minute or so: say so before it starts.
    note(
      `Kit's npm packages: building into ${out} (KIT_NPM_OUT to build elsewhere; KIT_NPM_REUSE=1 to pack a build there that is up to date)…`,
    );
  }
  buildPackages();
  return dirs;
}

// The build (the TypeScript compiler, esbuild) runs in a child process with
// the development configuration, deno.dev.json: the generator itself, and
// every other program of the checkout's deno.json, never fetch those tools.
function buildPackages(): void {
  const run = spawnSync(process.execPath, [
    "run",
    "-A",
    "--config",
    join(ROOT, "deno.dev.json"),
    join(ROOT, "scripts", "build_npm.ts"),
  ], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: BUILD_TIMEOUT_MS,
    maxBuffer: BUILD_OUTPUT_BYTES,
    env: process.env,
  });
  if (run.status !== 0) {
    throw new Error(
      `building Kit's npm packages (deno run -A --config deno.dev.json scripts/build_npm.ts) failed (${
        run.error?.message ?? run.status ?? run.signal
      }): ${run.stderr}${run.stdout}`,
    );
  }
}
