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
  // The bytes go into one buffer of our own that grows by doubling up to
  // limit + 1, and are decoded once at the end, like response.text() does.
  // Keeping the chunks the runtime hands over would cost far more than their
  // bytes: a decompressing body comes in small views of much larger buffers
  // (a few KiB of each), and a kept view keeps its whole buffer alive. Where
  // the body is a byte stream (Deno, Node.js), the runtime reads straight
  // into our buffer, so it allocates no buffer per chunk either, which left
  // to the garbage collector would also pile up several times the limit.
  const sink = new GrowingBuffer(limit + 1);
  let byob: ReadableStreamBYOBReader | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    reader = body.getReader();
  }
  for (;;) {
    if (byob !== undefined) {
      const { done, value } = await byob.read(sink.space());
      // The last read, too, hands the (transferred) buffer back.
      if (value !== undefined) sink.filled(value);
      if (done) break;
    } else {
      const { done, value } = await reader!.read();
      if (done) break;
      sink.append(value);
    }
    if (sink.length > limit) {
      const size = sink.length;
      sink.release();
      const error = tooLarge(response, limit, size, false, origin);
      (byob ?? reader)!.cancel(error).catch(() => {});
      throw error;
    }
  }
  return new TextDecoder().decode(sink.bytes());
}

const FIRST_CAPACITY = 16 * 1024;

/**
 * Bytes collected into one buffer that doubles when full, never beyond
 * `max`: what a body costs is about its size (1.5 times it while the last
 * doubling copies), whatever the chunks it came in.
 */
class GrowingBuffer {
  #buffer: ArrayBuffer;
  #length = 0;
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
    this.#buffer = new ArrayBuffer(Math.min(max, FIRST_CAPACITY));
  }

  get length(): number {
    return this.#length;
  }

  /** The free end of the buffer, grown first when there is none. */
  space(): Uint8Array<ArrayBuffer> {
    if (this.#length === this.#buffer.byteLength) this.#grow(this.#length + 1);
    return new Uint8Array(
      this.#buffer,
      this.#length,
      this.#buffer.byteLength - this.#length,
    );
  }

  /** Takes back the buffer a BYOB read filled (the read transfers it). */
  filled(view: Uint8Array<ArrayBuffer>): void {
    this.#buffer = view.buffer;
    this.#length += view.byteLength;
  }

  /** Copies a chunk in (as much of it as fits under `max`). */
  append(chunk: Uint8Array): void {
    const room = this.#max - this.#length;
    const part = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    const end = this.#length + part.byteLength;
    if (end > this.#buffer.byteLength) this.#grow(end);
    new Uint8Array(this.#buffer).set(part, this.#length);
    // Counted whole: what arrived, even past `max`.
    this.#length += chunk.byteLength;
  }

  bytes(): Uint8Array {
    return new Uint8Array(this.#buffer, 0, this.#length);
  }

  /** Lets the bytes go at once (a refused body). */
  release(): void {
    this.#buffer = new ArrayBuffer(0);
    this.#length = 0;
  }

  #grow(needed: number): void {
    let capacity = this.#buffer.byteLength * 2;
    while (capacity < needed) capacity *= 2;
    const next = new Uint8Array(Math.min(capacity, this.#max));
    next.set(new Uint8Array(this.#buffer, 0, this.#length));
    this.#buffer = next.buffer;
  }
}

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
