// What an npm build was made from, recorded beside it, so that a later run
// can use that build instead of building again only when the build is
// exactly what a new one would be. scripts/build_npm.ts writes the stamp
// once the build is complete (and removes the old one first, so a build
// that failed half-way has none); the project generator, asked to reuse a
// build (KIT_NPM_REUSE=1), and scripts/create_check.ts compare it with the
// checkout as it is now.
//
// The sources are every file of the checkout except what the build never
// reads: tests/, bench/, examples/, coverage/, hidden files and folders (.git, .ci),
// node_modules/, the default build folder npm/ and the build folder itself.
// Taking the whole rest rather than a list of what the build reads today
// means a new input (a folder, a file a script starts reading) can never be
// missed: at worst a change no build sees costs one build. Beside the
// files: the settings of the build that change what it writes (the
// KIT_NPM_* variables scripts/build_npm.ts reads, and the content of the
// file KIT_NPM_VARIANTS names) and the Deno version that builds.
import { createHash, type Hash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import process from "node:process";

/** The stamp's file name, in the build folder beside the packages. */
export const STAMP_FILE = ".kit-build.json";

/** Folders of the checkout's top level that no build reads. */
const NOT_SOURCES = new Set([
  "tests",
  "bench",
  "examples",
  "npm",
  "coverage",
]);

/** The variables of the environment that change what the build writes. */
const BUILD_SETTINGS = [
  "KIT_NPM_REGISTRY",
  "KIT_NPM_REPOSITORY",
  "KIT_NPM_BUGS",
  "KIT_NPM_VARIANTS",
] as const;

/** What {@linkcode STAMP_FILE} holds. */
export interface BuildStamp {
  /** SHA-256 (hex) of the sources and settings the build was made from. */
  sources: string;
  /** How many files of the checkout went into `sources`. */
  files: number;
}

/**
 * The stamp a build of `root` into `out` made now would carry.
 *
 * @param root The checkout's root folder.
 * @param out The build folder (left out of the sources when inside `root`).
 * @param env The environment the build runs with.
 * @returns The hash of the sources and settings, and the count of files.
 * @throws {Error} When a file of the checkout cannot be read.
 * @example
 * ```ts
 * import { sourcesStamp } from "./_build_stamp.ts";
 *
 * const root = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${root}/deno.json`, "{}\n");
 * const stamp = await sourcesStamp(root, `${root}/npm`, {});
 * console.log(stamp.files, stamp.sources); // 1 and a SHA-256 in hex
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function sourcesStamp(
  root: string,
  out: string,
  env: Record<string, string | undefined> = process.env,
): Promise<BuildStamp> {
  const hash = createHash("sha256");
  const base = resolve(root);
  const skipped = resolve(base, out);
  let files = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir)).sort();
    for (const name of entries) {
      const path = join(dir, name);
      const rel = relative(base, path).split(sep).join("/");
      if (
        name.startsWith(".") || name === "node_modules" || path === skipped ||
        (dir === base && NOT_SOURCES.has(name))
      ) continue;
      const info = await lstat(path);
      if (info.isDirectory()) {
        await walk(path);
      } else if (info.isSymbolicLink()) {
        record(hash, `link ${rel}`, await readlink(path));
        files++;
      } else if (info.isFile()) {
        record(hash, `file ${rel}`, await readFile(path));
        files++;
      }
    }
  };
  await walk(base);
  for (const name of BUILD_SETTINGS) {
    record(hash, `env ${name}`, env[name] ?? "(unset)");
  }
  const variants = env.KIT_NPM_VARIANTS;
  if (variants !== undefined) {
    let text: string;
    try {
      text = await readFile(resolve(base, variants), "utf8");
    } catch {
      // The build fails on it; no stamp of a finished build can match.
      text = "(unreadable)";
    }
    record(hash, "variants file", text);
  }
  const versions = process.versions as Record<string, string | undefined>;
  record(hash, "deno", versions.deno ?? `node ${process.version}`);
  return { sources: hash.digest("hex"), files };
}

// Length-prefixed, so no two different inputs hash the same bytes.
function record(hash: Hash, label: string, data: string | Uint8Array): void {
  const bytes = typeof data === "string"
    ? new TextEncoder().encode(data)
    : data;
  hash.update(`${label}\0${bytes.length}\0`);
  hash.update(bytes);
}

/**
 * Why the build in `out` is not what a build of `root` would make now, or
 * `undefined` when it is (its stamp matches the sources and settings).
 *
 * @param root The checkout's root folder.
 * @param out The build folder.
 * @param env The environment a build would run with.
 * @returns The reason, in words, or `undefined`.
 * @throws {Error} When a file of the checkout cannot be read.
 * @example
 * ```ts
 * import { whyNotCurrent } from "./_build_stamp.ts";
 *
 * const root = await Deno.makeTempDir();
 * const stale = await whyNotCurrent(root, `${root}/npm`, {});
 * console.log(stale); // "it has no .kit-build.json (no complete build there)"
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export async function whyNotCurrent(
  root: string,
  out: string,
  env: Record<string, string | undefined> = process.env,
): Promise<string | undefined> {
  let recorded: Partial<BuildStamp>;
  try {
    recorded = JSON.parse(
      await readFile(join(out, STAMP_FILE), "utf8"),
    ) as Partial<BuildStamp>;
  } catch (error) {
    return (error as { code?: string }).code === "ENOENT"
      ? `it has no ${STAMP_FILE} (no complete build there)`
      : `its ${STAMP_FILE} cannot be read (${(error as Error).message})`;
  }
  const now = await sourcesStamp(root, out, env);
  return recorded.sources === now.sources
    ? undefined
    : "it was made from other sources or settings than the checkout's now";
}
