// The file-system adapter: every file access of the configuration package
// goes through here, through dynamic imports of `node:` modules, so a browser
// bundle of config/mod.ts pulls none of them. `node:` modules work in Deno,
// Node.js and Bun alike.
import { ConfigurationSourceError } from "./configuration_source_error.ts";
import { unrefTimer } from "../internal/unref_timer.ts";
import { DEFAULT_MAX_FILE_SIZE, DEFAULT_READ_TIMEOUT } from "./_limits.ts";
import { getEnvironmentVariable } from "#config/environment";

type PathModule = typeof import("node:path");

async function modules(source: string): Promise<{
  fs: typeof import("node:fs/promises");
  constants: typeof import("node:fs").constants;
  path: PathModule;
  process: typeof import("node:process");
}> {
  try {
    const [fs, { constants }, path, process] = await Promise.all([
      import("node:fs/promises"),
      import("node:fs"),
      import("node:path"),
      import("node:process"),
    ]);
    return { fs, constants, path, process };
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
 * Reads a text file as strict UTF-8, at most `maxFileSize` bytes, within
 * `readTimeout` ms; `undefined` when it does not exist.
 *
 * @throws {ConfigurationSourceError} when it exists but is not a regular
 * file, cannot be read (in time), is larger than `maxFileSize`, or is not
 * valid UTF-8 (naming the byte offset).
 */
export async function readTextFile(
  absolutePath: string,
  source: string,
  maxFileSize: number = DEFAULT_MAX_FILE_SIZE,
  readTimeout: number = DEFAULT_READ_TIMEOUT,
): Promise<string | undefined> {
  const bytes = await readBytesWithin(
    absolutePath,
    source,
    maxFileSize,
    readTimeout,
  );
  if (bytes === undefined) return undefined;
  if (bytes === TOO_LARGE) {
    throw new ConfigurationSourceError(
      `Configuration file ${absolutePath} is larger than the limit of ${
        describeSize(maxFileSize)
      } (maxFileSize); make the file smaller or raise the provider's maxFileSize option`,
      { source, path: absolutePath },
    );
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    throw new ConfigurationSourceError(
      `Configuration file ${absolutePath} is not valid UTF-8: byte 0x${
        bytes[offset].toString(16).padStart(2, "0")
      } at byte offset ${offset} does not begin a valid UTF-8 character; save the file as UTF-8`,
      { source, path: absolutePath },
    );
  }
}

const TOO_LARGE = "too large";
const CHUNK = 64 * 1024;

// readBytes within `readTimeout` ms: a file system that stops answering (a
// hung network mount) fails the load, naming the path, instead of holding it
// for ever. The timer is unref'd, so it never keeps the process alive; a read
// still in flight closes its file when it ends.
function readBytesWithin(
  absolutePath: string,
  source: string,
  maxFileSize: number,
  readTimeout: number,
): Promise<Uint8Array | undefined | typeof TOO_LARGE> {
  const late = (): ConfigurationSourceError =>
    new ConfigurationSourceError(
      `Configuration file ${absolutePath} could not be read within ${readTimeout} ms (readTimeout); check the file system it is on, or raise the provider's readTimeout option`,
      { source, path: absolutePath },
    );
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const timer = unrefTimer(setTimeout(() => reject(late()), readTimeout));
    readBytes(absolutePath, source, maxFileSize).then(
      (bytes) => {
        // A busy event loop can run the read's completion before the timer
        // that was due first; the limit is the same either way.
        if (performance.now() - started > readTimeout) reject(late());
        else resolve(bytes);
      },
      reject,
    ).finally(() => clearTimeout(timer));
  });
}

// The file's bytes, read in chunks so a file that grows (or reports a wrong
// size) still stops at the limit: `undefined` when missing, TOO_LARGE past
// `maxFileSize` bytes.
async function readBytes(
  absolutePath: string,
  source: string,
  maxFileSize: number,
): Promise<Uint8Array | undefined | typeof TOO_LARGE> {
  const { fs, constants } = await modules(source);
  let handle: Awaited<ReturnType<typeof fs.open>>;
  try {
    // O_NONBLOCK: opening a FIFO returns at once (it is refused below)
    // instead of waiting for a writer for ever; it changes nothing for a
    // regular file. Windows has no such flag and no FIFOs to open this way.
    handle = await fs.open(
      absolutePath,
      constants.O_RDONLY | (constants.O_NONBLOCK ?? 0),
    );
  } catch (cause) {
    return unreadable(cause, absolutePath, source);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      return unreadable(
        Object.assign(new Error("EISDIR"), { code: "EISDIR" }),
        absolutePath,
        source,
      );
    }
    if (!stats.isFile()) {
      throw new ConfigurationSourceError(
        `Configuration file ${absolutePath} is not a regular file (${
          kindOf(stats)
        }); name a regular file`,
        { source, path: absolutePath },
      );
    }
    const { size } = stats;
    if (size > maxFileSize) return TOO_LARGE;
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const chunk = new Uint8Array(
        Math.min(Math.max(size - total, CHUNK), maxFileSize - total + 1),
      );
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxFileSize) return TOO_LARGE;
      chunks.push(
        bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead),
      );
    }
    if (chunks.length === 1) return chunks[0];
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return bytes;
  } catch (cause) {
    if (cause instanceof ConfigurationSourceError) throw cause;
    return unreadable(cause, absolutePath, source);
  } finally {
    await handle.close().catch(() => {});
  }
}

function kindOf(stats: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a file";
}

function unreadable(
  cause: unknown,
  absolutePath: string,
  source: string,
): undefined {
  const code = (cause as { code?: string }).code;
  if (code === "ENOENT" || code === "ENOTDIR") return undefined;
  throw new ConfigurationSourceError(
    `Configuration file ${absolutePath} could not be read (${
      code ?? (cause instanceof Error ? cause.message : String(cause))
    })`,
    { source, path: absolutePath, cause },
  );
}

function describeSize(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) && mib >= 1
    ? `${mib} MiB`
    : `${bytes} byte${bytes === 1 ? "" : "s"}`;
}

// The offset of the first byte that breaks UTF-8 (a stray continuation
// byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i];
    if (byte < 0x80) {
      i++;
      continue;
    }
    let length: number;
    let min: number;
    if (byte >= 0xc2 && byte <= 0xdf) [length, min] = [2, 0x80];
    else if (byte >= 0xe0 && byte <= 0xef) [length, min] = [3, 0x800];
    else if (byte >= 0xf0 && byte <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    let code = byte & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      code = (code << 6) | (next & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      return i;
    }
    i += length;
  }
  return Math.max(0, bytes.length - 1);
}

/**
 * What a watched file's content looks like for change detection: its text
 * (decoded leniently, at most `maxFileSize` bytes), a marker with its size
 * when larger, `undefined` when missing or unreadable.
 */
async function fingerprint(
  absolutePath: string,
  maxFileSize: number,
  readTimeout: number,
): Promise<string | undefined> {
  try {
    const bytes = await readBytesWithin(
      absolutePath,
      absolutePath,
      maxFileSize,
      readTimeout,
    );
    if (bytes === undefined) return undefined;
    if (bytes === TOO_LARGE) {
      const fs = await import("node:fs/promises");
      const { size, mtimeMs } = await fs.stat(absolutePath);
      return `\u0000${TOO_LARGE} ${size} ${mtimeMs}`;
    }
    return new TextDecoder().decode(bytes);
  } catch {
    return undefined;
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
  maxFileSize: number = DEFAULT_MAX_FILE_SIZE,
  readTimeout: number = DEFAULT_READ_TIMEOUT,
): () => Promise<void> {
  let last = initial;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inflight: Promise<void> | undefined;
  const tick = async (): Promise<void> => {
    const text = await fingerprint(absolutePath, maxFileSize, readTimeout);
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
