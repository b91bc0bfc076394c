import { ContextFrame, frames } from "./_async_context_frame.ts";
import {
  isOpenTelemetryRegistered,
  loadOpenTelemetryApi,
} from "../../internal/telemetry/open_telemetry.ts";

/**
 * The values of one request's context: its `requestId`, plus anything the
 * application adds (a user id, a tenant). Kit's logging adds every value to
 * each entry written inside the context, the HTTP client sends `requestId`
 * as `X-Request-ID`, and analytics events carry it in their context.
 *
 * @example Usage
 * ```ts
 * import type { RequestContextValues } from "@vendor/kit/platform";
 *
 * const values: RequestContextValues = { requestId: "r-1", tenant: "acme" };
 * ```
 */
export interface RequestContextValues {
  /** The request's id, as received in `X-Request-ID` or generated. */
  readonly requestId: string;
  /** Any other value the application wants carried along. */
  readonly [key: string]: unknown;
}

/**
 * The context of the request being handled, carried across `await`s with no
 * parameter passed around (`AsyncLocalStorage` in Deno, Node.js and Bun; one
 * context per page in a browser). The application host's `app.handle()`
 * opens one per request; `RequestContext.run` opens one anywhere else (a
 * queue consumer, a scheduled job).
 *
 * @example Usage
 * ```ts
 * import { RequestContext } from "@vendor/kit/platform";
 *
 * await RequestContext.run({ requestId: "job-42" }, async () => {
 *   await Promise.resolve();
 *   console.log(RequestContext.current()?.requestId); // "job-42"
 * });
 * console.log(RequestContext.current()); // undefined
 * ```
 */
export class RequestContext {
  /**
   * Runs `fn` inside a context holding `values`; everything it starts,
   * synchronously or after an `await`, sees them through
   * {@linkcode RequestContext.current}.
   *
   * @typeParam T What `fn` returns.
   * @param values The context's values; `requestId` is required.
   * @param fn The work to run inside the context.
   * @returns What `fn` returned.
   * @throws {TypeError} When `values.requestId` is not a non-empty string.
   *
   * @example Usage
   * ```ts
   * import { RequestContext } from "@vendor/kit/platform";
   *
   * const id = RequestContext.run(
   *   { requestId: "r-7" },
   *   () => RequestContext.current()?.requestId,
   * ); // "r-7"
   * ```
   */
  static run<T>(values: RequestContextValues, fn: () => T): T {
    if (typeof values?.requestId !== "string" || values.requestId === "") {
      throw new TypeError(
        "RequestContext.run: values.requestId must be a non-empty string",
      );
    }
    // The scope of the request around it (if any) stays current: a
    // middleware that adds a value keeps the request's scoped services.
    return frames.run(
      new ContextFrame(Object.freeze({ ...values }), frames.get()?.owner),
      fn,
    );
  }

  /**
   * The values of the context the caller runs in.
   *
   * @returns The values, or `undefined` outside any context.
   *
   * @example Usage
   * ```ts
   * import { RequestContext } from "@vendor/kit/platform";
   *
   * RequestContext.current(); // undefined outside RequestContext.run
   * ```
   */
  static current(): RequestContextValues | undefined {
    return frames.get()?.values;
  }

  /**
   * Runs `fn` outside any request context: {@linkcode RequestContext.current}
   * is `undefined` in it and in everything it starts (timers, promise
   * callbacks, sockets and their events), and no request-scoped service is
   * reachable. When an OpenTelemetry SDK is registered, `fn` also runs in the
   * root OpenTelemetry context, so no span of the request becomes the parent
   * of what it does.
   *
   * Use it where a library starts work that outlives the call that happened
   * to trigger it (a connection opened lazily, a reconnect or retry timer, a
   * batch sent later): otherwise that work would carry the first request's
   * id, and its log entries and outgoing calls would be attributed to that
   * request. Kit's own parts do so.
   *
   * @typeParam T What `fn` returns.
   * @param fn The work to run without a context.
   * @returns What `fn` returned.
   *
   * @example Starting a timer that belongs to no request
   * ```ts
   * import { RequestContext } from "@vendor/kit/platform";
   *
   * RequestContext.run({ requestId: "r-1" }, () => {
   *   RequestContext.detach(() =>
   *     setTimeout(() => console.log(RequestContext.current()), 0)
   *   ); // logs undefined, not { requestId: "r-1" }
   * });
   * ```
   */
  static detach<T>(fn: () => T): T {
    // Only with a context manager registered can a span be active; the API
    // is not loaded otherwise.
    if (!isOpenTelemetryRegistered("context")) return outside(fn);
    const { context, ROOT_CONTEXT } = loadOpenTelemetryApi();
    return context.with(ROOT_CONTEXT, () => outside(fn));
  }
}

// An empty frame (no values, no scope) rather than AsyncLocalStorage's
// exit(): Deno's exit() clears the context for the synchronous part only,
// and the timers and promises started inside it still see the request.
function outside<T>(fn: () => T): T {
  return frames.run(new ContextFrame(undefined, undefined), fn);
}
