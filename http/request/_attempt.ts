// One attempt of an HttpClient call: an AbortController that the per-attempt
// timer, the caller's signal and the total-timeout signal all abort, and the
// headers the client sets on the request it sends. Listeners are registered
// with `handleEvent` and the timer gets its state as an argument, so an
// attempt costs no closures, its timeout shares a timer with the other
// attempts (_deadlines.ts), and the controller is made only when something can
// abort the attempt.
import { type Expiring, startDeadline, stopDeadline } from "./_deadlines.ts";
import { TimeoutError } from "../timeout_error.ts";

export class Attempt implements Expiring {
  timedOut = false;
  deadline = 0;
  queued = false;
  #armed = false;
  /**
   * Headers `fetch` sets on ky's request (a call without interceptors);
   * undefined when ky got them itself.
   */
  readonly headers: Record<string, string> | undefined;
  /** `traceparent`/`tracestate` of the attempt's span, set by `fetch`. */
  readonly traceHeaders: Record<string, string> | undefined;
  /** The call's body, which a 307 or 308 redirect sends again. */
  readonly body: RequestInit["body"] | undefined;
  readonly #controller: AbortController | undefined;
  readonly #timeout: number;
  readonly #method: string;
  readonly #url: string;
  readonly #caller: AbortSignal | undefined;
  readonly #total: AbortSignal | undefined;

  constructor(
    timeout: number,
    method: string,
    url: string,
    caller: AbortSignal | undefined,
    total: AbortSignal | undefined,
    headers: Record<string, string> | undefined,
    traceHeaders: Record<string, string> | undefined,
    body: RequestInit["body"] | undefined,
  ) {
    this.#timeout = timeout;
    this.#method = method;
    this.#url = url;
    this.#caller = caller;
    this.#total = total;
    this.headers = headers;
    this.traceHeaders = traceHeaders;
    this.body = body;
    if (timeout > 0 || caller !== undefined || total !== undefined) {
      this.#controller = new AbortController();
      caller?.addEventListener("abort", this);
      total?.addEventListener("abort", this);
    }
  }

  /** The signal the request follows; undefined when nothing can abort it. */
  get signal(): AbortSignal | undefined {
    return this.#controller?.signal;
  }

  /** Forwards an abort of the caller's or the total signal. */
  handleEvent(event: Event): void {
    this.#controller?.abort((event.target as AbortSignal).reason);
  }

  /** Starts the per-attempt timer (once). */
  arm(): void {
    if (this.#timeout > 0 && !this.#armed) {
      this.#armed = true;
      startDeadline(this.#timeout, this);
    }
  }

  /** The error a timed-out attempt reports. */
  timeoutError(): TimeoutError {
    return new TimeoutError(this.#timeout, "attempt", this.#method, this.#url);
  }

  /** Aborts the request with its timeout error. */
  expire(): void {
    this.timedOut = true;
    this.#controller?.abort(this.timeoutError());
  }

  /** Stops the timer and unhooks the listeners. */
  dispose(): void {
    if (this.queued) stopDeadline(this.#timeout, this);
    this.#caller?.removeEventListener("abort", this);
    this.#total?.removeEventListener("abort", this);
  }
}
