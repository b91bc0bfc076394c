// Shared helpers of the configuration tests: real temp directories and a
// real process environment, set and restored around each test.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";

/** A temp directory removed by `cleanup()`. */
export interface TempDir {
  readonly path: string;
  /** Writes `name` (JSON-encoding non-strings) and returns its absolute path. */
  write(name: string, content: unknown): Promise<string>;
  cleanup(): Promise<void>;
}

/** Creates a fresh temp directory. */
export async function tempDir(): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), "kit-config-"));
  return {
    path,
    async write(name: string, content: unknown): Promise<string> {
      const file = join(path, name);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(
        file,
        typeof content === "string"
          ? content
          : JSON.stringify(content, null, 2),
      );
      return file;
    },
    cleanup: () => rm(path, { recursive: true, force: true }),
  };
}

/**
 * Runs `fn` with the given variables set (`undefined` deletes one) and
 * restores the previous values afterwards, even when `fn` throws.
 */
export async function withEnv<T>(
  variables: Record<string, string | undefined>,
  fn: () => T | Promise<T>,
): Promise<T> {
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(variables)) {
    saved.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  try {
    return await fn();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** Runs `fn` with a temp directory that is removed afterwards. */
export async function withTempDir<T>(
  fn: (dir: TempDir) => T | Promise<T>,
): Promise<T> {
  const dir = await tempDir();
  try {
    return await fn(dir);
  } finally {
    await dir.cleanup();
  }
}

let counter = 0;

/**
 * A prefix no other test uses, so test files running in parallel in the
 * same process never see each other's variables.
 */
export function uniquePrefix(): string {
  counter++;
  return `KT${process.pid}X${counter}${
    Math.random().toString(36).slice(2, 6).toUpperCase()
  }`;
}
