// Reading response bodies within maxResponseSize: a Content-Length above the
// limit fails before anything is read; a body without one (chunked, or
// compressed, whose Content-Length is not the decoded size) is counted while
// it is read and cancelled as soon as it passes the limit.
import { describeErrorBody } from "./_error_body.ts";
import { discard } from "./_retry.ts";
import { HttpError } from "./http_error.ts";
import { ResponseTooLargeError } from "./response_too_large_error.ts";

/** The request a body belongs to, for the errors. */
export interface BodyOrigin {
  method: string;
  url: string;
  requestId: string | undefined;
}

/**
 * Reads the body as text; `limit` 0 reads it whole. Not async itself: a body
 * whose declared size fits is the runtime's `text()` promise as it is, with
 * no extra promise layer.
 *
 * @throws {ResponseTooLargeError} When the body is larger than `limit`.
 */
export function readText(
  response: Response,
  limit: number,
  origin: BodyOrigin,
): Promise<string> {
  // response.body is read only when the size is unknown: for a body the
  // runtime holds in memory, reading it would make a stream of it.
  if (limit <= 0) return response.text();
  const headers = response.headers;
  const length = headers.get("content-length");
  if (length !== null && DIGITS.test(length)) {
    const encoding = headers.get("content-encoding");
    if (encoding === null || IDENTITY.test(encoding)) {
      const size = Number(length);
      if (size > limit) {
        return refuse(response, tooLarge(response, limit, size, true, origin));
      }
      return response.text();
    }
  }
  return readCounted(response, limit, origin);
}

const DIGITS = /^\d+$/;
const IDENTITY = /^\s*(identity)?\s*$/i;

async function refuse(
  response: Response,
  error: ResponseTooLargeError,
): Promise<never> {
  await discard(response);
  throw error;
}

/** Reads a body of unknown size, counting the bytes against `limit`. */
async function readCounted(
  response: Response,
  limit: number,
  origin: BodyOrigin,
): Promise<string> {
  const body = response.body;
  if (body === null) return "";
  // The bytes are kept in blocks and decoded once at the end, like
  // response.text() does: a body refused half way then costs its bytes only.
  // But never as the runtime hands them over: a decompressing body comes in
  // small views of much larger buffers (a few KiB of each), and a kept view
  // keeps its whole buffer alive. Where the body is a byte stream (Deno,
  // Node.js), the runtime reads into blocks of ours, each filled before the
  // next, so it allocates no buffer per chunk either, which the garbage
  // collector would let pile up to several times the limit; elsewhere a
  // small view is copied out of its buffer.
  const blocks: Uint8Array[] = [];
  let received = 0;
  let byob: ReadableStreamBYOBReader | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    reader = body.getReader();
  }
  for (;;) {
    let chunk: Uint8Array;
    let done = false;
    if (byob !== undefined) {
      // Never more than one byte past the limit: enough to refuse the body.
      let buffer = new ArrayBuffer(Math.min(limit + 1 - received, BLOCK_SIZE));
      let filled = 0;
      while (filled < buffer.byteLength) {
        const result = await byob.read(new Uint8Array(buffer, filled));
        // The read transfers the buffer; the last one hands it back too.
        if (result.value !== undefined) {
          buffer = result.value.buffer as ArrayBuffer;
          filled += result.value.byteLength;
        }
        if (result.done) {
          done = true;
          break;
        }
      }
      chunk = new Uint8Array(buffer, 0, filled);
    } else {
      const result = await reader!.read();
      if (result.done) break;
      chunk = result.value;
      if (chunk.byteLength < chunk.buffer.byteLength / 2) chunk = chunk.slice();
    }
    received += chunk.byteLength;
    if (received > limit) {
      blocks.length = 0;
      const error = tooLarge(response, limit, received, false, origin);
      (byob ?? reader)!.cancel(error).catch(() => {});
      throw error;
    }
    if (chunk.byteLength > 0) blocks.push(chunk);
    if (done) break;
  }
  if (blocks.length === 1) return new TextDecoder().decode(blocks[0]);
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const block of blocks) {
    bytes.set(block, offset);
    offset += block.byteLength;
  }
  blocks.length = 0;
  return new TextDecoder().decode(bytes);
}

/** Bytes of one block of a body read into blocks of the client's own. */
const BLOCK_SIZE = 64 * 1024;

/** Reads a non-success response within `limit` and builds its HttpError. */
export async function errorOf(
  response: Response,
  limit: number,
  origin: BodyOrigin,
): Promise<HttpError> {
  let text = "";
  try {
    text = await readText(response, limit, origin);
  } catch (error) {
    if (error instanceof ResponseTooLargeError) throw error;
    // A body that cannot be read leaves the status text as the message.
  }
  const { body, message } = describeErrorBody(
    text,
    response.status,
    response.statusText,
  );
  return new HttpError(response.status, message, {
    requestId: origin.requestId,
    method: origin.method,
    url: origin.url,
    body,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function tooLarge(
  response: Response,
  limit: number,
  size: number,
  declared: boolean,
  origin: BodyOrigin,
): ResponseTooLargeError {
  return new ResponseTooLargeError(response.status, {
    limit,
    size,
    declared,
    method: origin.method,
    url: origin.url,
    requestId: origin.requestId,
    statusText: response.statusText,
    headers: response.headers,
  });
}
