// One HttpClient call from start to result: the attempts, the waits between
// them and what ends the call. Like ky's own engine, one object per call with
// one method per concern, so that each can be read on its own:
//
// - the call's limits and what is sent (constructor);
// - the total timeout (#armTotal, #stopTotal);
// - one attempt: start and send (#startAttempt, #send);
// - the retry decision: by status (#statusRetry, #retryStatus) or after a
//   failure (#retryFailure), and the wait before the next attempt (#retry);
// - the interceptors' onResponse and replay (#afterResponse);
// - reading and parsing the body (#read);
// - what a failure means: final, or worth another attempt (#classify).
//
// Spans and the duration histogram (_telemetry.ts) are told of each step as
// it happens; they are undefined when no OpenTelemetry SDK is registered.
import { parseRetryAfter } from "../../internal/delivery/retry_after.ts";
import { RequestContext } from "../../platform/mod.ts";
import { Attempt } from "./_attempt.ts";
import { httpErrorOf, readText } from "../_body.ts";
import { CachedCall, MISS } from "../cache/_cached_call.ts";
import { CallContext } from "./_call_context.ts";
import { type ClientSettings, defaultTotal } from "../_client_options.ts";
import {
  discard,
  IDEMPOTENT_METHODS,
  RETRY_STATUSES,
  retryBackoff,
  sleepOrThrow,
} from "./_retry.ts";
import { reportGaveUp, reportRetry } from "./_retry_report.ts";
import type { HttpCache } from "../cache/_http_cache.ts";
import { type CallTelemetry, startCall } from "../_telemetry.ts";
import { type KyInit, untilAborted } from "./_transport.ts";
import { byteCount, count, MAX_TIMER, milliseconds } from "../_validate.ts";
import type {
  HttpRequestOptions,
  HttpRetryEvent,
} from "../http_client_options.ts";
import type { HttpInterceptor } from "../http_interceptor.ts";
import { HttpError } from "../http_error.ts";
import { TimeoutError } from "../timeout_error.ts";

/** Methods that leave the server's state as it is (no cache invalidation). */
const SAFE_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "OPTIONS",
  "TRACE",
]);

/** Characters a header value cannot hold. */
const UNSAFE_HEADER_VALUE = /[\r\n\0]/;

/** What an attempt returns when another attempt follows it. */
const AGAIN: unique symbol = Symbol("again");
type Again = typeof AGAIN;
/** What #statusRetry gives for a status that is not retried. */
const NO_RETRY: unique symbol = Symbol("no retry");
type NoRetry = typeof NO_RETRY;

/** One call of an HttpClient; `run()` once. */
export class RequestEngine {
  readonly #settings: ClientSettings;
  readonly #method: string;
  readonly #url: string;
  readonly #caller: AbortSignal | undefined;
  /** True for the JSON methods, false for `request()`. */
  readonly #parse: boolean;
  readonly #body: RequestInit["body"] | undefined;
  /** Replaced (never changed) when the cache makes the call conditional. */
  #headers: Record<string, string>;
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #totalTimeout: number;
  readonly #maxSize: number;
  /** A body that can be sent again and a method (or call) safe to repeat. */
  readonly #retryable: boolean;
  /** When the total timeout ends the call, on the client's clock. */
  readonly #deadline: number;
  #totalSignal: AbortSignal | undefined;
  #totalTimer: unknown;
  /** The interceptors' view of the call; undefined without interceptors. */
  readonly #context: CallContext | undefined;
  /** Reused by every attempt; only the attempt changes. ky copies it. */
  readonly #init: KyInit;
  readonly #telemetry: CallTelemetry | undefined;
  #retries = 0;
  /** Status of the current attempt's response, for the call's span. */
  #lastStatus: number | undefined;
  /** The HTTP cache's part in a GET of a JSON method, when it has one. */
  readonly #cached: CachedCall | undefined;
  /** The cache that forgets the address after an unsafe method's success. */
  readonly #invalidates: HttpCache | undefined;

  /**
   * Prepares a call: its body and headers, and its limits (the call's own
   * options over the client's).
   *
   * @throws {TypeError} For both `json` and `body`.
   * @throws {RangeError} For an invalid timeout, count or size of the call.
   */
  constructor(
    settings: ClientSettings,
    interceptors: readonly HttpInterceptor[],
    method: string,
    url: string,
    options: HttpRequestOptions,
    parse: boolean,
  ) {
    this.#settings = settings;
    this.#method = method;
    this.#url = url;
    this.#parse = parse;
    const caller = options.signal;
    this.#caller = caller;
    caller?.throwIfAborted();

    let body = options.body;
    let headers = settings.plainHeaders;
    if (options.json !== undefined) {
      if (body !== undefined && body !== null) {
        throw new TypeError("Give a call either `json` or `body`, not both");
      }
      body = JSON.stringify(options.json);
      headers = settings.bodyHeaders;
    } else if (typeof body === "string") {
      headers = settings.bodyHeaders;
    }
    if (options.headers !== undefined) {
      headers = mergeHeaders(headers, options.headers);
    }
    // The request id of the context the call runs in, unless the caller set
    // one (ErrorInterceptor keeps it instead of generating its own).
    const requestId = RequestContext.current()?.requestId;
    if (
      requestId !== undefined && headers["x-request-id"] === undefined &&
      !UNSAFE_HEADER_VALUE.test(requestId)
    ) {
      headers = options.headers === undefined ? { ...headers } : headers;
      headers["x-request-id"] = requestId;
    }
    this.#body = body;
    this.#headers = headers;

    const timeout = options.timeout === undefined
      ? settings.timeout
      : milliseconds("timeout", options.timeout, 0, true);
    this.#timeout = timeout;
    const maxRetries = options.retryAttempts === undefined
      ? settings.retryAttempts
      : count("retryAttempts", options.retryAttempts, 0);
    this.#maxRetries = maxRetries;
    const totalTimeout = options.totalTimeout !== undefined
      ? milliseconds("totalTimeout", options.totalTimeout, 0, true)
      : settings.totalTimeout ?? defaultTotal(timeout, maxRetries);
    this.#totalTimeout = totalTimeout;
    const maxSize = options.maxResponseSize === undefined
      ? settings.maxResponseSize
      : byteCount("maxResponseSize", options.maxResponseSize, 0);
    this.#maxSize = maxSize;
    // A stream can be sent only once: no retry, no replay.
    const repeatable = !(body instanceof ReadableStream);
    this.#retryable = repeatable &&
      (options.idempotent === true || IDEMPOTENT_METHODS.has(method));
    this.#deadline = totalTimeout > 0
      ? settings.clock.now() + totalTimeout
      : Infinity;

    // Without interceptors, an attempt timer shorter than the total ends the
    // first attempt before the total could, so the total's controller and
    // timer are needed only from the first retry on: the call that succeeds
    // at once (nearly every call) spares them.
    if (interceptors.length !== 0 || timeout <= 0 || timeout >= totalTimeout) {
      this.#armTotal();
    }
    const context = interceptors.length === 0 ? undefined : new CallContext(
      method,
      url,
      caller,
      interceptors,
      repeatable,
      this.#totalSignal,
      maxSize,
    );
    this.#context = context;
    this.#init = context === undefined
      ? body === undefined
        ? { method, kit: undefined }
        : { method, body, kit: undefined }
      : { method, headers, body, kit: undefined, context: { kit: context } };
    this.#telemetry = startCall(method, url);
    const cache = settings.cache;
    if (cache !== undefined) {
      if (parse && method === "GET") {
        const rules = cache.requestRules(headers);
        if (rules.use) this.#cached = new CachedCall(cache, url, rules.noCache);
      } else if (!SAFE_METHODS.has(method)) {
        this.#invalidates = cache;
      }
    }
  }

  /**
   * Makes attempts until one gives the call's result: the parsed body (JSON
   * methods) or the response (`request()`).
   */
  async run(): Promise<unknown> {
    try {
      const cached = this.#cached;
      if (cached !== undefined) {
        const hit = await cached.answer(this.#headers, this.#telemetry);
        if (hit !== MISS) return hit;
        const conditional = cached.conditionalHeaders();
        if (conditional !== undefined) {
          this.#headers = { ...this.#headers, ...conditional };
          if (this.#init.headers !== undefined) {
            this.#init.headers = this.#headers;
          }
        }
      }
      for (;;) {
        const result = await this.#attempt();
        if (result === AGAIN) continue;
        if (
          this.#invalidates !== undefined &&
          (this.#parse || (result as Response).status < 400)
        ) {
          await this.#invalidates.invalidate(this.#method, this.#url);
        }
        return result;
      }
    } catch (error) {
      this.#telemetry?.end(this.#lastStatus, error);
      throw error;
    } finally {
      this.#stopTotal();
    }
  }

  /** One attempt: the call's result, or AGAIN when another one follows. */
  async #attempt(): Promise<unknown> {
    this.#lastStatus = undefined;
    const attempt = this.#startAttempt();
    const pending = this.#send(attempt);
    let response: Response;
    try {
      response = await pending;
    } catch (error) {
      return await this.#retryFailure(error, attempt, undefined);
    }
    this.#lastStatus = response.status;
    const after = this.#statusRetry(response);
    if (after !== NO_RETRY) {
      return await this.#retryStatus(response, attempt, after);
    }
    const cached = this.#cached;
    if (cached !== undefined) {
      response = cached.received(response, this.#telemetry);
    }
    if (this.#context !== undefined) {
      const intercepted = await this.#afterResponse(response, attempt);
      if (intercepted === AGAIN) return AGAIN;
      response = intercepted;
    }
    if (!this.#parse) {
      attempt.dispose();
      this.#telemetry?.end(response.status);
      return response;
    }
    return await this.#read(response, attempt);
  }

  // --- the total timeout ---------------------------------------------------

  /**
   * Starts the total timeout's timer, which aborts the total signal at the
   * deadline (once; nothing when there is no total timeout).
   */
  #armTotal(): void {
    const totalTimeout = this.#totalTimeout;
    if (totalTimeout <= 0 || this.#totalTimer !== undefined) return;
    const total = new AbortController();
    this.#totalSignal = total.signal;
    const clock = this.#settings.clock;
    const method = this.#method;
    const url = this.#url;
    this.#totalTimer = clock.setTimeout(
      () => total.abort(new TimeoutError(totalTimeout, "total", method, url)),
      Math.max(0, this.#deadline - clock.now()),
    );
  }

  #stopTotal(): void {
    const timer = this.#totalTimer;
    if (timer !== undefined) this.#settings.clock.clearTimeout(timer);
  }

  // --- one attempt ---------------------------------------------------------

  #startAttempt(): Attempt {
    const context = this.#context;
    const attempt = new Attempt(
      this.#timeout,
      this.#method,
      this.#url,
      this.#caller,
      this.#totalSignal,
      context === undefined ? this.#headers : undefined,
      this.#telemetry?.startAttempt(),
      this.#body,
    );
    this.#init.kit = attempt;
    if (context === undefined) {
      // With interceptors, the timer starts once they ran (_transport.ts).
      attempt.arm();
    } else {
      context.attempt++;
      context.current = attempt;
    }
    return attempt;
  }

  /**
   * Hands the attempt to ky. A synchronous throw (a malformed header, say)
   * is not a network failure: it ends the call, never retried.
   */
  #send(attempt: Attempt): Promise<Response> {
    const transport = this.#settings.transport;
    const instance = this.#context === undefined
      ? transport.plain
      : transport.intercepted;
    const telemetry = this.#telemetry;
    try {
      return telemetry === undefined
        ? instance(this.#url, this.#init)
        : telemetry.run(instance, this.#url, this.#init);
    } catch (error) {
      attempt.dispose();
      throw error;
    }
  }

  // --- the retry decision --------------------------------------------------

  /**
   * Whether a response's status is retried: when the call may be repeated,
   * retries remain and the status is one to retry, unless its `Retry-After`
   * asks for more than the client waits. Gives the wait the server asked for
   * (undefined for the backoff), or NO_RETRY. Synchronous, so that the
   * response that ends the call (nearly every one) costs no extra turn.
   */
  #statusRetry(response: Response): number | undefined | NoRetry {
    if (!this.#retryable) return NO_RETRY;
    if (this.#retries >= this.#maxRetries) {
      const status = response.status;
      if (
        this.#retries > 0 && this.#settings.reportRetries &&
        RETRY_STATUSES.has(status)
      ) {
        reportGaveUp(this.#method, this.#url, this.#retries + 1, status, null);
      }
      return NO_RETRY;
    }
    if (!RETRY_STATUSES.has(response.status)) return NO_RETRY;
    const after = parseRetryAfter(
      response.headers.get("retry-after"),
      this.#settings.clock.now(),
    );
    return after !== undefined && after > this.#settings.maxRetryAfter
      ? NO_RETRY
      : after;
  }

  /** Ends an attempt whose status is retried and waits for the next. */
  async #retryStatus(
    response: Response,
    attempt: Attempt,
    after: number | undefined,
  ): Promise<Again> {
    attempt.dispose();
    this.#telemetry?.endAttempt(response.status);
    await discard(response);
    await this.#retry(after, undefined, response.status);
    return AGAIN;
  }

  /**
   * After an attempt failed (sending or reading the body): waits for the
   * next attempt when the failure is worth one and retries remain, else
   * throws what the call reports.
   */
  async #retryFailure(
    error: unknown,
    attempt: Attempt,
    status: number | undefined,
  ): Promise<Again> {
    attempt.dispose();
    const failure = this.#classify(error, attempt);
    if (!this.#retryable) throw failure;
    if (this.#retries >= this.#maxRetries) {
      if (this.#retries > 0 && this.#settings.reportRetries) {
        // The failure, not a status: a body that failed to arrive has one.
        reportGaveUp(
          this.#method,
          this.#url,
          this.#retries + 1,
          undefined,
          failure,
        );
      }
      throw failure;
    }
    this.#telemetry?.endAttempt(status, failure);
    await this.#retry(undefined, failure, undefined);
    return AGAIN;
  }

  /**
   * Counts a retry, tells onRetry and waits its delay (the backoff unless
   * the server's Retry-After gave one); throws when the wait would pass the
   * total timeout or the call is cancelled meanwhile.
   */
  async #retry(
    delay: number | undefined,
    error: unknown,
    status: number | undefined,
  ): Promise<void> {
    const retry = ++this.#retries;
    const settings = this.#settings;
    const event: HttpRetryEvent = {
      method: this.#method,
      url: this.#url,
      retry,
      delay: 0,
    };
    if (status !== undefined) event.status = status;
    else event.error = error;
    this.#armTotal();
    const wait = delay ?? retryBackoff(
      retry,
      settings.retryDelay,
      settings.maxRetryDelay,
      settings.jitter,
    );
    // Fails fast rather than sleeping into the deadline.
    if (settings.clock.now() + wait >= this.#deadline) {
      if (settings.reportRetries) {
        reportGaveUp(
          this.#method,
          this.#url,
          retry,
          status,
          error,
          this.#totalTimeout,
        );
      }
      throw new TimeoutError(
        this.#totalTimeout,
        "total",
        this.#method,
        this.#url,
      );
    }
    // Whole milliseconds (jitter and Retry-After dates give fractions),
    // never shorter than asked.
    event.delay = Math.ceil(wait);
    if (settings.onRetry !== undefined) settings.onRetry(event);
    else if (settings.reportRetries) reportRetry(event, this.#maxRetries);
    await sleepOrThrow(
      settings.clock,
      Math.min(event.delay, MAX_TIMER),
      this.#caller,
      this.#totalSignal,
    );
  }

  // --- interceptors --------------------------------------------------------

  /**
   * Runs every `onResponse`, last added first, until one asks for a replay:
   * the response they leave, or AGAIN for the replay (which uses up no
   * retry). What they throw ends the call.
   */
  async #afterResponse(
    received: Response,
    attempt: Attempt,
  ): Promise<Response | Again> {
    const context = this.#context!;
    let response = received;
    try {
      const interceptors = context.interceptors;
      for (let i = interceptors.length - 1; i >= 0; i--) {
        const interceptor = interceptors[i];
        if (interceptor.onResponse === undefined) continue;
        const next = await untilAborted(
          interceptor.onResponse(response, context),
          context.signal,
          context.total,
        );
        if (next instanceof Response) response = next;
        if (context.replayRequested) break;
      }
      this.#lastStatus = response.status;
    } catch (error) {
      attempt.dispose();
      await discard(received);
      throw error;
    }
    if (!context.replayRequested) return response;
    context.replayRequested = false;
    context.replayed = true;
    attempt.dispose();
    this.#telemetry?.endAttempt(response.status);
    await discard(response);
    return AGAIN;
  }

  // --- the body ------------------------------------------------------------

  /**
   * Reads and parses a JSON body: the value, `HttpError` for a non-success
   * status, `SyntaxError` for a body that is not JSON; a read that fails
   * (timeout, cancellation, a dropped connection) is judged like a failed
   * send.
   */
  async #read(response: Response, attempt: Attempt): Promise<unknown> {
    const method = this.#method;
    const url = this.#url;
    try {
      if (!response.ok) {
        throw await httpErrorOf(response, this.#maxSize, {
          requestId: this.#requestId(),
          method,
          url,
        });
      }
      const text = await readText(response, this.#maxSize, {
        requestId: this.#requestId(),
        method,
        url,
      });
      let value: unknown;
      try {
        value = text === "" ? undefined : JSON.parse(text);
      } catch (error) {
        throw new SyntaxError(
          `The response to ${method} ${url} is not JSON: ${
            (error as Error).message
          }`,
          { cause: error },
        );
      }
      this.#telemetry?.end(response.status);
      // Not awaited here: the attempt is over once the body is read.
      const cached = this.#cached;
      if (cached !== undefined) {
        const sent = this.#context?.sent?.headers ?? this.#headers;
        return cached.save(response, text, sent).then(() => value);
      }
      return value;
    } catch (error) {
      if (error instanceof HttpError || error instanceof SyntaxError) {
        throw error;
      }
      return await this.#retryFailure(error, attempt, response.status);
    } finally {
      attempt.dispose();
    }
  }

  /** The X-Request-ID the request went out with, if any. */
  #requestId(): string | undefined {
    return this.#context?.sent?.headers.get("x-request-id") ??
      this.#headers["x-request-id"];
  }

  // --- failures ------------------------------------------------------------

  /**
   * Turns what a failed attempt threw into the error the call reports, and
   * rethrows at once what must not be retried (cancellation, total timeout,
   * an interceptor's own error, anything that is not a network failure).
   */
  #classify(error: unknown, attempt: Attempt): unknown {
    const caller = this.#caller;
    if (caller?.aborted) throw caller.reason;
    const total = this.#totalSignal;
    if (total?.aborted) throw total.reason;
    const context = this.#context;
    if (context?.interceptError !== undefined) {
      const { error: thrown } = context.interceptError;
      context.interceptError = undefined;
      throw thrown;
    }
    if (attempt.timedOut) return attempt.timeoutError();
    // fetch reports network failures (refused, reset, DNS) as TypeError.
    if (error instanceof TypeError) return error;
    throw error;
  }
}

function mergeHeaders(
  base: Record<string, string>,
  extra: NonNullable<RequestInit["headers"]>,
): Record<string, string> {
  const merged = { ...base };
  new Headers(extra).forEach((value, name) => {
    merged[name] = value;
  });
  return merged;
}
