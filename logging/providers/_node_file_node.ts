// Runtime adapter of FileLogProvider: the only file of the logging package
// that touches the file system. It is loaded with a dynamic import the first
// time a FileLogProvider writes, so a browser bundle of logging/mod.ts never
// pulls `node:` modules. `node:fs` works alike in Deno, Node.js and Bun.
//
// Why not @logtape/file's getRotatingFileSink: checked against Kit's
// requirements (LogTape 2.4 / @logtape/file 2.3) it keeps `maxFiles + 1` files
// (`app.log` plus `app.log.1` … `app.log.<maxFiles>`); it checks the size per
// flushed buffer, not per entry, so files end up several times `maxSize`
// (a whole buffer of several KiB lands in a file limited to 1000 bytes); a single large
// entry rotates an empty file away; it cannot flush without being disposed
// (so LoggerManager.flush() could not reach the last byte); it fsyncs on every
// buffer flush, which throttles writing far more than a log file needs; and it does not create
// the folder. FileLogProvider therefore does the rotation itself, per entry,
// on top of these few file operations.
import type * as NodeFs from "node:fs";
import type * as NodePath from "node:path";
import type { Buffer as NodeBuffer } from "node:buffer";

// The built-in modules are loaded with the first file opened, not with this
// module: the npm build bundles this file into the package, which would hoist
// static imports to the package's top level, and importing node:fs as an ES
// module lengthens every Node.js cold start (its namespace reads
// `fs.promises`, which loads the promise API and streams).
let fs: typeof NodeFs;
let nodePath: typeof NodePath;
let Buffer: typeof NodeBuffer;

async function loadBuiltins(): Promise<void> {
  if (fs !== undefined) return;
  const [fsModule, pathModule, bufferModule] = await Promise.all([
    import("node:fs"),
    import("node:path"),
    import("node:buffer"),
  ]);
  fs = fsModule;
  nodePath = pathModule;
  Buffer = bufferModule.Buffer;
}

/** An open log file that knows its size and how to rotate. */
export interface LogFile {
  /** Bytes in the current file. */
  readonly size: number;
  /** UTF-8 length of a text. */
  byteLength(text: string): number;
  /** Appends text; resolves when every byte is handed to the OS. */
  write(text: string): Promise<void>;
  /**
   * `app.log` → `app.log.1` → … → `app.log.<maxFiles-1>`, then a new file.
   * Rotated files numbered `maxFiles` or more are deleted (the limit may be
   * lower than when the file was opened, after a reload).
   */
  rotate(maxFiles: number): Promise<void>;
  /** Closes the file; with `sync`, asks the OS to store it first. */
  close(sync: boolean): Promise<void>;
}

function call<T>(
  run: (done: (error: Error | null, value?: T) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    run((error, value) => (error ? reject(error) : resolve(value as T)));
  });
}

function isMissing(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "ENOENT";
}

async function ignoreMissing(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/**
 * Opens (creating the folder and the file) a log file for appending, and
 * deletes rotated files numbered `maxFiles` or more left by an earlier run
 * with a larger `maxFiles`, so the count limit holds from the start.
 */
export async function openLogFile(
  path: string,
  maxFiles: number,
): Promise<LogFile> {
  await loadBuiltins();
  const folder = nodePath.dirname(path);
  await call<string | undefined>((done) =>
    fs.mkdir(folder, { recursive: true }, done)
  );
  const base = nodePath.basename(path) + ".";
  const names = await call<string[]>((done) => fs.readdir(folder, done));
  let highest = 0;
  for (const name of names) {
    if (!name.startsWith(base)) continue;
    const suffix = name.slice(base.length);
    if (!/^[1-9][0-9]*$/.test(suffix)) continue;
    const index = Number(suffix);
    if (index >= maxFiles) {
      await ignoreMissing(call((done) => fs.unlink(`${path}.${suffix}`, done)));
    } else if (index > highest) highest = index;
  }
  const [fd, size] = await openAppend(path);
  return new NodeLogFile(path, fd, size, highest);
}

// Opens the file for appending (and reading its last byte). A file that does
// not end with a line break was cut in the middle of a line (the process
// died during a write): a line break first, so the fragment stays a line of
// its own and the first new entry is whole on the next one.
async function openAppend(path: string): Promise<[number, number]> {
  const fd = await call<number>((done) => fs.open(path, "a+", done));
  try {
    const stats = await call<{ size: number }>((done) => fs.fstat(fd, done));
    let size = stats.size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await call<number>((done) => fs.read(fd, last, 0, 1, size - 1, done));
      if (last[0] !== 0x0a) {
        const newline = Buffer.from("\n");
        await call<number>((done) => fs.write(fd, newline, 0, 1, null, done));
        size += 1;
      }
    }
    return [fd, size];
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

class NodeLogFile implements LogFile {
  readonly #path: string;
  #fd: number;
  #size: number;
  // Highest rotated index on disk, so a rotation renames only what exists
  // instead of probing every index up to maxFiles.
  #highest: number;

  constructor(
    path: string,
    fd: number,
    size: number,
    highest: number,
  ) {
    this.#path = path;
    this.#fd = fd;
    this.#size = size;
    this.#highest = highest;
  }

  get size(): number {
    return this.#size;
  }

  byteLength(text: string): number {
    return Buffer.byteLength(text, "utf8");
  }

  async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, "utf8");
    let offset = 0;
    while (offset < bytes.length) {
      const written = await call<number>((done) =>
        fs.write(this.#fd, bytes, offset, bytes.length - offset, null, done)
      );
      offset += written;
      this.#size += written;
    }
  }

  async rotate(maxFiles: number): Promise<void> {
    const path = this.#path;
    await call((done) => fs.close(this.#fd, done));
    this.#fd = -1;
    const last = Math.max(maxFiles - 1, 0);
    for (let i = this.#highest; i >= Math.max(last, 1); i--) {
      await ignoreMissing(call((done) => fs.unlink(`${path}.${i}`, done)));
    }
    this.#highest = Math.min(this.#highest, last);
    if (maxFiles <= 1) {
      await ignoreMissing(call((done) => fs.unlink(path, done)));
    } else {
      for (let i = Math.min(this.#highest, last - 1); i >= 1; i--) {
        await ignoreMissing(
          call((done) => fs.rename(`${path}.${i}`, `${path}.${i + 1}`, done)),
        );
      }
      await ignoreMissing(call((done) => fs.rename(path, `${path}.1`, done)));
      this.#highest = Math.min(this.#highest + 1, last);
    }
    const [fd, size] = await openAppend(path);
    this.#fd = fd;
    this.#size = size;
  }

  async close(sync: boolean): Promise<void> {
    const fd = this.#fd;
    if (fd < 0) return;
    this.#fd = -1;
    if (sync) {
      try {
        await call((done) => fs.fsync(fd, done));
      } catch {
        // Best effort: some file systems do not support fsync.
      }
    }
    await call((done) => fs.close(fd, done));
  }
}
