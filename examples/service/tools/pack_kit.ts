/**
 * Packs Kit's npm packages for the example service's Node.js build:
 *
 * - `packKit()` builds the eight packages (scripts/build_npm.ts) and packs
 *   each into `examples/service/vendor/<package folder>.tgz`, the names
 *   `node/package.json` refers to (a real project installs them from the
 *   private registry instead);
 * - `buildNodeApp(dir)` does what the Dockerfile's build stage does, in a
 *   folder of this machine: `npm install`, then `npm run build` (`tsc` of
 *   the sources to `dist/`, and the browser page bundled into
 *   `dist/public/`), with the configuration files and translations beside it, so
 *   `node dist/main.js` (or `bun dist/main.js`) starts the service.
 *
 * Run: `deno run -A --config deno.dev.json examples/service/tools/pack_kit.ts [--app <dir>]`.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { cp, mkdir, readdir, rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { buildAll } from "../../../scripts/build_npm.ts";
import { PACKAGES } from "../../../scripts/_packages.ts";

/** The example service's folder. */
export const SERVICE_DIR: string = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "..",
);
const ROOT = resolve(SERVICE_DIR, "..", "..");

function sh(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd} (${
        result.status ?? result.signal
      }):\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/**
 * Builds the npm packages and packs them into `examples/service/vendor/`.
 *
 * @param build Build the packages first (default `true`).
 * @returns The vendor folder.
 */
export async function packKit(build = true): Promise<string> {
  if (build) await buildAll();
  const vendor = join(SERVICE_DIR, "vendor");
  await rm(vendor, { recursive: true, force: true });
  await mkdir(vendor, { recursive: true });
  for (const info of PACKAGES) {
    const before = new Set(await readdir(vendor));
    sh("npm", [
      "pack",
      "--silent",
      "--pack-destination",
      vendor,
      join(ROOT, "npm", info.dir),
    ], ROOT);
    const made = (await readdir(vendor)).find((name) =>
      !before.has(name) && name.endsWith(".tgz")
    );
    if (made === undefined) {
      throw new Error(`npm pack made no tarball for ${info.name}`);
    }
    await rename(join(vendor, made), join(vendor, `${info.dir}.tgz`));
  }
  return vendor;
}

/**
 * The Dockerfile's build stage in a local folder: copies `node/package.json`,
 * `node/tsconfig.json`, `vendor/`, the sources, the page (`public/`),
 * configuration files, translations and the database's migrations into
 * `dir`, runs `npm install` and `npm run build` (`tsc`, then the page
 * bundle).
 *
 * @param dir An empty or missing folder.
 * @returns `dir`, holding `dist/main.js`.
 */
export async function buildNodeApp(dir: string): Promise<string> {
  await mkdir(join(dir, "src"), { recursive: true });
  await cp(
    join(SERVICE_DIR, "node", "package.json"),
    join(dir, "package.json"),
  );
  await cp(
    join(SERVICE_DIR, "node", "tsconfig.json"),
    join(dir, "tsconfig.json"),
  );
  await cp(join(SERVICE_DIR, "vendor"), join(dir, "vendor"), {
    recursive: true,
  });
  await cp(join(SERVICE_DIR, "locales"), join(dir, "locales"), {
    recursive: true,
  });
  await cp(join(SERVICE_DIR, "public"), join(dir, "public"), {
    recursive: true,
  });
  await cp(join(SERVICE_DIR, "migrations"), join(dir, "migrations"), {
    recursive: true,
  });
  for (const name of await readdir(SERVICE_DIR)) {
    if (name.endsWith(".ts")) {
      await cp(join(SERVICE_DIR, name), join(dir, "src", name));
    } else if (/^appsettings(\.\w+)?\.json$/.test(name)) {
      await cp(join(SERVICE_DIR, name), join(dir, name));
    }
  }
  sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], dir);
  sh("npm", ["run", "build", "--silent"], dir);
  return dir;
}

if (import.meta.main) {
  const at = process.argv.indexOf("--app");
  const vendor = await packKit();
  console.log(`Kit packages packed into ${vendor}`);
  if (at !== -1 && process.argv[at + 1]) {
    const dir = await buildNodeApp(resolve(process.argv[at + 1]));
    console.log(`built: node ${join(dir, "dist", "main.js")}`);
  }
}
