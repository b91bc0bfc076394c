// Writing a project into a folder that may hold links (with --force): the
// generator never writes through a link. A symbolic link where it writes a
// file or makes a folder is found first; one that leads out of the project
// folder stops the run before anything is written, one that stays inside is
// replaced (what it leads to is kept). A file is written beside its place and
// renamed over it, so neither a symbolic link nor a hard link in its place
// carries the write to another file.
import {
  lstat,
  mkdir,
  readlink,
  realpath,
  rename,
  rm,
  unlink,
  writeFile,
} from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A symbolic link found where the generator writes. */
export interface LinkInTheWay {
  /** Its path relative to the project folder, with `/` between parts. */
  path: string;
  /** What it points to, as the link holds it. */
  target: string;
  /** Whether what it leads to is outside the project folder. */
  outside: boolean;
}

function errorCode(error: unknown): string | undefined {
  return (error as { code?: string }).code;
}

/** The entry at `path`, not following a link; undefined when there is none. */
async function entry(
  path: string,
): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" ||
    (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/**
 * Whether the link at `path` leads out of `root` (both real paths but the
 * link's last part). A link that leads nowhere (its target is missing) is
 * judged by where its target would be.
 */
async function leadsOut(root: string, path: string): Promise<boolean> {
  try {
    return !within(root, await realpath(path));
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ELOOP" && code !== "ENOTDIR") {
      throw error;
    }
    return !within(root, resolve(dirname(path), await readlink(path)));
  }
}

/**
 * The symbolic links on the way to each path the generator writes: at the
 * path itself or at a folder above it, inside `dir`. Below a link nothing is
 * looked at, since the generator replaces the link by a new folder.
 *
 * @param dir The project folder (it may not exist yet).
 * @param files The files to write, relative to `dir`, `/` between parts.
 * @param folders Other folders the generator writes into, the same way.
 * @returns The links found, each once, in the order of the paths.
 */
export async function linksInTheWay(
  dir: string,
  files: readonly string[],
  folders: readonly string[] = [],
): Promise<LinkInTheWay[]> {
  if (await entry(dir) === undefined) return [];
  const root = await realpath(dir);
  const found = new Map<string, LinkInTheWay>();
  for (const path of [...files, ...folders]) {
    const parts = path.split("/").filter(Boolean);
    for (let depth = 1; depth <= parts.length; depth++) {
      const rel = parts.slice(0, depth).join("/");
      const at = join(root, ...parts.slice(0, depth));
      const info = await entry(at);
      if (info === undefined) break;
      if (!info.isSymbolicLink()) continue;
      if (!found.has(rel)) {
        found.set(rel, {
          path: rel,
          target: await readlink(at),
          outside: await leadsOut(root, at),
        });
      }
      break;
    }
  }
  return [...found.values()];
}

/**
 * Makes the folder `path` inside `dir` and the folders above it, replacing a
 * symbolic link on the way by a folder.
 *
 * @param dir The project folder, which exists.
 * @param path The folder, relative to `dir`, `/` between parts.
 * @returns Whether the folder itself was made (false: it was there).
 * @throws {Error} When a file stands where a folder is to be.
 */
export async function makeFolderInside(
  dir: string,
  path: string,
): Promise<boolean> {
  let made = false;
  let at = dir;
  for (const part of path.split("/").filter(Boolean)) {
    at = join(at, part);
    const info = await entry(at);
    if (info?.isDirectory()) {
      made = false;
      continue;
    }
    if (info?.isSymbolicLink()) await unlink(at);
    else if (info !== undefined) {
      throw new Error(
        `'${relative(dir, at)}' is a file where the project has a folder`,
      );
    }
    await mkdir(at);
    made = true;
  }
  return made;
}

/**
 * Writes the file `path` inside `dir`: into a new file beside it, renamed
 * over whatever stands there, so that a link there is replaced rather than
 * written through.
 *
 * @param dir The project folder, which exists.
 * @param path The file, relative to `dir`, `/` between parts.
 * @param text Its content.
 * @throws {Error} When the folder above it cannot be made, or the file
 * cannot be written.
 */
export async function writeInside(
  dir: string,
  path: string,
  text: string,
): Promise<void> {
  const parts = path.split("/").filter(Boolean);
  await makeFolderInside(dir, parts.slice(0, -1).join("/"));
  const target = join(dir, ...parts);
  const fresh = join(
    dirname(target),
    `.${parts[parts.length - 1]}.${crypto.randomUUID()}.tmp`,
  );
  // `wx`: never opens what is already there, a link included.
  await writeFile(fresh, text, { flag: "wx" });
  try {
    await rename(fresh, target);
  } catch (error) {
    await rm(fresh, { force: true });
    throw error;
  }
}
