// A translation resource's body, read by Kit's bounded body reader
// (internal/bounded_body.ts): an endless or oversized body (chunked, or
// with a Content-Length above the limit) stops at the limit instead of
// filling the memory, and comes back as a BodyTooLarge for the loader's
// LocalizationLoadError.
import {
  BodyTooLargeError,
  readBodyText,
} from "../../internal/bounded_body.ts";

/** The body was larger than the limit; `how` says how it showed. */
export class BodyTooLarge {
  constructor(readonly how: string) {}
}

/**
 * The body of `response` as text (UTF-8, like `Response.text()`), or a
 * {@linkcode BodyTooLarge} once more than `limit` bytes are declared or have
 * arrived (`0` = no limit). The body is cancelled when refused.
 */
export async function readBoundedText(
  response: Response,
  limit: number,
): Promise<string | BodyTooLarge> {
  try {
    return await readBodyText(response, {
      limit: limit === 0 ? Infinity : limit,
    });
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    return new BodyTooLarge(
      error.declared
        ? `its Content-Length is ${error.size} bytes`
        : `more than ${limit} bytes arrived`,
    );
  }
}
