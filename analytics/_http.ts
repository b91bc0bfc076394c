// Internal: one JSON POST with a timeout, classified for the retry policy of
// the delivery queue. Uses the platform `fetch` (Deno, Node 18+, Bun,
// browsers); nothing here is runtime-specific.
import { parseRetryAfter, unrefTimer } from "../core/mod.ts";

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

/**
 * POSTs a JSON body. Resolves on a 2xx answer; throws {@linkcode SendFailure}
 * otherwise: retriable for network errors, timeouts, 408, 429 and 5xx, not
 * retriable for every other status. The failure's reason, and the message of
 * its cause, pass through `mask`, so a collector that echoes the API key, or
 * a network error that repeats the URL, never puts a secret in an error.
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
    let response: Response;
    try {
      const init: RequestInit = {
        method: "POST",
        headers: {
          "content-type": options.contentType ?? "application/json",
          ...headers,
        },
        body,
        signal: controller.signal,
      };
      if (options.noCors === true) {
        init.mode = "no-cors";
        init.credentials = "omit";
      }
      // In a page that is being unloaded, keepalive lets the request finish.
      if (
        "document" in globalThis && body.length < BROWSER_KEEPALIVE_LIMIT
      ) {
        init.keepalive = true;
      }
      response = await fetch(url, init);
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
    if (response.ok || response.type === "opaque") {
      // Read the body so the connection can be reused (and no resource leaks).
      await response.arrayBuffer().catch(() => undefined);
      return;
    }
    const text = await response.text().catch(() => "");
    const status = response.status;
    const retriable = status === 408 || status === 429 || status >= 500;
    // Masked before it is cut, so a secret across the cut is masked too.
    const snippet = mask(text.trim()).slice(0, 200);
    throw new SendFailure({
      retriable,
      status,
      retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
      reason: mask(
        `HTTP ${status}${response.statusText ? " " + response.statusText : ""}${
          snippet ? ": " + snippet : ""
        }`,
      ),
    });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
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
