// Kit's npm packages for a Node.js project created from a checkout: built
// from the checkout's sources (scripts/build_npm.ts) and packed into the
// project's vendor/ folder, as a registry would serve them: all eight, of
// which package.json depends on those the project imports (and the Kit
// packages they depend on).
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

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The longest the build may take on a loaded machine. */
const BUILD_TIMEOUT_MS = 10 * 60_000;
/** The most output of the build kept for an error message. */
const BUILD_OUTPUT_BYTES = 16 * 1024 * 1024;

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
}

/**
 * Builds Kit's packages and packs all eight into `<dir>/vendor/`.
 *
 * @param dir The project folder.
 * @param names The Kit packages the project imports.
 * @returns package.json dependencies: each Kit package `names` need, by
 * name, with its `file:vendor/<package>.tgz` spec.
 * @throws {Error} When the build or `npm pack` fails.
 */
export async function packCheckout(
  dir: string,
  names: readonly string[],
): Promise<Record<string, string>> {
  const out = new Map<string, { dir: string; manifest: Manifest }>();
  for (const dir of buildPackages()) {
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

// The build (the TypeScript compiler, esbuild) runs in a child process with
// the development configuration, deno.dev.json: the generator itself, and
// every other program of the checkout's deno.json, never fetch those tools.
function buildPackages(): string[] {
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
  const out = resolve(ROOT, process.env.KIT_NPM_OUT ?? "npm");
  return PACKAGES.map((info) => join(out, info.dir));
}
