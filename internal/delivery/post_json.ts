// One JSON POST over the platform's fetch (Deno, Node.js, Bun, browsers),
// for senders that carry a key to a collector (analytics). Three things
// every such POST needs, written once:
//
// - Redirects are never left to fetch, which would take the headers (the
//   key) and the body to whatever origin the collector names: one is
//   followed only by internal/delivery/redirect.ts's rule (same origin, 307/308, a
//   few times); any other is handed back, refused.
// - Of the answer's body at most `maxResponseBytes` are read (by Kit's
//   bounded body reader, internal/bounded_body.ts); the rest is cancelled,
//   which also closes the connection instead of draining it.
// - The whole exchange (redirects and the body read included) ends at a
//   deadline, and when the caller's signal aborts.
import { readBodyStart } from "../bounded_body.ts";
import { type RedirectVerdict, redirectVerdict } from "./redirect.ts";

/** Bytes of an answer's body read by default. */
const DEFAULT_MAX_RESPONSE_BYTES = 4096;

/** What {@linkcode postJson} takes besides the address and the body. */
export interface PostJsonOptions {
  /** Headers sent (only to the address's origin). */
  readonly headers?: Record<string, string>;
  /** The body's content type. Default `application/json`. */
  readonly contentType?: string;
  /** The deadline of the whole exchange, in milliseconds. */
  readonly timeout: number;
  /** Aborts the exchange. */
  readonly signal?: AbortSignal;
  /** Bytes of the answer's body read at most. Default 4096. */
  readonly maxResponseBytes?: number;
  /**
   * Send as a page sends to another site without CORS: no credentials, the
   * answer is opaque, and the browser follows redirects itself (nothing
   * secret travels, and where they lead cannot be read anyway).
   */
  readonly noCors?: boolean;
  /** Let the request outlive a page being unloaded. */
  readonly keepalive?: boolean;
}

/** An answer to {@linkcode postJson}. */
export interface PostJsonAnswer {
  /** The status (0 for an opaque answer). */
  readonly status: number;
  /** The status text. */
  readonly statusText: string;
  /** Whether the status is 2xx, or the answer is opaque (`noCors`). */
  readonly ok: boolean;
  /** The answer's headers. */
  readonly headers: Headers;
  /** The start of the body, decoded (at most `maxResponseBytes`). */
  readonly text: string;
  /** Whether the body was longer than what was read. */
  readonly truncated: boolean;
  /** A redirect that was not followed, and why. */
  readonly redirect?: Exclude<RedirectVerdict, { follow: string }>;
}

/**
 * POSTs `body` to `url` and reads the start of the answer. It resolves with
 * any answer, a refused redirect included (`redirect` says why); it throws
 * what fetch threw for a network error, or, at the deadline, an error saying
 * `request timed out after <timeout> ms`.
 *
 * @param url The address.
 * @param body The JSON text.
 * @param options Headers, the deadline, the signal and the read bound.
 * @returns The answer.
 * @throws {Error} A network error, the deadline, or the signal's reason.
 *
 * @example Usage (needs a collector listening)
 * ```ts ignore
 * import { postJson } from "./post_json.ts";
 *
 * const answer = await postJson("http://127.0.0.1:4318/ingest", "[]", {
 *   headers: { "x-api-key": "<key>" },
 *   timeout: 5_000,
 * });
 * console.log(answer.status, answer.text);
 * ```
 */
export async function postJson(
  url: string,
  body: string,
  options: PostJsonOptions,
): Promise<PostJsonAnswer> {
  const controller = new AbortController();
  const outer = options.signal;
  const deadline = AbortSignal.timeout(options.timeout);
  const onDeadline = (): void =>
    controller.abort(
      new Error(`request timed out after ${options.timeout} ms`),
    );
  const onAbort = (): void => controller.abort(outer?.reason);
  deadline.addEventListener("abort", onDeadline, { once: true });
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  try {
    let target = url;
    for (let redirects = 0;; redirects++) {
      const response = await fetch(target, init(body, options, controller));
      const verdict = options.noCors === true
        ? undefined
        : redirectVerdict(response, target, redirects);
      if (verdict !== undefined && "follow" in verdict) {
        await response.body?.cancel().catch(() => {});
        target = verdict.follow;
        continue;
      }
      const opaque = response.type === "opaque";
      if (verdict !== undefined) {
        await response.body?.cancel().catch(() => {});
        return answer(response, "", false, verdict);
      }
      // Never throws: a body that fails to read (the connection broke,
      // the deadline) gives what arrived before.
      const { text, truncated } = await readBodyStart(
        response,
        options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      );
      return answer(response, text, truncated, undefined, opaque);
    }
  } finally {
    deadline.removeEventListener("abort", onDeadline);
    outer?.removeEventListener("abort", onAbort);
  }
}

function init(
  body: string,
  options: PostJsonOptions,
  controller: AbortController,
): RequestInit {
  const request: RequestInit = {
    method: "POST",
    headers: {
      "content-type": options.contentType ?? "application/json",
      ...options.headers,
    },
    body,
    signal: controller.signal,
    redirect: "manual",
  };
  if (options.noCors === true) {
    request.mode = "no-cors";
    request.credentials = "omit";
    request.redirect = "follow";
  }
  if (options.keepalive === true) request.keepalive = true;
  return request;
}

function answer(
  response: Response,
  text: string,
  truncated: boolean,
  redirect?: Exclude<RedirectVerdict, { follow: string }>,
  opaque = false,
): PostJsonAnswer {
  return {
    status: response.status,
    statusText: response.statusText,
    ok: redirect === undefined && (response.ok || opaque),
    headers: response.headers,
    text,
    truncated,
    ...(redirect === undefined ? {} : { redirect }),
  };
}
