import type { KyInstance } from "ky";
import type { Clock } from "../core/mod.ts";
import { parseRetryAfter } from "../internal/retry_after.ts";
import type { IConfiguration } from "../config/mod.ts";
import { RequestContext } from "../platform/mod.ts";
import { Attempt } from "./_attempt.ts";
import { loadKy } from "./_ky_deno.ts";
import { errorOf, readText } from "./_body.ts";
import { readApiConfiguration } from "./_configuration.ts";
import { CallContext } from "./_call_context.ts";
import {
  backoffDelay,
  CALLER_CLOCK,
  discard,
  IDEMPOTENT_METHODS,
  RETRY_STATUSES,
  sleep,
} from "./_retry.ts";
import { HttpError } from "./http_error.ts";
import {
  followRedirects,
  isRedirect,
  type RedirectPolicy,
  trustedOrigins,
} from "./_redirect.ts";
import { REDIRECT_MODE } from "./_redirect_mode.ts";
import type { HttpInterceptor } from "./http_interceptor.ts";
import { startCall } from "./_telemetry.ts";
import { TimeoutError } from "./timeout_error.ts";
import { resolveBase, withQuery } from "./_url.ts";
import { byteCount, count, MAX_TIMER, milliseconds } from "./_validate.ts";

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
   * or `timeout` when that is longer (so one whole attempt always fits).
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
  /** Called before each retry wait; for logging and metrics. */
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
   * `totalTimeout` (`0` = none).
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

const DEFAULT_TIMEOUT = 10_000;
const DEFAULT_TOTAL_TIMEOUT = 30_000;
const DEFAULT_MAX_RESPONSE_SIZE = 50 * 1024 * 1024;
const DEFAULT_RETRY_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY = 1_000;
const DEFAULT_MAX_RETRY_DELAY = 30_000;
const DEFAULT_MAX_RETRY_AFTER = 60_000;
const DEFAULT_JITTER = 0.2;
const DEFAULT_MAX_REDIRECTS = 20;
const ABSOLUTE_URL = /^[a-z][a-z\d+\-.]*:/i;
const NO_OPTIONS: HttpRequestOptions = {};
/** Characters a header value cannot hold. */
const UNSAFE_HEADER_VALUE = /[\r\n\0]/;
const JSON_TYPE = "application/json";

type Ky = KyInstance;
interface KyInit {
  method: string;
  /** Only with interceptors, which must see them on the request. */
  headers?: Record<string, string>;
  body?: RequestInit["body"];
  /** Passed through by ky to `fetch` (see the constructor). */
  kit: Attempt | undefined;
  context?: Record<string, unknown>;
}
type Fetch = NonNullable<HttpClientOptions["fetch"]>;

/**
 * HTTP client for JSON APIs, built on `ky`: a base address,
 * default JSON headers, interceptors, per-attempt and total timeouts, and
 * retries with exponential backoff that honour `Retry-After`.
 *
 * The JSON methods (`get`, `post`, `put`, `patch`, `delete`) return the
 * parsed body (`undefined` for an empty body) and throw {@linkcode HttpError}
 * for a non-success status; {@linkcode HttpClient.request} returns the
 * `Response` itself.
 *
 * Redirects are followed by the client itself (up to `maxRedirects`, 20 by
 * default; past it a {@linkcode RedirectError}): a redirect to another
 * origin drops the credential headers (`Authorization`, `Cookie`,
 * `X-Api-Key`, …) unless the origin is in `trustedRedirectOrigins`.
 *
 * Paths are appended to the base address (`/users` and `users` both give
 * `<base>/users`); an absolute URL (`https://...`) is used as it is. The base
 * address may be relative (`/api`): in a browser it is resolved against the
 * page (the development-proxy answer to CORS errors); elsewhere a
 * relative base has no origin, so calls with relative paths throw.
 *
 * @example Usage
 * ```ts
 * import { HttpClient } from "@vendor/kit/http";
 *
 * const client = new HttpClient("https://api.example.com", {
 *   timeout: 10_000,
 *   retryAttempts: 3,
 *   retryDelay: 1_000,
 *   headers: { "X-App": "demo" },
 * });
 * interface User {
 *   id: number;
 *   name: string;
 * }
 * const user = await client.get<User>("/users/1");
 * await client.post<User>("/users", { json: { name: "Ada" } });
 * ```
 */
export class HttpClient {
  /** The base address as given to the constructor. */
  readonly baseUrl: string;
  /** Base address with a trailing slash; undefined when it cannot resolve. */
  readonly #prefix: string | undefined;
  readonly #timeout: number;
  readonly #retryAttempts: number;
  readonly #retryDelay: number;
  /** The total timeout; undefined when not given (it then follows timeout). */
  readonly #totalTimeout: number | undefined;
  readonly #maxResponseSize: number;
  readonly #maxRetryDelay: number;
  readonly #maxRetryAfter: number;
  readonly #jitter: number;
  readonly #onRetry: ((event: HttpRetryEvent) => void) | undefined;
  readonly #clock: Clock;
  readonly #redirects: RedirectPolicy;
  readonly #trustedOrigins: readonly string[];
  /** Headers for requests without a body (lower-case names). */
  readonly #plainHeaders: Record<string, string>;
  /** Headers for requests with a JSON or text body. */
  readonly #bodyHeaders: Record<string, string>;
  /** Replaced, never mutated, so a running call keeps its snapshot. */
  #interceptors: readonly HttpInterceptor[] = [];
  readonly #ky: Ky;
  readonly #kyIntercepted: Ky;

  /**
   * Creates a client.
   *
   * @param baseUrl An absolute `http:`/`https:` address, or a path starting
   * with `/` that is resolved against the page in a browser.
   * @param options Timeouts, retries and default headers.
   * @throws {TypeError} When `baseUrl` is not an absolute http(s) URL or a
   * path starting with `/`, or has a query or fragment, or an entry of
   * `trustedRedirectOrigins` is not an http(s) address, or `clock` is not a
   * `Clock`.
   * @throws {RangeError} When a timeout or delay is negative or too large, or
   * a retry count is not a whole number ≥ 0.
   */
  constructor(baseUrl: string, options: HttpClientOptions = {}) {
    this.baseUrl = baseUrl;
    this.#prefix = resolveBase(baseUrl);
    this.#timeout = milliseconds(
      "timeout",
      options.timeout,
      DEFAULT_TIMEOUT,
      true,
    );
    this.#retryAttempts = count(
      "retryAttempts",
      options.retryAttempts,
      DEFAULT_RETRY_ATTEMPTS,
    );
    this.#retryDelay = milliseconds(
      "retryDelay",
      options.retryDelay,
      DEFAULT_RETRY_DELAY,
    );
    this.#totalTimeout = options.totalTimeout === undefined
      ? undefined
      : milliseconds("totalTimeout", options.totalTimeout, 0, true);
    this.#maxResponseSize = byteCount(
      "maxResponseSize",
      options.maxResponseSize,
      DEFAULT_MAX_RESPONSE_SIZE,
    );
    this.#maxRetryDelay = milliseconds(
      "maxRetryDelay",
      options.maxRetryDelay,
      DEFAULT_MAX_RETRY_DELAY,
    );
    this.#maxRetryAfter = milliseconds(
      "maxRetryAfter",
      options.maxRetryAfter,
      DEFAULT_MAX_RETRY_AFTER,
    );
    const jitter = options.retryJitter ?? DEFAULT_JITTER;
    if (typeof jitter !== "number" || !(jitter >= 0 && jitter <= 1)) {
      throw new RangeError(
        `Invalid retryJitter: ${jitter}; expected a fraction from 0 to 1`,
      );
    }
    this.#jitter = jitter;
    this.#onRetry = options.onRetry;
    this.#clock = clockOption(options.clock);
    this.#trustedOrigins = Object.freeze(
      trustedOrigins(options.trustedRedirectOrigins),
    );
    const redirects: RedirectPolicy = {
      max: count("maxRedirects", options.maxRedirects, DEFAULT_MAX_REDIRECTS),
      trusted: new Set(this.#trustedOrigins),
    };
    this.#redirects = redirects;

    const headers: Record<string, string> = {
      accept: JSON_TYPE,
      "content-type": JSON_TYPE,
    };
    new Headers(options.headers).forEach((value, name) => {
      headers[name] = value;
    });
    this.#bodyHeaders = headers;
    const { "content-type": _contentType, ...plain } = headers;
    this.#plainHeaders = plain;

    // ky sends each attempt; HttpClient drives the attempts itself because
    // ky's retry and timeout cannot express this contract: ky runs
    // beforeRequest hooks on the already-modified request of the previous
    // attempt, its TimeoutError text differs and its timer stops when the
    // headers arrive (not covering the body), it has no total timeout, its
    // Retry-After handling caps the wait instead of giving up past the cap and
    // applies only to some statuses, its jitter is all-or-nothing, and a 401
    // refresh-and-replay would have to count as a retry.
    //
    // The attempt reaches `send` as the unknown option `kit`, which ky keeps
    // in the options it hands its hooks (and would pass to `fetch`, its
    // documented route for options such as `dispatcher`). It carries the
    // attempt's signal: giving that to ky as
    // `signal` would make ky combine it with its own controller through
    // AbortSignal.any on every call, a measurable cost on the hot path; this
    // way the request follows exactly one signal, the attempt's, which the
    // per-attempt timer, the caller's signal and the total timeout all abort.
    // Without interceptors it also carries the headers, set on ky's request
    // here: handed to ky as `headers`, they would be merged into new Headers
    // objects twice per call (ky's option merging and its constructor).
    const custom = options.fetch;
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
    // Node.js loading it costs a cold start about 38 ms (see _ky_node.ts).
    // Loading it synchronously keeps every call free of the look-up.
    const ky = loadKy();
    this.#ky = ky.create({ ...base, hooks: { beforeRequest: [sendHook] } });
    this.#kyIntercepted = ky.create({
      ...base,
      hooks: {
        beforeRequest: [
          (request: Request, init: object) =>
            runIntercepts(request, init as InterceptInit, send),
        ],
      },
    });
  }

  /**
   * Creates a client from the `api` section of a configuration:
   *
   * | Key | Variable | Option | Accepted |
   * |---|---|---|---|
   * | `api:baseUrl` | `API_BASE_URL` | `baseUrl` (required) | absolute http(s) URL or a path starting with `/` |
   * | `api:timeout` | `API_TIMEOUT` | `timeout` | whole milliseconds, 1000–60000 |
   * | `api:retryAttempts` | `API_RETRY_ATTEMPTS` | `retryAttempts` | whole number, 0–10 |
   *
   * The variables reach these keys through the configuration's
   * `addStandardVariables()`; a variable of that name read as a key of its
   * own (`API_TIMEOUT`) is used when the `api:` key is absent. Numbers may be
   * strings, as variables are. An option passed in code wins over the
   * configuration (its value is then neither read nor checked); the
   * configuration fills only what the code did not set, and the client's
   * defaults the rest.
   *
   * @param config Any configuration (a `ConfigurationManager`, loaded).
   * @param options Options that win over the configuration, and the other
   * client options (`totalTimeout`, `maxResponseSize`, `headers`, …).
   * @returns The client.
   * @throws {HttpConfigurationError} When no base address is given or
   * configured, or a configured value is not valid; the message names the
   * key and the value.
   * @throws {TypeError} As the constructor, for an invalid `options.baseUrl`.
   * @throws {RangeError} As the constructor, for an invalid option.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({
   *   "api:baseUrl": "https://api.example.com",
   *   "api:timeout": "5000",
   * }));
   * config.addStandardVariables(); // API_BASE_URL, API_TIMEOUT, API_RETRY_ATTEMPTS
   * await config.loadConfiguration();
   * const client = HttpClient.fromConfiguration(config, { retryAttempts: 1 });
   * client.options.timeout; // 5000 (configuration)
   * client.options.retryAttempts; // 1 (code wins)
   * ```
   */
  static fromConfiguration(
    config: IConfiguration,
    options: HttpClientConfigurationOptions = {},
  ): HttpClient {
    const { baseUrl, ...rest } = options;
    const configured = readApiConfiguration(config, {
      baseUrl: baseUrl !== undefined,
      timeout: rest.timeout !== undefined,
      retryAttempts: rest.retryAttempts !== undefined,
    });
    const merged: HttpClientOptions = { ...rest };
    if (configured.timeout !== undefined) merged.timeout = configured.timeout;
    if (configured.retryAttempts !== undefined) {
      merged.retryAttempts = configured.retryAttempts;
    }
    return new HttpClient(baseUrl ?? configured.baseUrl!, merged);
  }

  /**
   * The options this client applies: those given to the constructor with the
   * defaults filled in (`0` where a limit is off).
   *
   * @returns A frozen snapshot of the resolved options.
   *
   * @example Usage
   * ```ts
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const client = new HttpClient("https://api.example.com");
   * client.options.totalTimeout; // 30000
   * client.options.maxResponseSize; // 52428800 (50 MiB)
   * ```
   */
  get options(): ResolvedHttpClientOptions {
    return Object.freeze({
      timeout: this.#timeout,
      retryAttempts: this.#retryAttempts,
      retryDelay: this.#retryDelay,
      totalTimeout: this.#totalTimeout ?? defaultTotal(this.#timeout),
      maxResponseSize: this.#maxResponseSize,
      maxRetryDelay: this.#maxRetryDelay,
      maxRetryAfter: this.#maxRetryAfter,
      retryJitter: this.#jitter,
      maxRedirects: this.#redirects.max,
      trustedRedirectOrigins: this.#trustedOrigins,
    });
  }

  /**
   * Adds an interceptor. `intercept` runs before every attempt
   * in the order added; `onResponse` runs on responses in reverse order.
   *
   * @param interceptor The interceptor to add.
   * @returns This client, for chaining.
   *
   * @example Usage
   * ```ts
   * import {
   *   AuthInterceptor,
   *   ErrorInterceptor,
   *   HttpClient,
   *   StorageTokenSource,
   * } from "@vendor/kit/http";
   *
   * const tokens = new StorageTokenSource();
   * const client = new HttpClient("https://api.example.com")
   *   .addInterceptor(new ErrorInterceptor())
   *   .addInterceptor(new AuthInterceptor({ getToken: () => tokens.getToken() }));
   * ```
   */
  addInterceptor(interceptor: HttpInterceptor): this {
    if (
      interceptor === null || typeof interceptor !== "object" ||
      typeof interceptor.intercept !== "function"
    ) {
      throw new TypeError(
        "addInterceptor() needs an object with an intercept(request) method",
      );
    }
    this.#interceptors = [...this.#interceptors, interceptor];
    return this;
  }

  /**
   * Removes an interceptor added before.
   *
   * @param interceptor The interceptor to remove.
   * @returns `true` when it was present.
   *
   * @example Usage
   * ```ts
   * import { ErrorInterceptor, HttpClient } from "@vendor/kit/http";
   *
   * const client = new HttpClient("https://api.example.com");
   * const errors = new ErrorInterceptor();
   * client.addInterceptor(errors);
   * client.removeInterceptor(errors); // true
   * ```
   */
  removeInterceptor(interceptor: HttpInterceptor): boolean {
    const index = this.#interceptors.indexOf(interceptor);
    if (index < 0) return false;
    this.#interceptors = this.#interceptors.filter((_, i) => i !== index);
    return true;
  }

  /**
   * Sends a GET request and returns the parsed JSON body.
   *
   * @typeParam T The expected shape of the body (not checked at runtime).
   * @param path A path appended to the base address, or an absolute URL.
   * @param options Headers, query, signal, timeout of this call.
   * @returns The parsed body; `undefined` when the body is empty.
   * @throws {HttpError} For a non-success status.
   * @throws {TimeoutError} When an attempt or the call runs out of time.
   * @throws {RedirectError} When a redirect is not followed: past
   * `maxRedirects`, or to an address that is not http(s).
   * @throws {SyntaxError} When the body is not JSON.
   *
   * @example Usage
   * ```ts
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const client = new HttpClient("https://api.example.com");
   * const page = await client.get<{ items: string[] }>("/items", {
   *   query: { page: 2 },
   * });
   * ```
   */
  get<T = unknown>(path: string, options?: HttpRequestOptions): Promise<T> {
    return this.#call("GET", path, options, true) as Promise<T>;
  }

  /**
   * Sends a POST request and returns the parsed JSON body. Not retried unless
   * `options.idempotent` is `true`.
   *
   * @typeParam T The expected shape of the body (not checked at runtime).
   * @param path A path appended to the base address, or an absolute URL.
   * @param options `json` or `body`, headers, query, signal, timeout.
   * @returns The parsed body; `undefined` when the body is empty.
   * @throws {HttpError} For a non-success status.
   * @throws {TimeoutError} When an attempt or the call runs out of time.
   * @throws {RedirectError} When a redirect is not followed: past
   * `maxRedirects`, or to an address that is not http(s).
   * @throws {SyntaxError} When the body is not JSON.
   *
   * @example Usage
   * ```ts
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const client = new HttpClient("https://api.example.com");
   * const created = await client.post<{ id: number }>("/users", {
   *   json: { name: "Ada" },
   * });
   * ```
   */
  post<T = unknown>(path: string, options?: HttpRequestOptions): Promise<T> {
    return this.#call("POST", path, options, true) as Promise<T>;
  }

  /**
   * Sends a PUT request and returns the parsed JSON body.
   *
   * @typeParam T The expected shape of the body (not checked at runtime).
   * @param path A path appended to the base address, or an absolute URL.
   * @param options `json` or `body`, headers, query, signal, timeout.
   * @returns The parsed body; `undefined` when the body is empty.
   * @throws {HttpError} For a non-success status.
   * @throws {TimeoutError} When an attempt or the call runs out of time.
   * @throws {RedirectError} When a redirect is not followed: past
   * `maxRedirects`, or to an address that is not http(s).
   * @throws {SyntaxError} When the body is not JSON.
   *
   * @example Usage
   * ```ts
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const client = new HttpClient("https://api.example.com");
   * await client.put("/users/1", { json: { name: "Ada" } });
   * ```
   */
  put<T = unknown>(path: string, options?: HttpRequestOptions): Promise<T> {
    return this.#call("PUT", path, options, true) as Promise<T>;
  }

  /**
   * Sends a PATCH request and returns the parsed JSON body. Not retried
   * unless `options.idempotent` is `true`.
   *
   * @typeParam T The expected shape of the body (not checked at runtime).
   * @param path A path appended to the base address, or an absolute URL.
   * @param options `json` or `body`, headers, query, signal, timeout.
   * @returns The parsed body; `undefined` when the body is empty.
   * @throws {HttpError} For a non-success status.
   * @throws {TimeoutError} When an attempt or the call runs out of time.
   * @throws {RedirectError} When a redirect is not followed: past
   * `maxRedirects`, or to an address that is not http(s).
   * @throws {SyntaxError} When the body is not JSON.
   *
   * @example Usage
   * ```ts
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const client = new HttpClient("https://api.example.com");
   * await client.patch("/users/1", { json: { name: "Ada" } });
   * ```
   */
  patch<T = unknown>(path: string, options?: HttpRequestOptions): Promise<T> {
    return this.#call("PATCH", path, options, true) as Promise<T>;
  }

  /**
   * Sends a DELETE request and returns the parsed JSON body.
   *
   * @typeParam T The expected shape of the body (not checked at runtime).
   * @param path A path appended to the base address, or an absolute URL.
   * @param options Headers, query, signal, timeout of this call.
   * @returns The parsed body; `undefined` when the body is empty.
   * @throws {HttpError} For a non-success status.
   * @throws {TimeoutError} When an attempt or the call runs out of time.
   * @throws {RedirectError} When a redirect is not followed: past
   * `maxRedirects`, or to an address that is not http(s).
   * @throws {SyntaxError} When the body is not JSON.
   *
   * @example Usage
   * ```ts
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const client = new HttpClient("https://api.example.com");
   * await client.delete("/users/1");
   * ```
   */
  delete<T = unknown>(path: string, options?: HttpRequestOptions): Promise<T> {
    return this.#call("DELETE", path, options, true) as Promise<T>;
  }

  /**
   * Sends a request with any method and returns the `Response` as it is:
   * a non-success status does not throw here (an interceptor such as
   * {@linkcode ErrorInterceptor} may). Timeouts, retries and interceptors
   * apply as for the JSON methods; the per-attempt timeout ends when the
   * headers arrive.
   *
   * @param method The HTTP method (any case).
   * @param path A path appended to the base address, or an absolute URL.
   * @param options Body, headers, query, signal, timeout of this call.
   * @returns The response; read its body once.
   * @throws {TimeoutError} When an attempt or the call runs out of time.
   * @throws {RedirectError} When a redirect is not followed: past
   * `maxRedirects`, or to an address that is not http(s).
   *
   * @example Usage
   * ```ts
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const client = new HttpClient("https://api.example.com");
   * const response = await client.request("HEAD", "/files/report.pdf");
   * console.log(response.status, response.headers.get("content-length"));
   * ```
   */
  request(
    method: string,
    path: string,
    options?: HttpRequestOptions,
  ): Promise<Response> {
    return this.#call(method.toUpperCase(), path, options, false) as Promise<
      Response
    >;
  }

  async #call(
    method: string,
    path: string,
    options: HttpRequestOptions = NO_OPTIONS,
    parse: boolean,
  ): Promise<unknown> {
    const url = options.query === undefined
      ? this.#resolve(path)
      : withQuery(this.#resolve(path), options.query);
    const caller = options.signal;
    caller?.throwIfAborted();

    let body = options.body;
    let headers = this.#plainHeaders;
    if (options.json !== undefined) {
      if (body !== undefined && body !== null) {
        throw new TypeError("Give a call either `json` or `body`, not both");
      }
      body = JSON.stringify(options.json);
      headers = this.#bodyHeaders;
    } else if (typeof body === "string") {
      headers = this.#bodyHeaders;
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
    const timeout = options.timeout === undefined
      ? this.#timeout
      : milliseconds("timeout", options.timeout, 0, true);
    const maxRetries = options.retryAttempts === undefined
      ? this.#retryAttempts
      : count("retryAttempts", options.retryAttempts, 0);
    const totalTimeout = options.totalTimeout !== undefined
      ? milliseconds("totalTimeout", options.totalTimeout, 0, true)
      : this.#totalTimeout ?? defaultTotal(timeout);
    const maxSize = options.maxResponseSize === undefined
      ? this.#maxResponseSize
      : byteCount("maxResponseSize", options.maxResponseSize, 0);
    // A stream can be sent only once: no retry, no replay.
    const repeatable = !(body instanceof ReadableStream);
    const retryable = repeatable &&
      (options.idempotent === true || IDEMPOTENT_METHODS.has(method));

    const clock = this.#clock;
    const deadline = totalTimeout > 0 ? clock.now() + totalTimeout : Infinity;
    let totalSignal: AbortSignal | undefined;
    let totalTimer: unknown;
    // Starts the total timeout's timer, which aborts totalSignal at the
    // deadline (once; nothing when there is no total timeout).
    const armTotal = (): void => {
      if (totalTimeout <= 0 || totalTimer !== undefined) return;
      const total = new AbortController();
      totalSignal = total.signal;
      totalTimer = clock.setTimeout(
        () => abortTotal(total, totalTimeout, method, url),
        Math.max(0, deadline - clock.now()),
      );
    };
    const interceptors = this.#interceptors;
    // Without interceptors, an attempt timer shorter than the total ends the
    // first attempt before the total could, so the total's controller and
    // timer are needed only from the first retry on: the call that succeeds
    // at once (nearly every call) spares them.
    if (interceptors.length !== 0 || timeout <= 0 || timeout >= totalTimeout) {
      armTotal();
    }

    const context = interceptors.length === 0 ? undefined : new CallContext(
      method,
      url,
      caller,
      interceptors,
      repeatable,
      totalSignal,
      maxSize,
    );
    const instance = context === undefined ? this.#ky : this.#kyIntercepted;

    // Reused by every attempt; only the attempt changes. ky copies it.
    const init: KyInit = context === undefined
      ? body === undefined
        ? { method, kit: undefined }
        : { method, body, kit: undefined }
      : { method, headers, body, kit: undefined, context: { kit: context } };

    // Spans and the duration histogram; undefined when no OpenTelemetry SDK
    // is registered.
    const telemetry = startCall(method, url);
    let lastStatus: number | undefined;
    let retries = 0;
    // Counts a retry, tells onRetry and waits its delay (the backoff unless
    // the server's Retry-After gave one); throws when the wait would pass the
    // total timeout or the call is cancelled meanwhile.
    const nextRetry = (
      delay: number | undefined,
      error: unknown,
      status: number | undefined,
    ): Promise<void> => {
      retries++;
      const event: HttpRetryEvent = { method, url, retry: retries, delay: 0 };
      if (status !== undefined) event.status = status;
      else event.error = error;
      armTotal();
      return this.#wait(
        delay ?? this.#backoff(retries),
        event,
        deadline,
        totalTimeout,
        caller,
        totalSignal,
      );
    };
    try {
      for (;;) {
        lastStatus = undefined;
        const attempt = new Attempt(
          timeout,
          method,
          url,
          caller,
          totalSignal,
          context === undefined ? headers : undefined,
          telemetry?.startAttempt(),
          body,
        );
        init.kit = attempt;
        let response: Response;
        let pending: Promise<Response>;
        if (context === undefined) {
          attempt.arm();
        } else {
          context.attempt++;
          context.current = attempt;
        }
        try {
          // A synchronous throw (a malformed header, say) is not a network
          // failure, so it is never retried.
          pending = telemetry === undefined
            ? instance(url, init)
            : telemetry.run(instance, url, init);
        } catch (error) {
          attempt.dispose();
          throw error;
        }
        let failure: unknown;
        try {
          response = await pending;
        } catch (error) {
          attempt.dispose();
          failure = this.#failure(error, attempt, context, caller, totalSignal);
          if (!retryable || retries >= maxRetries) throw failure;
          telemetry?.endAttempt(undefined, failure);
          await nextRetry(undefined, failure, undefined);
          continue;
        }
        lastStatus = response.status;

        if (
          retryable && retries < maxRetries &&
          RETRY_STATUSES.has(response.status)
        ) {
          const after = parseRetryAfter(
            response.headers.get("retry-after"),
            clock.now(),
          );
          if (after === undefined || after <= this.#maxRetryAfter) {
            attempt.dispose();
            telemetry?.endAttempt(response.status);
            await discard(response);
            await nextRetry(after, undefined, response.status);
            continue;
          }
        }

        if (context !== undefined) {
          const received = response;
          try {
            response = await onResponse(received, context);
            lastStatus = response.status;
          } catch (error) {
            attempt.dispose();
            await discard(received);
            throw error;
          }
          if (context.replayRequested) {
            context.replayRequested = false;
            context.replayed = true;
            attempt.dispose();
            telemetry?.endAttempt(response.status);
            await discard(response);
            continue;
          }
        }

        if (!parse) {
          attempt.dispose();
          telemetry?.end(response.status);
          return response;
        }
        try {
          if (!response.ok) {
            throw await errorOf(response, maxSize, {
              requestId: requestIdOf(context, headers),
              method,
              url,
            });
          }
          const text = await readText(response, maxSize, {
            requestId: requestIdOf(context, headers),
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
          telemetry?.end(response.status);
          return value;
        } catch (error) {
          if (error instanceof HttpError || error instanceof SyntaxError) {
            throw error;
          }
          // Reading the body failed: timeout, cancellation or a dropped
          // connection, judged like a failed send.
          failure = this.#failure(error, attempt, context, caller, totalSignal);
          if (!retryable || retries >= maxRetries) throw failure;
          telemetry?.endAttempt(response.status, failure);
          await nextRetry(undefined, failure, undefined);
          continue;
        } finally {
          attempt.dispose();
        }
      }
    } catch (error) {
      telemetry?.end(lastStatus, error);
      throw error;
    } finally {
      if (totalTimer !== undefined) clock.clearTimeout(totalTimer);
    }
  }

  /**
   * Turns what a failed attempt threw into the error the call reports, and
   * rethrows at once what must not be retried (cancellation, total timeout,
   * an interceptor's own error, anything that is not a network failure).
   */
  #failure(
    error: unknown,
    attempt: Attempt,
    context: CallContext | undefined,
    caller: AbortSignal | undefined,
    total: AbortSignal | undefined,
  ): unknown {
    if (caller?.aborted) throw caller.reason;
    if (total?.aborted) throw total.reason;
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

  #backoff(retry: number): number {
    return backoffDelay(
      retry,
      this.#retryDelay,
      this.#maxRetryDelay,
      this.#jitter,
    );
  }

  /** Waits before a retry; fails fast when the wait would pass the deadline. */
  async #wait(
    delay: number,
    event: HttpRetryEvent,
    deadline: number,
    totalTimeout: number,
    caller: AbortSignal | undefined,
    total: AbortSignal | undefined,
  ): Promise<void> {
    if (this.#clock.now() + delay >= deadline) {
      throw new TimeoutError(
        totalTimeout,
        "total",
        event.method,
        event.url,
      );
    }
    // Whole milliseconds (jitter and Retry-After dates give fractions),
    // never shorter than asked.
    event.delay = Math.ceil(delay);
    this.#onRetry?.(event);
    await sleep(this.#clock, Math.min(event.delay, MAX_TIMER), caller, total);
  }

  #resolve(path: string): string {
    if (ABSOLUTE_URL.test(path)) return path;
    const prefix = this.#prefix;
    if (prefix === undefined) {
      throw new TypeError(
        `Cannot resolve "${path}" against the relative base URL "${this.baseUrl}": ` +
          "there is no page origin (globalThis.location) outside a browser; " +
          'give HttpClient an absolute base URL such as "http://localhost:3000/api"',
      );
    }
    return path.charCodeAt(0) === 47 /* / */
      ? prefix + path.slice(1)
      : prefix + path;
  }
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

/** Runs every `onResponse`, last added first, until one asks for a replay. */
async function onResponse(
  response: Response,
  context: CallContext,
): Promise<Response> {
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
  return response;
}

/**
 * Settles like `value`, or rejects with the reason of the first signal that
 * aborts: cancellation and the total timeout must not wait for a slow
 * interceptor (a hanging token refresh, say). Without signals, or for a value
 * that is not a promise, it returns `value` as it is.
 */
function untilAborted<T>(
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

/** The total timeout when none was given: 30 s, or one whole attempt. */
function defaultTotal(timeout: number): number {
  return timeout > DEFAULT_TOTAL_TIMEOUT ? timeout : DEFAULT_TOTAL_TIMEOUT;
}

function clockOption(value: unknown): Clock {
  if (value === undefined) return CALLER_CLOCK;
  if (
    typeof value !== "object" || value === null ||
    typeof (value as Clock).now !== "function" ||
    typeof (value as Clock).setTimeout !== "function" ||
    typeof (value as Clock).clearTimeout !== "function"
  ) {
    throw new TypeError(
      `Invalid clock: ${
        String(value)
      }; expected a Clock (now, setTimeout, clearTimeout)`,
    );
  }
  return value as Clock;
}

function abortTotal(
  controller: AbortController,
  timeout: number,
  method: string,
  url: string,
): void {
  controller.abort(new TimeoutError(timeout, "total", method, url));
}

function requestIdOf(
  context: CallContext | undefined,
  headers: Record<string, string>,
): string | undefined {
  return context?.sent?.headers.get("x-request-id") ??
    headers["x-request-id"];
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
