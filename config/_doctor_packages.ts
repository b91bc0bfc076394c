// Installed packages as the doctor sees them: the @vendor/kit-* copies in
// node_modules (nested copies too), the TypeScript compiler, and a small
// semver range check for the ranges Kit's users write (^, ~, exact, >=, x).
import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { objectOf, parseJsonc, readText } from "./_doctor_files.ts";

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

type Triple = [number, number, number];

function parseVersion(text: string): Triple | undefined {
  const match = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(text.trim());
  if (match === null) return undefined;
  const part = (value: string | undefined): number =>
    value === undefined || value === "x" || value === "*" ? 0 : Number(value);
  return [Number(match[1]), part(match[2]), part(match[3])];
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return 0;
}

/**
 * Whether a version satisfies a range. Knows `^`, `~`, exact, `>=`, `x`
 * and `*`, and `||` between them; any other range counts as satisfied (the
 * doctor does not guess).
 */
export function satisfies(version: string, range: string): boolean {
  const have = parseVersion(version);
  if (have === undefined) return true;
  return range.split("||").some((alternative) => {
    const text = alternative.trim();
    if (text === "" || text === "*" || text === "latest") return true;
    const match = /^(\^|~|>=|=)?\s*(.+)$/.exec(text);
    if (match === null) return true;
    const want = parseVersion(match[2]);
    if (want === undefined || /\s/.test(match[2].trim())) return true;
    if (compare(have, want) < 0) return false;
    switch (match[1]) {
      case ">=":
        return true;
      case "~":
        return have[0] === want[0] && have[1] === want[1];
      case "^":
        if (want[0] > 0) return have[0] === want[0];
        if (want[1] > 0) return have[0] === 0 && have[1] === want[1];
        return compare(have, want) === 0;
      default: {
        const parts = match[2].trim().split(".");
        const numeric = parts.findIndex((part) => !/^\d+$/.test(part));
        const significant = numeric === -1 ? parts.length : numeric;
        if (significant <= 1) return have[0] === want[0];
        if (significant === 2) {
          return have[0] === want[0] && have[1] === want[1];
        }
        return compare(have, want) === 0;
      }
    }
  });
}
