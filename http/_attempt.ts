// One attempt of an HttpClient call: an AbortController that the per-attempt
// timer, the caller's signal and the total-timeout signal all abort. Listeners
// are registered with `handleEvent` and the timer gets its state as an
// argument, so an attempt costs no closures.
import { TimeoutError } from "./timeout_error.ts";

export class Attempt {
  readonly controller: AbortController = new AbortController();
  timedOut = false;
  readonly #timeout: number;
  readonly #method: string;
  readonly #url: string;
  readonly #caller: AbortSignal | undefined;
  readonly #total: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    timeout: number,
    method: string,
    url: string,
    caller: AbortSignal | undefined,
    total: AbortSignal | undefined,
  ) {
    this.#timeout = timeout;
    this.#method = method;
    this.#url = url;
    this.#caller = caller;
    this.#total = total;
    caller?.addEventListener("abort", this);
    total?.addEventListener("abort", this);
  }

  /** Forwards an abort of the caller's or the total signal. */
  handleEvent(event: Event): void {
    this.controller.abort((event.target as AbortSignal).reason);
  }

  /** Starts the per-attempt timer (once). */
  arm(): void {
    if (this.#timeout > 0 && this.#timer === undefined) {
      this.#timer = setTimeout(expire, this.#timeout, this);
    }
  }

  /** The error a timed-out attempt reports. */
  timeoutError(): TimeoutError {
    return new TimeoutError(this.#timeout, "attempt", this.#method, this.#url);
  }

  /** Stops the timer and unhooks the listeners. */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#caller?.removeEventListener("abort", this);
    this.#total?.removeEventListener("abort", this);
  }
}

function expire(attempt: Attempt): void {
  attempt.timedOut = true;
  attempt.controller.abort(attempt.timeoutError());
}
