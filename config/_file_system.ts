// The file-system adapter: every file access of the configuration package
// goes through here, through dynamic imports of `node:` modules, so a browser
// bundle of config/mod.ts pulls none of them. `node:` modules work in Deno,
// Node.js and Bun alike.
import { ConfigurationSourceError } from "./configuration_source_error.ts";
import { unrefTimer } from "../core/mod.ts";
import { getEnvironmentVariable } from "./_environment_deno.ts";

type PathModule = typeof import("node:path");

async function modules(source: string): Promise<{
  fs: typeof import("node:fs/promises");
  path: PathModule;
  process: typeof import("node:process");
}> {
  try {
    const [fs, path, process] = await Promise.all([
      import("node:fs/promises"),
      import("node:path"),
      import("node:process"),
    ]);
    return { fs, path, process };
  } catch (cause) {
    throw new ConfigurationSourceError(
      `Configuration source ${source} needs a file system (Deno, Node.js or Bun); in a browser use JsonUrlProvider or MemoryProvider`,
      { source, cause },
    );
  }
}

/**
 * Resolves a configuration path: absolute paths stay; relative ones resolve
 * against `basePath`, else `KIT_CONFIG_PATH`, else the working directory.
 */
export async function resolveConfigPath(
  path: string,
  basePath: string | undefined,
): Promise<string> {
  const { path: nodePath, process } = await modules(path);
  if (nodePath.isAbsolute(path)) return nodePath.normalize(path);
  const root = basePath ?? nonEmpty(getEnvironmentVariable("KIT_CONFIG_PATH"));
  return root === undefined
    ? nodePath.resolve(process.cwd(), path)
    : nodePath.resolve(process.cwd(), root, path);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/**
 * Reads a text file; `undefined` when it does not exist.
 *
 * @throws {ConfigurationSourceError} when it exists but cannot be read.
 */
export async function readTextFile(
  absolutePath: string,
  source: string,
): Promise<string | undefined> {
  const { fs } = await modules(source);
  try {
    return await fs.readFile(absolutePath, "utf8");
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ConfigurationSourceError(
      `Configuration file ${absolutePath} could not be read (${
        code ?? (cause instanceof Error ? cause.message : String(cause))
      })`,
      { source, path: absolutePath, cause },
    );
  }
}

/**
 * Watches one file by polling its content (an unref'd timer, so it never
 * keeps the process alive — `fs.watch` does in Deno). Polling also sees
 * editors that replace the file by renaming, and a file that appears or
 * disappears. Returns a function that stops polling and waits for a read
 * in flight.
 */
export function pollFile(
  absolutePath: string,
  initial: string | undefined,
  interval: number,
  onChange: () => void,
): () => Promise<void> {
  let last = initial;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inflight: Promise<void> | undefined;
  const tick = async (): Promise<void> => {
    let text: string | undefined;
    try {
      const fs = await import("node:fs/promises");
      text = await fs.readFile(absolutePath, "utf8");
    } catch {
      text = undefined;
    }
    if (stopped) return;
    if (text !== last) {
      last = text;
      onChange();
    }
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = unrefTimer(setTimeout(() => {
      timer = undefined;
      inflight = tick().finally(() => {
        inflight = undefined;
        schedule();
      });
    }, interval));
  };
  schedule();
  return async (): Promise<void> => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    await inflight;
  };
}
