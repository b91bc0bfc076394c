import { KitError } from "../core/mod.ts";

/**
 * Thrown by {@linkcode HttpClient} when an attempt takes longer than its
 * `timeout`, or a whole call (every attempt and the waits between them) takes
 * longer than `totalTimeout`. The message is exactly
 * `Request timeout of <n>ms exceeded`, where `<n>` is the limit that
 * was exceeded.
 *
 * @example Usage
 * ```ts
 * import { HttpClient, TimeoutError } from "@vendor/kit/http";
 *
 * const client = new HttpClient("https://api.example.com", { timeout: 1 });
 * try {
 *   await client.get("/slow");
 * } catch (error) {
 *   if (error instanceof TimeoutError) console.log(error.timeout, error.scope);
 * }
 * ```
 */
export class TimeoutError extends KitError {
  /** What went wrong, as a stable string: `http_timeout`. */
  readonly code = "http_timeout";

  /** The limit that was exceeded, in milliseconds. */
  readonly timeout: number;
  /**
   * `"attempt"` when one attempt exceeded `timeout`, `"total"` when the whole
   * call exceeded `totalTimeout`.
   */
  readonly scope: "attempt" | "total";
  /** Upper-case HTTP method of the call, when known. */
  readonly method: string | undefined;
  /** Address of the call, when known. */
  readonly url: string | undefined;

  /**
   * Creates the error.
   *
   * @param timeout The limit that was exceeded, in milliseconds.
   * @param scope Whether one attempt or the whole call ran out of time.
   * @param method Upper-case HTTP method of the call.
   * @param url Address of the call.
   */
  constructor(
    timeout: number,
    scope: "attempt" | "total" = "attempt",
    method?: string,
    url?: string,
  ) {
    super(`Request timeout of ${timeout}ms exceeded`);
    this.name = "TimeoutError";
    this.timeout = timeout;
    this.scope = scope;
    this.method = method;
    this.url = url;
  }
}
