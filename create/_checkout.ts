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
import { join } from "node:path";
import process from "node:process";

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
  // Loaded here only: it brings the TypeScript compiler and esbuild along.
  const { buildAll } = await import("../scripts/build_npm.ts");
  const built = await buildAll();
  const out = new Map<string, { dir: string; manifest: Manifest }>();
  for (const pkg of built) {
    const manifest = JSON.parse(
      await readFile(join(pkg.dir, "package.json"), "utf8"),
    ) as Manifest;
    out.set(manifest.name, { dir: pkg.dir, manifest });
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
