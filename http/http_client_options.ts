// The option types of HttpClient: the client's options, a call's options,
// what onRetry receives and the resolved options `client.options` returns.
import type { Clock } from "../core/mod.ts";
import type { HttpCacheStore } from "./cache/http_cache_store.ts";

/** Options of {@linkcode HttpClient}. */
export interface HttpClientOptions {
  /**
   * Limit for one attempt in milliseconds: from sending the request until the
   * response body is read (for the JSON methods) or the response headers
   * arrive (for {@linkcode HttpClient.request}). `0` turns it off.
   * Default 10000.
   */
  timeout?: number;
  /** Extra attempts after the first for retryable failures. Default 3. */
  retryAttempts?: number;
  /**
   * Base delay between attempts in milliseconds; retry `n` waits
   * `retryDelay * 2^(n-1)` (with jitter, capped at `maxRetryDelay`).
   * Default 1000.
   */
  retryDelay?: number;
  /**
   * Headers sent with every request. The client starts with
   * `Accept: application/json` and `Content-Type: application/json` (the
   * latter only on requests with a JSON or text body); these override them.
   */
  headers?: RequestInit["headers"];
  /**
   * Limit for a whole call in milliseconds: every attempt, the waits between
   * them and reading the body. `0` or `Infinity` turns it off. Default 30000,
   * or, when that is longer, `timeout` times the attempts counted up to three
   * (`timeout: 30000` with retries gives 90000). The default options fit
   * three 10-second attempts in 30 seconds; a longer `timeout` keeps that
   * proportion, so that raising it still leaves room to retry a timed-out
   * attempt. To give every retry its whole `timeout`, set it to
   * `(retryAttempts + 1) * timeout` plus the waits, or `0`.
   */
  totalTimeout?: number;
  /**
   * Largest response body, in bytes, that the JSON methods read (success and
   * error bodies alike, also the error body that {@linkcode ErrorInterceptor}
   * reads). A larger body fails the call with a
   * {@linkcode ResponseTooLargeError}: at once when its `Content-Length` is
   * above the limit, otherwise as soon as the bytes received pass it. `0` or
   * `Infinity` turns the limit off. The body returned by
   * {@linkcode HttpClient.request} is the caller's to read and is not
   * limited. Default 52428800 (50 MiB).
   */
  maxResponseSize?: number;
  /** Upper bound of one backoff delay in milliseconds. Default 30000. */
  maxRetryDelay?: number;
  /**
   * Longest `Retry-After` wait the client honours, in milliseconds. A
   * response asking for a longer wait is not retried: it is returned (the
   * JSON methods throw its {@linkcode HttpError}). Default 60000.
   */
  maxRetryAfter?: number;
  /**
   * Fraction (0 to 1) by which a backoff delay is randomly shortened, so that
   * clients that failed together do not retry together. Default 0.2.
   */
  retryJitter?: number;
  /**
   * Redirects one attempt follows at most. One more fails the call with a
   * {@linkcode RedirectError} (never retried). `0` follows none: the
   * redirect response is the call's response (the JSON methods throw its
   * {@linkcode HttpError}). Default 20. In a browser the page's `fetch`
   * follows redirects by its own rules, and this does not apply.
   */
  maxRedirects?: number;
  /**
   * Origins that keep the credential headers when a redirect leads to them,
   * such as `["https://auth.example.com"]` (an address counts by its
   * origin). A redirect to any other origin drops every header whose name
   * is a secret by Kit's secret rule (`Authorization`, `Cookie`,
   * `X-Api-Key`, `X-Auth-Token`, …), the client's, the call's and the
   * interceptors' alike; a redirect within the origin keeps them. Default
   * none. Not in a browser, whose `fetch` follows redirects itself.
   */
  trustedRedirectOrigins?: readonly string[];
  /**
   * Called before each retry wait; for logging and metrics. Given to
   * `HttpClient.fromConfiguration`, it replaces the client's own report of
   * retries to the application's log.
   */
  onRetry?: (event: HttpRetryEvent) => void;
  /**
   * The `fetch` to send requests with. Default `globalThis.fetch`. Outside a
   * browser it gets each request with `redirect: "manual"` and the client
   * follows redirects itself (see `maxRedirects`).
   */
  fetch?: (input: Request, init?: RequestInit) => Promise<Response>;
  /**
   * The clock the waits between attempts (the backoff and `Retry-After`)
   * and the `totalTimeout` run on, and `Retry-After` dates are read
   * against. Default: the system time, with timers that keep the process
   * alive while a call waits. A test gives the test kit's `FakeClock` and
   * moves time with `clock.advance(ms)`; the `timeout` of one attempt stays
   * on real time, as the request does.
   */
  clock?: Clock;
}

/**
 * Options of {@linkcode HttpClient.fromConfiguration}: every
 * {@linkcode HttpClientOptions} and the base address. Each one given here
 * wins over the configuration.
 */
export interface HttpClientConfigurationOptions extends HttpClientOptions {
  /** The base address; wins over `api:baseUrl`. */
  baseUrl?: string;
  /**
   * Turns the HTTP cache of GET responses (those of `get()`) on or off;
   * wins over `api:enableCaching`. Default off.
   */
  enableCaching?: boolean;
  /**
   * Where the HTTP cache keeps responses: a `CacheManager` of
   * `@vendor/kit/caching`, or any {@linkcode HttpCacheStore}. Default: the
   * running application's `cache` service when it has one (so that the
   * instances of an application share a Redis cache), else a memory store
   * of the client's own (see `maxCacheEntries`, `maxCacheSize`). Used only
   * when the cache is on.
   */
  cache?: HttpCacheStore;
  /**
   * Largest body the HTTP cache stores, in UTF-8 bytes; a larger response is
   * served but not stored. `0` or `Infinity` turns the limit off. Default
   * 1048576 (1 MiB).
   */
  maxCacheEntrySize?: number;
  /**
   * Most responses the client's own memory store keeps (least recently used
   * out first). Default 1000.
   */
  maxCacheEntries?: number;
  /**
   * Most bytes of bodies the client's own memory store keeps (least recently
   * used out first). `0` or `Infinity` turns the limit off. Default 33554432
   * (32 MiB).
   */
  maxCacheSize?: number;
}

/** A query-string value; `null` and `undefined` entries are left out. */
export type HttpQueryValue = string | number | boolean | null | undefined;

/** Options of one call. */
export interface HttpRequestOptions {
  /** Headers for this call; they override the client's headers. */
  headers?: RequestInit["headers"];
  /** Query string: an object (arrays repeat the key), params or text. */
  query?:
    | Record<string, HttpQueryValue | readonly HttpQueryValue[]>
    | URLSearchParams
    | string;
  /** A value sent as JSON (`JSON.stringify`). Not together with `body`. */
  json?: unknown;
  /** A raw body (text, form data, bytes, blob, stream). */
  body?: RequestInit["body"];
  /**
   * Cancels the call: it rejects with the signal's reason and is never
   * retried.
   */
  signal?: AbortSignal;
  /** Per-attempt timeout for this call, in milliseconds (`0` = none). */
  timeout?: number;
  /** Retry attempts for this call, overriding the client's. */
  retryAttempts?: number;
  /**
   * Limit of the whole call in milliseconds, overriding the client's
   * `totalTimeout` (`0` = none). When neither gives one, the default is
   * worked out from this call's `timeout` and `retryAttempts`.
   */
  totalTimeout?: number;
  /**
   * Largest response body for this call in bytes, overriding the client's
   * `maxResponseSize` (`0` = no limit).
   */
  maxResponseSize?: number;
  /**
   * Marks the call as safe to repeat, so that a POST or PATCH is retried
   * like GET, HEAD, PUT, DELETE and OPTIONS are (for example with an
   * idempotency key).
   */
  idempotent?: boolean;
}

/** What {@linkcode HttpClientOptions.onRetry} receives. */
export interface HttpRetryEvent {
  /** Upper-case HTTP method. */
  method: string;
  /** Address of the call. */
  url: string;
  /** Number of the retry about to happen: 1 for the first. */
  retry: number;
  /** Whole milliseconds the client waits before it. */
  delay: number;
  /** Status of the failed attempt, when it got a response. */
  status?: number;
  /** The failure of the attempt, when it got no response. */
  error?: unknown;
}

/**
 * The options of an {@linkcode HttpClient} as it applies them: what was
 * given, with defaults filled in (`0` where a limit is off). Read them from
 * {@linkcode HttpClient.prototype.options}.
 */
export interface ResolvedHttpClientOptions {
  /** Limit of one attempt in milliseconds (`0` = none). */
  readonly timeout: number;
  /** Extra attempts after the first. */
  readonly retryAttempts: number;
  /** Base delay between attempts in milliseconds. */
  readonly retryDelay: number;
  /** Limit of a whole call in milliseconds (`0` = none). */
  readonly totalTimeout: number;
  /** Largest response body read, in bytes (`0` = no limit). */
  readonly maxResponseSize: number;
  /** Upper bound of one backoff delay in milliseconds. */
  readonly maxRetryDelay: number;
  /** Longest `Retry-After` wait honoured, in milliseconds. */
  readonly maxRetryAfter: number;
  /** Fraction by which a backoff delay is randomly shortened. */
  readonly retryJitter: number;
  /** Redirects one attempt follows at most (`0` = none). */
  readonly maxRedirects: number;
  /** Origins that keep the credential headers on a redirect to them. */
  readonly trustedRedirectOrigins: readonly string[];
}
