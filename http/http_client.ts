// The public façade of the HTTP client: construction, configuration, the
// interceptor list and the call methods. A call itself runs in the request
// engine (_request_engine.ts); options are checked in _client_options.ts and
// requests are sent through ky in _transport.ts.
import type { IConfiguration } from "../config/mod.ts";
import {
  type ClientSettings,
  CONFIGURED,
  type ConfiguredSettings,
  publicOptions,
  resolveClientOptions,
} from "./_client_options.ts";
import { cacheSetup } from "./cache/_cache_setup.ts";
import { readApiConfiguration } from "./_configuration.ts";
import { RequestEngine } from "./request/_request_engine.ts";
import { resolveBase, withQuery } from "./_url.ts";
import type {
  HttpClientConfigurationOptions,
  HttpClientOptions,
  HttpRequestOptions,
  ResolvedHttpClientOptions,
} from "./http_client_options.ts";
import type { HttpInterceptor } from "./http_interceptor.ts";

const ABSOLUTE_URL = /^[a-z][a-z\d+\-.]*:/i;
const NO_OPTIONS: HttpRequestOptions = {};

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
 * ```ts ignore
 * // Not run here: it calls a remote API (api.example.com).
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
  /** The options every call applies. */
  readonly #settings: ClientSettings;
  /** Replaced, never mutated, so a running call keeps its snapshot. */
  #interceptors: readonly HttpInterceptor[] = [];

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
    this.#settings = resolveClientOptions(options);
  }

  /**
   * Creates a client from the `api` section of a configuration:
   *
   * | Key | Variable | Option | Accepted |
   * |---|---|---|---|
   * | `api:baseUrl` | `API_BASE_URL` | `baseUrl` (required) | absolute http(s) URL or a path starting with `/` |
   * | `api:timeout` | `API_TIMEOUT` | `timeout` | whole milliseconds, 1000–60000 |
   * | `api:retryAttempts` | `API_RETRY_ATTEMPTS` | `retryAttempts` | whole number, 0–10 |
   * | `api:enableCaching` | — | `enableCaching` | `true`/`false`, `1`/`0` |
   *
   * The variables reach these keys through the configuration's
   * `addStandardVariables()`; a variable of that name read as a key of its
   * own (`API_TIMEOUT`) is used when the `api:` key is absent. Numbers may be
   * strings, as variables are. An option passed in code wins over the
   * configuration (its value is then neither read nor checked); the
   * configuration fills only what the code did not set, and the client's
   * defaults the rest.
   *
   * Inside a running application, the client writes its retries through the
   * application's logging under `kit.http` (each retry at info, a call that
   * gives up after retrying at warning; addresses without their query),
   * unless `options.onRetry` is given. Outside an application it writes
   * nothing.
   *
   * With `api:enableCaching` true, `get()` calls go through a private HTTP
   * cache: a response is stored by its `Cache-Control` (`max-age`,
   * `no-store`, `no-cache`), `Expires`, `ETag`/`Last-Modified` and `Vary`,
   * never for a request with credentials unless the response is `public`;
   * a fresh one answers with no request, a stale one is revalidated. It is
   * kept in `options.cache`, else the application's `cache` service, else a
   * bounded memory store of the client's own.
   *
   * @param config Any configuration (a `ConfigurationManager`, loaded).
   * @param options Options that win over the configuration, and the other
   * client options (`totalTimeout`, `maxResponseSize`, `headers`, …).
   * @returns The client.
   * @throws {HttpConfigurationError} When no base address is given or
   * configured, or a configured value is not valid; the message names the
   * key and the value.
   * @throws {TypeError} As the constructor, for an invalid `options.baseUrl`;
   * for an `options.cache`, or an application `cache` service, that is not a
   * store.
   * @throws {RangeError} As the constructor, for an invalid option; for an
   * invalid `maxCacheEntrySize`, `maxCacheEntries` or `maxCacheSize`.
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
   *
   * @example With the HTTP cache in a store of the application's
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   * import { HttpClient } from "@vendor/kit/http";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({
   *   "api:baseUrl": "https://api.example.com",
   *   "api:enableCaching": "true",
   * }));
   * await config.loadConfiguration();
   * const cache = new CacheManager(new MemoryCacheProvider());
   * const client = HttpClient.fromConfiguration(config, { cache });
   * await cache.dispose();
   * ```
   */
  static fromConfiguration(
    config: IConfiguration,
    options: HttpClientConfigurationOptions = {},
  ): HttpClient {
    const {
      baseUrl,
      enableCaching,
      cache,
      maxCacheEntrySize,
      maxCacheEntries,
      maxCacheSize,
      ...rest
    } = options;
    const configured = readApiConfiguration(config, {
      baseUrl: baseUrl !== undefined,
      timeout: rest.timeout !== undefined,
      retryAttempts: rest.retryAttempts !== undefined,
      enableCaching: enableCaching !== undefined,
    });
    const caching = cacheSetup(
      { cache, maxCacheEntrySize, maxCacheEntries, maxCacheSize },
      enableCaching ?? configured.enableCaching ?? false,
    );
    const merged: HttpClientOptions & { [CONFIGURED]?: ConfiguredSettings } = {
      ...rest,
    };
    if (configured.timeout !== undefined) merged.timeout = configured.timeout;
    if (configured.retryAttempts !== undefined) {
      merged.retryAttempts = configured.retryAttempts;
    }
    merged[CONFIGURED] = { reportRetries: true, cache: caching };
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
    return publicOptions(this.#settings);
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
   * ```ts ignore
   * // Not run here: it calls a remote API (api.example.com).
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
   * ```ts ignore
   * // Not run here: it calls a remote API (api.example.com).
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
   * ```ts ignore
   * // Not run here: it calls a remote API (api.example.com).
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
   * ```ts ignore
   * // Not run here: it calls a remote API (api.example.com).
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
   * ```ts ignore
   * // Not run here: it calls a remote API (api.example.com).
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
   * ```ts ignore
   * // Not run here: it calls a remote API (api.example.com).
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
    return await new RequestEngine(
      this.#settings,
      this.#interceptors,
      method,
      url,
      options,
      parse,
    ).run();
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
