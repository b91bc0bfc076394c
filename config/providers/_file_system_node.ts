// The file-system adapter: every file access of the configuration package
// goes through here, through dynamic imports of `node:` modules, so a browser
// bundle of config/mod.ts pulls none of them. `node:` modules work in Deno,
// Node.js and Bun alike. Files are read by Kit's bounded file reader
// (internal/bounded_file.ts); its errors become ConfigurationSourceErrors.
import { ConfigurationSourceError } from "./configuration_source_error.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import {
  FileReadTimeoutError,
  FileTooLargeError,
  NotRegularFileError,
  readBoundedFile,
} from "../../internal/bounded_file.ts";
import {
  DEFAULT_MAX_FILE_SIZE,
  DEFAULT_READ_TIMEOUT,
  describeSize,
} from "../_limits.ts";
import { getEnvironmentVariable } from "#config/providers/environment";

type PathModule = typeof import("node:path");

async function modules(source: string): Promise<{
  path: PathModule;
  process: typeof import("node:process");
}> {
  try {
    const [path, process] = await Promise.all([
      import("node:path"),
      import("node:process"),
    ]);
    return { path, process };
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

// The file's bytes through Kit's bounded file reading (a regular file only,
// stopped one byte past the limit, within `readTimeout` ms): `undefined`
// when missing, TOO_LARGE past `maxFileSize` bytes.
async function readBytesWithin(
  absolutePath: string,
  source: string,
  maxFileSize: number,
  readTimeout: number,
): Promise<Uint8Array | undefined | typeof TOO_LARGE> {
  // Fails as the other file sources do where there is no file system.
  await modules(source);
  try {
    return await readBoundedFile(absolutePath, {
      limit: maxFileSize,
      timeout: readTimeout,
    });
  } catch (cause) {
    if (cause instanceof FileTooLargeError) return TOO_LARGE;
    if (cause instanceof FileReadTimeoutError) {
      throw new ConfigurationSourceError(
        `Configuration file ${absolutePath} could not be read within ${readTimeout} ms (readTimeout); check the file system it is on, or raise the provider's readTimeout option`,
        { source, path: absolutePath },
      );
    }
    if (cause instanceof NotRegularFileError) {
      if (cause.kind === "a folder") {
        return unreadable(
          Object.assign(new Error("EISDIR"), { code: "EISDIR" }),
          absolutePath,
          source,
        );
      }
      throw new ConfigurationSourceError(
        `Configuration file ${absolutePath} is not a regular file (${cause.kind}); name a regular file`,
        { source, path: absolutePath },
      );
    }
    return unreadable(cause, absolutePath, source);
  }
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
