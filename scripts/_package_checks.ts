// Checks of one built npm package that scripts/check_packages.ts runs on
// each: what `npm publish` would correct in package.json, whether the
// JavaScript is readable and its source maps resolve inside the package, and
// the package.json metadata.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { repositoryFields } from "./_packages.ts";

/** A line of a bundle longer than this is minified code, not a readable line. */
export const LONGEST_LINE = 1000;

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await walk(path));
    else out.push(path);
  }
  return out;
}

/**
 * What `npm publish` would correct or drop in the package.json of `dir` (a
 * `bin` entry written `./bin/…` is dropped with "script name … was invalid
 * and removed" on some npm versions): the warnings of a dry run, offline and
 * pointed at a closed loopback port, so nothing leaves the machine.
 *
 * @param dir The package folder.
 * @returns One line per warning; empty when npm keeps package.json as it is.
 */
export function publishCorrections(dir: string): string[] {
  const run = spawnSync("npm", [
    "publish",
    "--dry-run",
    "--offline",
    "--registry",
    "http://127.0.0.1:9/",
  ], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  const output = `${run.stdout}\n${run.stderr}`;
  const warnings = output.split("\n").filter((line) =>
    /auto-corrected|errors corrected|was invalid and removed/.test(line)
  );
  if (run.status !== 0 && warnings.length === 0) {
    warnings.push(
      `npm publish --dry-run failed: ${output.trim().slice(0, 400)}`,
    );
  }
  return warnings;
}

interface SourceMap {
  sources?: string[];
  sourcesContent?: (string | null)[];
}

/**
 * The JavaScript of the package is readable and debuggable: no line of a
 * `.js`/`.mjs` file is minified-long, and every source map a file links to
 * exists, names only files inside the package (relative to the map, so they
 * resolve wherever the package is installed), and carries their text.
 *
 * @param dir The package folder.
 * @param label How problems name the package.
 * @returns One line per problem.
 */
export async function javaScriptProblems(
  dir: string,
  label: string,
): Promise<string[]> {
  const problems: string[] = [];
  for (const file of await walk(dir)) {
    if (!/\.m?js$/.test(file)) continue;
    const where = `${label}: ${relative(dir, file)}`;
    const code = await readFile(file, "utf8");
    const longest = Math.max(...code.split("\n").map((line) => line.length));
    if (longest > LONGEST_LINE) {
      problems.push(
        `${where} has a line of ${longest} characters; a trace through it prints the whole line (build the bundles unminified)`,
      );
    }
    const link = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(code)?.[1];
    if (link === undefined) continue;
    const mapPath = resolve(dirname(file), link);
    if (!existsSync(mapPath)) {
      problems.push(`${where} links to ${link}, which is missing`);
      continue;
    }
    const map = JSON.parse(await readFile(mapPath, "utf8")) as SourceMap;
    const sources = map.sources ?? [];
    const outside = sources.filter((source) =>
      !resolve(dirname(mapPath), source).startsWith(dir + "/")
    );
    if (outside.length > 0) {
      problems.push(
        `${where}.map names ${outside.length} source(s) outside the package, such as ${
          outside[0]
        } (a trace would name a file that is not there)`,
      );
    }
    const textless = sources.filter((_, index) =>
      typeof map.sourcesContent?.[index] !== "string"
    );
    if (textless.length > 0) {
      problems.push(
        `${where}.map carries no text for ${textless.length} source(s), such as ${
          textless[0]
        }`,
      );
    }
  }
  return problems;
}

/** The package.json fields `metadataProblems` looks at. */
export interface Metadata {
  license?: string;
  author?: unknown;
  keywords?: unknown;
  repository?: unknown;
  homepage?: unknown;
  bugs?: unknown;
}

/**
 * The package.json metadata agrees with Kit's: the license of deno.json,
 * the LICENSE's copyright holder as author, keywords, and `repository`,
 * `homepage` and `bugs` exactly as `KIT_NPM_REPOSITORY` gives them (absent
 * when it is unset), never an address on a placeholder domain.
 *
 * @param manifest The package.json.
 * @param folder The package's source folder.
 * @param expected The license and author.
 * @returns One line per problem.
 */
export function metadataProblems(
  manifest: Metadata & { name: string },
  folder: string,
  expected: { license: string; author: string },
): string[] {
  const problems: string[] = [];
  const { name } = manifest;
  if (manifest.license !== expected.license) {
    problems.push(
      `${name}: license is ${manifest.license}, deno.json says ${expected.license}`,
    );
  }
  if (manifest.author !== expected.author) {
    problems.push(
      `${name}: author is ${
        JSON.stringify(manifest.author)
      }, the LICENSE's holder is ${expected.author}`,
    );
  }
  if (
    !Array.isArray(manifest.keywords) || manifest.keywords.length === 0 ||
    !manifest.keywords.every((k) => typeof k === "string" && k !== "")
  ) {
    problems.push(`${name}: keywords are missing`);
  }
  const links = repositoryFields(folder);
  for (const field of ["repository", "homepage", "bugs"] as const) {
    const actual = JSON.stringify(manifest[field]);
    const wanted = JSON.stringify(links?.[field]);
    if (actual !== wanted) {
      problems.push(
        `${name}: ${field} is ${actual ?? "absent"}, expected ${
          wanted ?? "absent (KIT_NPM_REPOSITORY is unset)"
        }`,
      );
    }
    if (/example\.(com|org|net)|\.invalid\b|\.example\b/.test(actual ?? "")) {
      problems.push(`${name}: ${field} points at a placeholder domain`);
    }
  }
  return problems;
}

/**
 * What the checks every package shares find: the metadata, the readable
 * JavaScript and its maps, `bin` paths as npm keeps them (`bin/x.mjs`, not
 * `./bin/x.mjs`), and what `npm publish` would correct.
 *
 * @param manifest The package.json.
 * @param folder The package's source folder.
 * @param dir The package folder.
 * @param expected The license and author.
 * @returns One line per problem.
 */
export async function sharedProblems(
  manifest: Metadata & { name: string; bin?: Record<string, string> },
  folder: string,
  dir: string,
  expected: { license: string; author: string },
): Promise<string[]> {
  const found = [
    ...metadataProblems(manifest, folder, expected),
    ...await javaScriptProblems(dir, manifest.name),
  ];
  for (const [name, path] of Object.entries(manifest.bin ?? {})) {
    if (path.startsWith("./")) {
      found.push(
        `${manifest.name}: bin ${name} is written ${path}; write it without './' (npm drops it on publish)`,
      );
    }
  }
  found.push(
    ...publishCorrections(dir).map((line) =>
      `${manifest.name}: npm publish --dry-run: ${line}`
    ),
  );
  return found;
}

function packedSize(dir: string): { name: string; size: number } {
  const result = spawnSync("npm", ["pack", "--dry-run", "--json", dir], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.status !== 0) {
    throw new Error(`npm pack --dry-run ${dir} failed: ${result.stderr}`);
  }
  return (JSON.parse(result.stdout) as { name: string; size: number }[])[0];
}

/** How big a package is to download: `npm pack`, dependencies excluded. */
export interface PackedSizes {
  /** The package name. */
  name: string;
  /** The bytes of the tarball. */
  packed: number;
  /**
   * The bytes of the tarball of a copy without the `.map` files: what is
   * loaded with the package (maps are read only by debuggers and
   * `--enable-source-maps`), which the size goal counts.
   */
  withoutMaps: number;
}

/**
 * The packed size of the package in `dir`, with and without its source maps.
 *
 * @param dir The package folder.
 * @returns The sizes.
 * @throws {Error} When `npm pack --dry-run` fails.
 */
export function packedSizes(dir: string): PackedSizes {
  const full = packedSize(dir);
  const copy = mkdtempSync(join(tmpdir(), "kit-pack-"));
  try {
    cpSync(dir, copy, {
      recursive: true,
      filter: (path) => !path.endsWith(".map"),
    });
    return {
      name: full.name,
      packed: full.size,
      withoutMaps: packedSize(copy).size,
    };
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
