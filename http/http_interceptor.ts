/**
 * What an {@linkcode HttpInterceptor} learns about the call it takes part in.
 * One context exists per call and is shared by every attempt of that call
 * (retries and a replay), so an interceptor can keep per-call values in
 * {@linkcode HttpCallContext.state} (the X-Request-ID of
 * {@linkcode ErrorInterceptor} lives there).
 */
export interface HttpCallContext {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** Absolute address of the call, query included. */
  readonly url: string;
  /** Number of the current attempt: 1 for the first, +1 per retry or replay. */
  readonly attempt: number;
  /** `true` once the call has been replayed (see {@linkcode replay}). */
  readonly replayed: boolean;
  /** The caller's cancellation signal, when one was given. */
  readonly signal: AbortSignal | undefined;
  /** Per-call storage shared by the attempts of this call. */
  readonly state: Map<unknown, unknown>;
  /**
   * The call's `maxResponseSize` in bytes (`0` = no limit), for an
   * `onResponse` that reads the body ({@linkcode ErrorInterceptor} reads
   * error bodies within it). Set by {@linkcode HttpClient}; optional so that
   * hand-made contexts (in tests) need not carry it.
   */
  readonly maxResponseSize?: number;
  /**
   * Asks the client to send the call once more after the current
   * `onResponse` returns: the rest of the `onResponse` chain is skipped, the
   * current response body is discarded, and every `intercept` runs again.
   * A call is replayed at most once, so a replay can never loop; it does not
   * use up a retry.
   *
   * @returns `true` when the replay will happen, `false` when the call was
   * already replayed or its body cannot be sent twice (a stream).
   */
  replay(): boolean;
}

/**
 * Hooks into every call of an {@linkcode HttpClient} (add one with
 * `addInterceptor`). `intercept` runs before every attempt, retries and a
 * replay included, in the order the interceptors were added; `onResponse`
 * runs on the response a call produces, in reverse order. Both may be async;
 * the client awaits them. A response that the client retries (for example a
 * 503 while retries remain) is discarded without reaching `onResponse`.
 *
 * Requests and responses are the standard Fetch API `Request` and `Response`:
 * change headers in place (`request.headers.set(...)`) or return a new
 * object (`new Request(request, { ... })`).
 *
 * @example Usage
 * ```ts
 * import { HttpClient, type HttpInterceptor } from "@vendor/kit/http";
 *
 * const timing: HttpInterceptor = {
 *   intercept(request) {
 *     request.headers.set("X-Client", "kit");
 *     return request;
 *   },
 *   onResponse(response, context) {
 *     console.log(context.method, context.url, response.status);
 *     return response;
 *   },
 * };
 * const client = new HttpClient("https://api.example.com");
 * client.addInterceptor(timing);
 * ```
 */
export interface HttpInterceptor {
  /**
   * Runs before each attempt is sent.
   *
   * @param request The request about to be sent (fresh for every attempt).
   * @param context The call this attempt belongs to.
   * @returns The request to send: the same one, a new one, or nothing to keep
   * the current one.
   */
  intercept(
    request: Request,
    context: HttpCallContext,
  ): Request | void | Promise<Request | void>;

  /**
   * Runs on the response of the call, in reverse order of addition.
   *
   * @param response The response so far.
   * @param context The call the response belongs to.
   * @returns The response to pass on: the same one, a new one, or nothing to
   * keep the current one. Throw to fail the call.
   */
  onResponse?(
    response: Response,
    context: HttpCallContext,
  ): Response | void | Promise<Response | void>;
}
