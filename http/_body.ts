// Reading response bodies within maxResponseSize, through Kit's bounded body
// reader (internal/bounded_body.ts): a Content-Length above the limit fails
// before anything is read; a body without one (chunked, or compressed, whose
// Content-Length is not the decoded size) is counted while it is read and
// cancelled as soon as it passes the limit. Its BodyTooLargeError becomes a
// ResponseTooLargeError.
import { readBodyText } from "../internal/bounded_body.ts";
import { describeErrorBody } from "./_error_body.ts";
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
  return readBodyText(response, {
    limit: limit <= 0 ? Infinity : limit,
    url: origin.url,
    tooLarge: (error) =>
      tooLarge(response, limit, error.size, error.declared, origin),
  });
}

/** Reads a non-success response within `limit` and builds its HttpError. */
export async function httpErrorOf(
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
