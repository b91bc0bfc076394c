// Installed packages as the doctor sees them: the @vendor/kit-* copies in
// node_modules (nested copies too), the TypeScript compiler, and whether a
// version satisfies a range, by the semver package npm itself uses (a
// hand-written reading got upper bounds, hyphen ranges and prereleases
// wrong).
import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import semver from "semver";
import { objectOf, parseJsonc, readText } from "./files.ts";

/** One installed copy of a package. */
export interface Installed {
  readonly name: string;
  readonly version: string;
  /** The package folder. */
  readonly path: string;
}

// The node_modules folders Node would search from a folder: its own, then
// each parent's.
function nodeModulesChain(folder: string): string[] {
  const chain: string[] = [];
  let dir = folder;
  for (;;) {
    chain.push(join(dir, "node_modules"));
    const parent = dirname(dir);
    if (parent === dir) return chain;
    dir = parent;
  }
}

async function readManifest(
  dir: string,
): Promise<Record<string, unknown> | undefined> {
  const text = await readText(join(dir, "package.json"));
  return text === undefined ? undefined : objectOf(parseJsonc(text));
}

/**
 * Every installed `@vendor/kit*` package the folder resolves (the nearest
 * node_modules that has the scope), plus copies nested inside them.
 */
export async function installedKitPackages(
  folder: string,
): Promise<Installed[]> {
  const found: Installed[] = [];
  const scan = async (nodeModules: string, depth: number): Promise<void> => {
    let names: string[];
    try {
      names = await readdir(join(nodeModules, "@vendor"));
    } catch {
      return;
    }
    for (const entry of names.sort()) {
      if (!entry.startsWith("kit")) continue;
      const dir = join(nodeModules, "@vendor", entry);
      const manifest = await readManifest(dir);
      const version = manifest?.version;
      if (typeof version === "string") {
        found.push({ name: `@vendor/${entry}`, version, path: dir });
      }
      if (depth > 0) await scan(join(dir, "node_modules"), depth - 1);
    }
  };
  for (const nodeModules of nodeModulesChain(folder)) {
    const before = found.length;
    await scan(nodeModules, 2);
    if (found.length > before) break;
  }
  return found;
}

/** The installed version of a package the folder resolves, if any. */
export async function installedVersion(
  folder: string,
  name: string,
): Promise<Installed | undefined> {
  for (const nodeModules of nodeModulesChain(folder)) {
    const dir = join(nodeModules, ...name.split("/"));
    const version = (await readManifest(dir))?.version;
    if (typeof version === "string") return { name, version, path: dir };
  }
  return undefined;
}

/**
 * Whether an installed version satisfies a range from package.json or
 * deno.json, by npm's own rules (the semver package npm uses): a prerelease
 * only satisfies a range that names a prerelease of the same version, `<`,
 * hyphen ranges and every other form count. A range semver does not read
 * (`latest`, `workspace:*`, a file or git address) is not judged: it counts
 * as satisfied.
 *
 * @param version The installed version (`1.2.3`, `1.2.3-beta.1`).
 * @param range The range asked for (`^1.2.0`, `1.2.3 - 1.3.0`, `<2.0.0`).
 * @returns `false` only when both parse and the version is outside.
 */
export function satisfies(version: string, range: string): boolean {
  const wanted = range.trim();
  if (semver.valid(version) === null) return true;
  if (wanted === "" || semver.validRange(wanted) === null) return true;
  return semver.satisfies(version, wanted);
}
