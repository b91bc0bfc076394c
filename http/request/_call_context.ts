// The per-call state shared by the attempts of one HttpClient call; handed to
// interceptors as HttpCallContext.
import type { Attempt } from "./_attempt.ts";
import type { HttpCallContext, HttpInterceptor } from "../http_interceptor.ts";

export class CallContext implements HttpCallContext {
  readonly method: string;
  readonly url: string;
  readonly signal: AbortSignal | undefined;
  /** The total-timeout signal of the call, when there is one. */
  readonly total: AbortSignal | undefined;
  readonly interceptors: readonly HttpInterceptor[];
  readonly maxResponseSize: number;
  readonly #replayable: boolean;
  attempt = 0;
  replayed = false;
  /** Set by `replay()`, consumed by the client after the onResponse step. */
  replayRequested = false;
  /** The current attempt, so the request hook can start its timer. */
  current: Attempt | undefined;
  /** The request actually sent by the current attempt. */
  sent: Request | undefined;
  /** An error thrown by an `intercept`: never retried. */
  interceptError: { error: unknown } | undefined;
  #state: Map<unknown, unknown> | undefined;

  constructor(
    method: string,
    url: string,
    signal: AbortSignal | undefined,
    interceptors: readonly HttpInterceptor[],
    replayable: boolean,
    total: AbortSignal | undefined,
    maxResponseSize: number,
  ) {
    this.method = method;
    this.url = url;
    this.signal = signal;
    this.total = total;
    this.interceptors = interceptors;
    this.maxResponseSize = maxResponseSize;
    this.#replayable = replayable;
  }

  get state(): Map<unknown, unknown> {
    return this.#state ??= new Map();
  }

  replay(): boolean {
    if (this.replayRequested) return true;
    if (this.replayed || !this.#replayable) return false;
    this.replayRequested = true;
    return true;
  }
}
