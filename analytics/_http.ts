// Internal: one JSON POST (internal/delivery/post_json.ts: the deadline, the bounded
// read, redirects only within the origin), its answer classified for the
// retry policy of the delivery queue and worded for analytics' errors.
import { parseRetryAfter } from "../internal/delivery/retry_after.ts";
import { SNIPPET_READ_BYTES, snippetOf } from "./_body_snippet.ts";
import {
  MAX_REDIRECTS,
  type RedirectVerdict,
} from "../internal/delivery/redirect.ts";
import {
  postJson as post,
  type PostJsonAnswer,
} from "../internal/delivery/post_json.ts";

/** Why a send failed, and whether trying again can help. */
export interface SendFailureInfo {
  retriable: boolean;
  status?: number;
  /** Delay the server asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number;
  reason: string;
  cause?: unknown;
}

/** Thrown by {@linkcode postAnalyticsJson} and by provider send functions. */
export class SendFailure extends Error {
  readonly info: SendFailureInfo;
  constructor(info: SendFailureInfo) {
    super(info.reason, { cause: info.cause });
    this.name = "SendFailure";
    this.info = info;
  }
}

// Browsers cap the bodies of all in-flight keepalive requests together at
// 64 KiB; with two requests in flight each stays under half of that.
const BROWSER_KEEPALIVE_LIMIT = 30_000;

/** What {@linkcode postAnalyticsJson} takes besides the request itself. */
export interface PostOptions {
  /** Aborts the request (the queue gave up on the batch). */
  signal?: AbortSignal;
  /** Masks secrets in the text of a failure (body snippet, network error). */
  mask?: (text: string) => string;
  /** The body's content type. Default `application/json`. */
  contentType?: string;
  /**
   * Send as a page sends to another site without CORS (`mode: "no-cors"`,
   * as Google's tag does): the answer cannot be read, so an opaque answer
   * counts as delivered; a network error is still retried.
   */
  noCors?: boolean;
}

export { MAX_REDIRECTS };

/**
 * POSTs a JSON body. Resolves on a 2xx answer; throws {@linkcode SendFailure}
 * otherwise: retriable for network errors, timeouts, 408, 429 and 5xx, not
 * retriable for every other status. The failure's reason, and the message of
 * its cause, pass through `mask`, so a collector that echoes the API key, or
 * a network error that repeats the URL, never puts a secret in an error.
 * Redirects are followed only within the origin of `url` (307 and 308, at
 * most {@linkcode MAX_REDIRECTS}); any other redirect is a failure that is
 * not retried. Of an answer's body at most a few KiB are read.
 */
export async function postAnalyticsJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  options: PostOptions = {},
): Promise<void> {
  const mask = options.mask ?? ((text: string) => text);
  let answer: PostJsonAnswer;
  try {
    answer = await post(url, body, {
      headers,
      contentType: options.contentType,
      timeout: timeoutMs,
      signal: options.signal,
      maxResponseBytes: SNIPPET_READ_BYTES,
      noCors: options.noCors,
      // In a page that is being unloaded, keepalive lets the request finish.
      keepalive: "document" in globalThis &&
        body.length < BROWSER_KEEPALIVE_LIMIT,
    });
  } catch (error) {
    const reason = `network error: ${messageOf(error)}`;
    const masked = mask(reason);
    throw new SendFailure({
      retriable: true,
      reason: masked,
      // The runtime's error may quote the URL (GA4's api_secret): keep it
      // only when it holds nothing to mask.
      cause: masked === reason ? error : new Error(masked),
    });
  }
  if (answer.ok) return;
  const status = answer.status;
  const snippet = snippetOf(answer.text, answer.truncated, mask);
  const detail = answer.redirect !== undefined
    ? redirectReason(answer.redirect)
    : snippet
    ? ": " + snippet
    : "";
  throw new SendFailure({
    retriable: status === 408 || status === 429 || status >= 500,
    status,
    retryAfterMs: parseRetryAfter(answer.headers.get("retry-after")),
    reason: mask(
      `HTTP ${status}${
        answer.statusText ? " " + answer.statusText : ""
      }${detail}`,
    ),
  });
}

/**
 * Why a redirect is not followed (the rule is internal/delivery/redirect.ts's), in
 * the words of this package.
 */
function redirectReason(
  verdict: Exclude<RedirectVerdict, { follow: string }>,
): string {
  switch (verdict.refused) {
    case "opaque":
      return `: redirect not followed: the browser does not reveal where it leads, and the key and the events go only to ${verdict.from} (set the endpoint to the address that accepts them)`;
    case "no-location":
      return ": redirect without a valid Location, not followed";
    case "other-origin":
      return ` to another origin, ${verdict.to}, not followed: the key and the events go only to ${verdict.from} (set the endpoint to the address that accepts them)`;
    case "method-change":
      return ` to ${verdict.to}, not followed: it would turn the POST into a GET without the events (answer 307 or 308, or set the endpoint to the new address)`;
    case "too-many":
      return `: more than ${MAX_REDIRECTS} redirects, not followed further`;
  }
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message !== error.message) {
      return `${error.message} (${cause.message})`;
    }
    return error.message;
  }
  return String(error);
}
