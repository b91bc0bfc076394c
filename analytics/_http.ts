// Internal: one JSON POST with a timeout, classified for the retry policy of
// the delivery queue. Uses the platform `fetch` (Deno, Node 18+, Bun,
// browsers); nothing here is runtime-specific.
import { unrefTimer } from "../internal/unref_timer.ts";
import { parseRetryAfter } from "../internal/retry_after.ts";
import { readSnippet } from "./_body_snippet.ts";
import {
  MAX_REDIRECTS,
  type RedirectVerdict,
  redirectVerdict,
} from "../internal/redirect.ts";

/** Why a send failed, and whether trying again can help. */
export interface SendFailureInfo {
  retriable: boolean;
  status?: number;
  /** Delay the server asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number;
  reason: string;
  cause?: unknown;
}

/** Thrown by {@linkcode postJson} and by provider send functions. */
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

/** What {@linkcode postJson} takes besides the request itself. */
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
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  options: PostOptions = {},
): Promise<void> {
  const mask = options.mask ?? ((text: string) => text);
  const outer = options.signal;
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(new Error(`request timed out after ${timeoutMs} ms`)),
    timeoutMs,
  );
  unrefTimer(timer);
  const onAbort = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  try {
    let target = url;
    for (let redirects = 0;; redirects++) {
      const response = await send(target, body, headers, options, controller);
      const status = response.status;
      if (response.ok || response.type === "opaque") {
        // Read a short body so the connection can be reused; a long one is
        // cancelled after a few KiB.
        await readSnippet(response, (text) => text);
        return;
      }
      const verdict = redirectVerdict(response, target, redirects);
      const next = verdict === undefined ? undefined : redirectTarget(verdict);
      if (typeof next === "string") {
        await response.body?.cancel().catch(() => {});
        target = next;
        continue;
      }
      let detail: string;
      if (next === undefined) {
        const snippet = await readSnippet(response, mask);
        detail = snippet ? ": " + snippet : "";
      } else {
        await response.body?.cancel().catch(() => {});
        detail = next.reason;
      }
      const retriable = status === 408 || status === 429 || status >= 500;
      throw new SendFailure({
        retriable,
        status,
        retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
        reason: mask(
          `HTTP ${status}${
            response.statusText ? " " + response.statusText : ""
          }${detail}`,
        ),
      });
    }
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}

// One fetch. Redirects are never left to fetch: it would send the headers
// (the API key) and the body on to whatever origin the collector names.
async function send(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
  controller: AbortController,
): Promise<Response> {
  const mask = options.mask ?? ((text: string) => text);
  try {
    const init: RequestInit = {
      method: "POST",
      headers: {
        "content-type": options.contentType ?? "application/json",
        ...headers,
      },
      body,
      signal: controller.signal,
      redirect: "manual",
    };
    if (options.noCors === true) {
      init.mode = "no-cors";
      init.credentials = "omit";
      // A page's send without CORS carries no key (the measurement id is
      // public) and its answer cannot be read anyway: the browser follows
      // the collector's redirects as it does for Google's own tag.
      init.redirect = "follow";
    }
    // In a page that is being unloaded, keepalive lets the request finish.
    if (
      "document" in globalThis && body.length < BROWSER_KEEPALIVE_LIMIT
    ) {
      init.keepalive = true;
    }
    return await fetch(url, init);
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
}

/**
 * Where a redirect leads (the rule is internal/redirect.ts's): the address to
 * POST to next, in the origin of the endpoint (and the body goes with it),
 * or why it is not followed, in the words of this package.
 */
function redirectTarget(verdict: RedirectVerdict): string | { reason: string } {
  if ("follow" in verdict) return verdict.follow;
  switch (verdict.refused) {
    case "opaque":
      return {
        reason:
          `: redirect not followed: the browser does not reveal where it leads, and the key and the events go only to ${verdict.from} (set the endpoint to the address that accepts them)`,
      };
    case "no-location":
      return { reason: ": redirect without a valid Location, not followed" };
    case "other-origin":
      return {
        reason:
          ` to another origin, ${verdict.to}, not followed: the key and the events go only to ${verdict.from} (set the endpoint to the address that accepts them)`,
      };
    case "method-change":
      return {
        reason:
          ` to ${verdict.to}, not followed: it would turn the POST into a GET without the events (answer 307 or 308, or set the endpoint to the new address)`,
      };
    case "too-many":
      return {
        reason: `: more than ${MAX_REDIRECTS} redirects, not followed further`,
      };
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
