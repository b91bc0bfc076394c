// The one way Kit reads a response body: counted as it arrives and stopped
// at a limit, in every runtime (Deno, Node.js, Bun, browsers). Every reader
// of bodies (the HTTP client, a configuration URL, translations over HTTP,
// the answers of log, OTLP and analytics collectors, the doctor's service
// checks) goes through here and turns BodyTooLargeError into its own error.
//
// - A Content-Length above the limit is refused before a byte is read.
// - A body without one (chunked, or compressed: its Content-Length is not
//   the decoded size) is counted while it is read, and cancelled once it
//   passes the limit, which also closes the connection instead of
//   draining it.
// - The bytes are kept in blocks of our own and decoded once at the end,
//   like Response.text() does: a body refused half way costs its bytes
//   only. Never as the runtime hands them over: a decompressing body comes
//   in small views of much larger buffers, and a kept view keeps its whole
//   buffer alive. Where the body is a byte stream (Deno, Node.js) the
//   runtime reads into our blocks, each filled before the next; elsewhere
//   a small view is copied out of its buffer.
import { maskSecretText } from "../core/mod.ts";

/** The body was larger than the limit; the rest of it was cancelled. */
export class BodyTooLargeError extends Error {
  /** The address, with its password and secret query values masked. */
  readonly url: string;
  /** The limit in bytes. */
  readonly limit: number;
  /**
   * The declared Content-Length (when {@linkcode declared}), else the bytes
   * that had arrived when reading stopped.
   */
  readonly size: number;
  /** Whether `size` is the Content-Length the response declared. */
  readonly declared: boolean;

  /**
   * Creates the error.
   *
   * @param url The address the body came from (masked here).
   * @param limit The limit in bytes.
   * @param size The declared size, or the bytes that arrived.
   * @param declared Whether `size` is the declared Content-Length.
   */
  constructor(url: string, limit: number, size: number, declared: boolean) {
    const shown = maskSecretText(url);
    super(
      `The body from ${shown} is larger than the limit of ${limit} bytes: ${
        declared
          ? `its Content-Length is ${size} bytes`
          : `more than ${limit} bytes arrived`
      }`,
    );
    this.name = "BodyTooLargeError";
    this.url = shown;
    this.limit = limit;
    this.size = size;
    this.declared = declared;
  }
}

/** How a body is read. */
export interface BoundedBodyOptions {
  /** The most bytes read; `Infinity` reads the whole body. */
  readonly limit: number;
  /** The address, for the error. Default: the response's `url`. */
  readonly url?: string;
  /**
   * Stops the read: the body is cancelled and the read rejects with the
   * signal's reason.
   */
  readonly signal?: AbortSignal;
  /**
   * Builds the error thrown in place of a {@linkcode BodyTooLargeError}
   * (a module's own), so that no extra promise layer is needed to swap it.
   */
  readonly tooLarge?: (error: BodyTooLargeError) => Error;
}

/**
 * The body as text (UTF-8, like `Response.text()`), at most `limit` bytes.
 * Not async itself: a body whose declared size fits (no content coding, so
 * the runtime holds it to that size) is the runtime's own `text()`.
 *
 * @param response The response whose body to read.
 * @param options The limit, the address for the error, a signal.
 * @returns The text.
 * @throws {BodyTooLargeError} When the body is larger than the limit (the
 * body is cancelled), or what `tooLarge` builds from it.
 * @throws {Error} What reading the body threw, or the signal's reason.
 *
 * @example Usage
 * ```ts
 * import { BodyTooLargeError, readBodyText } from "./bounded_body.ts";
 *
 * const small = new Response("hello");
 * console.log(await readBodyText(small, { limit: 1024 })); // "hello"
 *
 * const big = new Response("x".repeat(2048));
 * try {
 *   await readBodyText(big, { limit: 1024, url: "https://example.com/a" });
 * } catch (error) {
 *   console.log(error instanceof BodyTooLargeError); // true
 * }
 * ```
 */
export function readBodyText(
  response: Response,
  options: BoundedBodyOptions,
): Promise<string> {
  const declared = declaredSize(response);
  if (options.signal === undefined && declared !== undefined) {
    if (declared > options.limit) {
      return refuse(response, options, declared);
    }
    return response.text();
  }
  if (options.limit === Infinity && options.signal === undefined) {
    return response.text();
  }
  return readBodyBytes(response, options).then((bytes) =>
    new TextDecoder().decode(bytes)
  );
}

/**
 * The body's bytes, at most `limit`.
 *
 * @param response The response whose body to read.
 * @param options The limit, the address for the error, a signal.
 * @returns The bytes.
 * @throws {BodyTooLargeError} When the body is larger than the limit (the
 * body is cancelled), or what `tooLarge` builds from it.
 * @throws {Error} What reading the body threw, or the signal's reason.
 *
 * @example Usage
 * ```ts
 * import { readBodyBytes } from "./bounded_body.ts";
 *
 * const bytes = await readBodyBytes(new Response("abc"), { limit: 16 });
 * console.log(bytes.length); // 3
 * ```
 */
export async function readBodyBytes(
  response: Response,
  options: BoundedBodyOptions,
): Promise<Uint8Array> {
  const declared = declaredSize(response);
  if (declared !== undefined && declared > options.limit) {
    return await refuse(response, options, declared);
  }
  const { bytes, over } = await collect(response, options.limit, options);
  if (over !== undefined) {
    throw failure(
      options,
      new BodyTooLargeError(
        options.url ?? response.url,
        options.limit,
        over,
        false,
      ),
    );
  }
  return bytes;
}

/**
 * The start of the body: at most `limit` bytes, decoded, the rest
 * cancelled. Never throws: a body that fails to read (the connection broke,
 * the signal aborted) gives what arrived before.
 *
 * @param response The response whose body to read.
 * @param limit The most bytes read.
 * @param signal Stops the read early.
 * @returns The text and whether the body was longer.
 *
 * @example Usage
 * ```ts
 * import { readBodyStart } from "./bounded_body.ts";
 *
 * const start = await readBodyStart(new Response("abcdef"), 4);
 * console.log(start.text, start.truncated); // "abcd" true
 * ```
 */
export async function readBodyStart(
  response: Response,
  limit: number,
  signal?: AbortSignal,
): Promise<{ text: string; truncated: boolean }> {
  const { bytes, over } = await collect(response, limit, { signal }, true);
  return {
    text: new TextDecoder().decode(bytes),
    truncated: over !== undefined,
  };
}

/** The Content-Length of a body without content coding, if it has one. */
function declaredSize(response: Response): number | undefined {
  const headers = response.headers;
  const length = headers.get("content-length");
  if (length === null || !DIGITS.test(length)) return undefined;
  const encoding = headers.get("content-encoding");
  return encoding === null || IDENTITY.test(encoding)
    ? Number(length)
    : undefined;
}

const DIGITS = /^\d+$/;
const IDENTITY = /^\s*(identity)?\s*$/i;

async function refuse(
  response: Response,
  options: BoundedBodyOptions,
  declared: number,
): Promise<never> {
  const error = new BodyTooLargeError(
    options.url ?? response.url,
    options.limit,
    declared,
    true,
  );
  if (response.body !== null && !response.bodyUsed) {
    await response.body.cancel(error).catch(() => {});
  }
  throw failure(options, error);
}

function failure(options: BoundedBodyOptions, error: BodyTooLargeError): Error {
  return options.tooLarge?.(error) ?? error;
}

/** Bytes of one block of a body read into blocks of our own. */
const BLOCK_SIZE = 64 * 1024;

/**
 * Reads up to one byte past `limit`: `over` is the bytes that had arrived
 * when the body passed it (the body is then cancelled). With `lenient`, a
 * failing read ends the body instead of throwing, and the bytes kept are cut
 * at the limit.
 */
async function collect(
  response: Response,
  limit: number,
  options: { readonly signal?: AbortSignal },
  lenient = false,
): Promise<{ bytes: Uint8Array; over: number | undefined }> {
  const body = response.body;
  if (body === null) return { bytes: new Uint8Array(0), over: undefined };
  const blocks: Uint8Array[] = [];
  let received = 0;
  let over: number | undefined;
  let byob: ReadableStreamBYOBReader | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // The start of a body is small; read as the runtime hands it over, a
  // failing read keeps what arrived (a block of ours given to a read that
  // fails is lost with it).
  try {
    if (!lenient) byob = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream.
  }
  if (byob === undefined) reader = body.getReader();
  const active = (byob ?? reader)!;
  const signal = options.signal;
  const onAbort = (): void => {
    active.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) throw signal.reason;
    for (;;) {
      let chunk: Uint8Array;
      let done = false;
      if (byob !== undefined) {
        // Never more than one byte past the limit: enough to know.
        let buffer = new ArrayBuffer(
          Math.min(limit + 1 - received, BLOCK_SIZE),
        );
        let filled = 0;
        while (filled < buffer.byteLength) {
          const result = await byob.read(new Uint8Array(buffer, filled));
          // The read transfers the buffer; the last one hands it back too,
          // but not one ended by a cancel (the signal's).
          if (result.value === undefined) {
            throw signal?.reason ?? new Error("the body was cancelled");
          }
          buffer = result.value.buffer as ArrayBuffer;
          filled += result.value.byteLength;
          if (result.done) {
            done = true;
            break;
          }
        }
        chunk = new Uint8Array(buffer, 0, filled);
      } else {
        const result = await reader!.read();
        if (result.done) {
          done = true;
          chunk = new Uint8Array(0);
        } else {
          chunk = result.value;
          if (chunk.byteLength < chunk.buffer.byteLength / 2) {
            chunk = chunk.slice();
          }
        }
      }
      // A cancel by the signal ends the stream: the read did not finish.
      if (signal?.aborted) throw signal.reason;
      received += chunk.byteLength;
      if (received > limit) {
        over = received;
        // The start keeps what fits; a refused body keeps nothing.
        if (lenient) {
          blocks.push(chunk.subarray(0, chunk.byteLength - (received - limit)));
        } else blocks.length = 0;
        active.cancel().catch(() => {});
        break;
      }
      if (chunk.byteLength > 0) blocks.push(chunk);
      if (done) break;
    }
  } catch (error) {
    active.cancel().catch(() => {});
    if (!lenient) throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return { bytes: concat(blocks), over };
}

function concat(blocks: Uint8Array[]): Uint8Array {
  if (blocks.length === 1) return blocks[0];
  let total = 0;
  for (const block of blocks) total += block.byteLength;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const block of blocks) {
    bytes.set(block, offset);
    offset += block.byteLength;
  }
  blocks.length = 0;
  return bytes;
}
