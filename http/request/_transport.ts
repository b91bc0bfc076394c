// How one attempt of an HttpClient call reaches the network: two ky instances
// (with and without Kit's interceptors) whose `fetch` follows redirects by
// the client's rules. The attempts themselves are driven by the request
// engine (_request_engine.ts); this file only sends.
//
// ky sends each attempt; the client drives the attempts itself because ky's
// retry and timeout cannot express its behaviour: ky runs beforeRequest hooks
// on the already-modified request of the previous attempt, its TimeoutError
// text differs and its timer stops when the headers arrive (not covering the
// body), it has no total timeout of this kind, its Retry-After handling caps
// the wait instead of giving up past the cap and applies only to some
// statuses, its jitter is all-or-nothing, and a 401 refresh-and-replay would
// have to count as a retry.
//
// The attempt reaches `send` as the unknown option `kit`, which ky keeps in
// the options it hands its hooks (and would pass to `fetch`, its documented
// route for options such as `dispatcher`). It carries the attempt's signal:
// giving that to ky as `signal` would make ky combine it with its own
// controller through AbortSignal.any on every call, a measurable cost on the
// hot path; this way the request follows exactly one signal, the attempt's,
// which the per-attempt timer, the caller's signal and the total timeout all
// abort. Without interceptors it also carries the headers, set on ky's
// request here: handed to ky as `headers`, they would be merged into new
// Headers objects twice per call (ky's option merging and its constructor).
import type { KyInstance } from "ky";
import type { Attempt } from "./_attempt.ts";
import type { CallContext } from "./_call_context.ts";
import { loadKy } from "#http/ky";
import {
  followRedirects,
  isRedirect,
  type RedirectPolicy,
} from "./_redirect.ts";
import { REDIRECT_MODE } from "#http/request/redirect_mode";

/** The `fetch` a client sends with. */
export type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;

/** What one attempt hands ky; reused by every attempt of a call. */
export interface KyInit {
  method: string;
  /** Only with interceptors, which must see them on the request. */
  headers?: Record<string, string>;
  body?: RequestInit["body"];
  /** Passed through by ky to `fetch` (see the top of this file). */
  kit: Attempt | undefined;
  context?: Record<string, unknown>;
}

/** The two ky instances of one client. */
export interface Transport {
  /** For calls without interceptors: sends from ky's first hook. */
  readonly plain: KyInstance;
  /** For calls with interceptors: runs them, then sends. */
  readonly intercepted: KyInstance;
}

/**
 * Builds the ky instances of a client that sends with `custom` (or the global
 * `fetch`) and follows redirects by `redirects`.
 */
export function createTransport(
  custom: Fetch | undefined,
  redirects: RedirectPolicy,
): Transport {
  const send = (
    request: Request,
    init?: { kit?: Attempt },
  ): Promise<Response> => {
    const run: Fetch = custom ?? globalThis.fetch;
    const attempt = init?.kit;
    if (attempt === undefined) return sendOnce(run, request, undefined);
    const headers = attempt.headers;
    if (headers !== undefined) {
      const target = request.headers;
      for (const name in headers) target.set(name, headers[name]);
    }
    const traceHeaders = attempt.traceHeaders;
    if (traceHeaders !== undefined) {
      const target = request.headers;
      for (const name in traceHeaders) target.set(name, traceHeaders[name]);
    }
    return sendOnce(run, request, attempt);
  };
  // One request and the redirects it meets (see _redirect.ts). The request
  // ky built is "manual" already; one an interceptor built anew may not be.
  const sendOnce = async (
    run: Fetch,
    request: Request,
    attempt: Attempt | undefined,
  ): Promise<Response> => {
    const signal = attempt?.signal;
    const response =
      await (request.redirect === REDIRECT_MODE
        ? signal === undefined ? run(request) : run(request, { signal })
        : run(request, { signal, redirect: REDIRECT_MODE }));
    return isRedirect(response.status)
      ? followRedirects(
        response,
        run,
        request,
        signal,
        redirects,
        attempt?.body,
      )
      : response;
  };
  const base = {
    retry: 0,
    timeout: false as const,
    throwHttpErrors: false,
    redirect: REDIRECT_MODE,
    fetch: send as typeof globalThis.fetch,
  };
  // The request is sent from ky's beforeRequest hook (after the
  // interceptors, when there are some), which hands ky the response: ky
  // then skips cloning the request for its own retries (Kit never uses
  // them) and its unknown-option scan.
  const sendHook = (request: Request, init: object): Promise<Response> =>
    send(request, init as { kit?: Attempt });
  // ky loads here, with the first client, not when the module loads: in
  // Node.js loading it is a noticeable share of a cold start (see
  // _ky_node.ts). Loading it synchronously keeps every call free of the
  // look-up.
  const ky = loadKy();
  return {
    plain: ky.create({ ...base, hooks: { beforeRequest: [sendHook] } }),
    intercepted: ky.create({
      ...base,
      hooks: {
        beforeRequest: [
          (request: Request, init: object) =>
            runIntercepts(request, init as InterceptInit, send),
        ],
      },
    }),
  };
}

/** What the beforeRequest hook with interceptors reads of ky's options. */
interface InterceptInit {
  context: Record<string, unknown>;
  kit?: Attempt;
}

/**
 * ky beforeRequest hook: runs Kit's interceptors for one attempt, then sends
 * the request they leave.
 */
async function runIntercepts(
  request: Request,
  options: InterceptInit,
  send: (request: Request, init: { kit?: Attempt }) => Promise<Response>,
): Promise<Response> {
  const context = options.context.kit as CallContext;
  let current = request;
  try {
    for (const interceptor of context.interceptors) {
      const next = await untilAborted(
        interceptor.intercept(current, context),
        context.signal,
        context.total,
      );
      if (next instanceof Request) current = next;
    }
  } catch (error) {
    context.interceptError = { error };
    throw error;
  }
  context.sent = current;
  context.current?.arm();
  return await send(current, options);
}

/**
 * Settles like `value`, or rejects with the reason of the first signal that
 * aborts: cancellation and the total timeout must not wait for a slow
 * interceptor (a hanging token refresh, say). Without signals, or for a value
 * that is not a promise, it returns `value` as it is.
 */
export function untilAborted<T>(
  value: T | PromiseLike<T>,
  first: AbortSignal | undefined,
  second: AbortSignal | undefined,
): T | PromiseLike<T> {
  if (
    (first === undefined && second === undefined) ||
    typeof (value as PromiseLike<T> | null)?.then !== "function"
  ) {
    return value;
  }
  const pending = value as PromiseLike<T>;
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => {
      first?.removeEventListener("abort", onAbort);
      second?.removeEventListener("abort", onAbort);
    };
    const onAbort = (): void => {
      stop();
      reject(first?.aborted ? first.reason : second!.reason);
    };
    // Settling after an abort is a no-op, and a late rejection is handled.
    pending.then(
      (result) => {
        stop();
        resolve(result);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
    if (first?.aborted || second?.aborted) return onAbort();
    first?.addEventListener("abort", onAbort);
    second?.addEventListener("abort", onAbort);
  });
}
