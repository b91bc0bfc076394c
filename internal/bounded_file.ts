// The one way Kit reads a file: a regular file only, at most `limit` bytes,
// within `timeout` ms. Every reader of files (configuration files and
// `_FILE` secrets, translation files, the doctor's project files) goes
// through here and turns these errors into its own.
//
// - A FIFO, a device, a socket or a folder is refused before a byte is
//   read: opening a FIFO for reading waits for a writer for ever, and a
//   device such as /dev/zero never ends.
// - The bytes are counted as they are read, so a file that grows, or
//   reports a wrong size, still stops one byte past the limit.
// - `node:fs/promises` is imported when the first file is read, so a module
//   that imports this one pulls nothing of `node:` into a page that never
//   reads a file. It works in Deno, Node.js and Bun alike.
import { unrefTimer } from "./unref_timer.ts";

/** What stood at a path that is not a regular file. */
export type FileKind = "a folder" | "a FIFO" | "a socket" | "a device";

/** The path names something other than a regular file; nothing was read. */
export class NotRegularFileError extends Error {
  /** The path as given. */
  readonly path: string;
  /** What is there. */
  readonly kind: FileKind;

  /**
   * Creates the error.
   *
   * @param path The path as given.
   * @param kind What is there.
   */
  constructor(path: string, kind: FileKind) {
    super(`${path} is not a regular file (${kind}); name a regular file`);
    this.name = "NotRegularFileError";
    this.path = path;
    this.kind = kind;
  }
}

/** The file is larger than the limit; reading stopped there. */
export class FileTooLargeError extends Error {
  /** The path as given. */
  readonly path: string;
  /** The limit in bytes. */
  readonly limit: number;
  /**
   * The file's size (when {@linkcode declared}), else the bytes read when
   * reading stopped (one past the limit).
   */
  readonly size: number;
  /** Whether `size` is the size the file system reported before reading. */
  readonly declared: boolean;

  /**
   * Creates the error.
   *
   * @param path The path as given.
   * @param limit The limit in bytes.
   * @param size The reported size, or the bytes read.
   * @param declared Whether `size` was reported before reading.
   */
  constructor(path: string, limit: number, size: number, declared: boolean) {
    super(
      `${path} is larger than the limit of ${limit} bytes: ${
        declared ? `it has ${size} bytes` : `more than ${limit} bytes were read`
      }`,
    );
    this.name = "FileTooLargeError";
    this.path = path;
    this.limit = limit;
    this.size = size;
    this.declared = declared;
  }
}

/** The file system did not finish the read in time. */
export class FileReadTimeoutError extends Error {
  /** The path as given. */
  readonly path: string;
  /** The timeout in milliseconds. */
  readonly timeout: number;

  /**
   * Creates the error.
   *
   * @param path The path as given.
   * @param timeout The timeout in milliseconds.
   */
  constructor(path: string, timeout: number) {
    super(`${path} could not be read within ${timeout} ms`);
    this.name = "FileReadTimeoutError";
    this.path = path;
    this.timeout = timeout;
  }
}

/** How {@linkcode readBoundedFile} reads. */
export interface BoundedFileOptions {
  /** The most bytes read; more is a {@linkcode FileTooLargeError}. */
  readonly limit: number;
  /**
   * Milliseconds the whole read may take (a hung network mount); more is a
   * {@linkcode FileReadTimeoutError}. Default: no timeout.
   */
  readonly timeout?: number;
}

type NodeFs = typeof import("node:fs/promises");
let fsModule: Promise<NodeFs> | undefined;

const CHUNK = 64 * 1024;

/**
 * Reads a regular file of at most `limit` bytes.
 *
 * @param path The file's path.
 * @param options The limit in bytes, and a timeout.
 * @returns The file's bytes.
 * @throws {NotRegularFileError} When the path names a folder, a FIFO, a
 * socket or a device (nothing is read, nothing waits).
 * @throws {FileTooLargeError} When the file has more than `limit` bytes.
 * @throws {FileReadTimeoutError} When the read takes longer than `timeout`.
 * @throws {Error} What the file system threw (with its `code`, such as
 * `ENOENT` for a missing file or `EACCES`).
 *
 * @example Usage
 * ```ts
 * import { readBoundedFile } from "./bounded_file.ts";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello");
 * const bytes = await readBoundedFile(path, { limit: 1024 });
 * console.log(new TextDecoder().decode(bytes)); // "hello"
 * await Deno.remove(path);
 * ```
 */
export function readBoundedFile(
  path: string,
  options: BoundedFileOptions,
): Promise<Uint8Array> {
  const { limit, timeout } = options;
  if (timeout === undefined) return readBytes(path, limit);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // Unref'd: a pending read never keeps the process alive. A read still
    // in flight at the timeout closes its file when it ends.
    const timer = unrefTimer(
      setTimeout(
        () => reject(new FileReadTimeoutError(path, timeout)),
        timeout,
      ),
    );
    readBytes(path, limit).then(
      (bytes) => {
        // A busy event loop can run the read's completion before the timer
        // that was due first; the limit is the same either way.
        if (performance.now() - started > timeout) {
          reject(new FileReadTimeoutError(path, timeout));
        } else resolve(bytes);
      },
      reject,
    ).finally(() => clearTimeout(timer));
  });
}

/**
 * Reads a regular file of at most `limit` bytes as UTF-8 text; a byte that
 * is not UTF-8 becomes U+FFFD, as `readFile(path, "utf8")` does.
 *
 * @param path The file's path.
 * @param options The limit in bytes, and a timeout.
 * @returns The file's text.
 * @throws {NotRegularFileError} When the path is not a regular file.
 * @throws {FileTooLargeError} When the file has more than `limit` bytes.
 * @throws {FileReadTimeoutError} When the read takes longer than `timeout`.
 * @throws {Error} What the file system threw (`ENOENT`…).
 *
 * @example Usage
 * ```ts
 * import { readBoundedTextFile } from "./bounded_file.ts";
 *
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "grüß");
 * console.log(await readBoundedTextFile(path, { limit: 1024 })); // "grüß"
 * await Deno.remove(path);
 * ```
 */
export async function readBoundedTextFile(
  path: string,
  options: BoundedFileOptions,
): Promise<string> {
  return new TextDecoder().decode(await readBoundedFile(path, options));
}

async function readBytes(path: string, limit: number): Promise<Uint8Array> {
  fsModule ??= import("node:fs/promises");
  const fs = await fsModule;
  const { constants } = fs;
  // O_NONBLOCK: opening a FIFO returns at once (it is refused below)
  // instead of waiting for a writer for ever; it changes nothing for a
  // regular file. Windows has no such flag and no FIFOs to open this way.
  const handle = await fs.open(
    path,
    constants.O_RDONLY | (constants.O_NONBLOCK ?? 0),
  );
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
    const { size } = stats;
    if (size > limit) throw new FileTooLargeError(path, limit, size, true);
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      // The size the file reported (a chunk when it says 0, as files under
      // /proc do), never more than one byte past the limit.
      const chunk = new Uint8Array(
        Math.min(Math.max(size - total, CHUNK), limit - total + 1),
      );
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > limit) {
        throw new FileTooLargeError(path, limit, total, false);
      }
      chunks.push(
        bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead),
      );
    }
    return join(chunks, total);
  } finally {
    await handle.close().catch(() => {});
  }
}

function kindOf(stats: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}): FileKind {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  return "a device";
}

function join(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
