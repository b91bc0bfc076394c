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
  // Chunks are kept as they are and decoded once at the end, like
  // response.text() does: a body refused half way then costs its bytes only.
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      chunks.length = 0;
      const error = tooLarge(response, limit, received, false, origin);
      reader.cancel(error).catch(() => {});
      throw error;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return new TextDecoder().decode(chunks[0]);
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
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
