import { checkTemplate, fillTemplate } from "../messages/_template.ts";
import type { LocalizationLoader } from "./localization_loader.ts";
import { LocalizationLoadError } from "./localization_load_error.ts";
import { describeNetworkError } from "../../internal/delivery/network_error.ts";
import { fullAddress } from "./_full_address.ts";
import { BodyTooLarge, readBoundedText } from "./_read_body.ts";
import { checkMaxResourceSize, tooLargeReason } from "./_resource_size.ts";

/**
 * The shape of HTTP client the {@linkcode HttpLocalizationLoader} can use:
 * `get` resolves with the parsed JSON body and rejects on a failed response.
 * Kit's `HttpClient` (`../../http/mod.ts`) fits it, and then its base address,
 * interceptors, timeout and retries apply to translation requests.
 *
 * The loader passes its `maxResourceSize` as the second argument's
 * `maxResponseSize`; a client that honours it (Kit's `HttpClient` does) stops
 * reading there. A rejection that carries a numeric `status` (or
 * `response.status`) is reported with that HTTP status.
 *
 * @example Usage
 * ```ts
 * import type { LocalizationHttpClient } from "@vendor/kit/localization";
 *
 * const client: LocalizationHttpClient = {
 *   async get<T>(url: string): Promise<T> {
 *     const response = await fetch(url);
 *     if (!response.ok) throw Object.assign(new Error(response.statusText), { status: response.status });
 *     return await response.json() as T;
 *   },
 * };
 * ```
 */
export interface LocalizationHttpClient {
  /**
   * Fetches `url` and parses the JSON body.
   *
   * @param url The address (relative addresses resolve against the client's
   * base address).
   * @param options `maxResponseSize`: the most bytes of body to read (`0` =
   * no limit); a client may ignore it.
   * @returns The parsed body.
   */
  get<T>(url: string, options?: { maxResponseSize?: number }): Promise<T>;
}

/** A `fetch`-compatible function. */
export type LocalizationFetch = (
  input: string,
  init?: RequestInit,
) => Promise<Response>;

/** Options of an {@linkcode HttpLocalizationLoader}. */
export interface HttpLocalizationLoaderOptions {
  /**
   * The HTTP client to request with (for example Kit's `HttpClient`); its
   * retry and timeout settings apply. When absent, `fetch` is used, once per
   * load, without retries.
   */
  client?: LocalizationHttpClient;
  /** The `fetch` used without a client; defaults to `globalThis.fetch`. */
  fetch?: LocalizationFetch;
  /** Extra request headers for `fetch` (`Accept: application/json` is sent). */
  headers?: Record<string, string>;
  /**
   * Limit of one load through `fetch` (without a client), in milliseconds:
   * from sending the request until the body is read. `0` turns it off.
   * Default 10000. With a client, the client's timeouts apply instead.
   */
  timeout?: number;
  /**
   * The largest resource read, in bytes: a larger Content-Length is refused
   * before reading, and a body (chunked or not) is refused as soon as more
   * has arrived. `0` turns it off. Default 10485760 (10 MiB). With a client
   * it is passed on as `maxResponseSize` (not when `0`: then the client's
   * own limits apply).
   */
  maxResourceSize?: number;
}

/**
 * A {@linkcode LocalizationLoader} that fetches each culture's resource over
 * HTTP from an address template holding `{culture}`, for example
 * `/api/localization/{culture}.json`. The culture is checked to be
 * a BCP 47 tag before it is put into the address.
 *
 * @example Usage
 * ```ts
 * import {
 *   HttpLocalizationLoader,
 *   LoaderLocalizationProvider,
 * } from "@vendor/kit/localization";
 *
 * const loader = new HttpLocalizationLoader(
 *   "https://example.com/api/localization/{culture}.json",
 * );
 * loader.addressOf("fr-CA"); // "https://example.com/api/localization/fr-CA.json"
 * const provider = new LoaderLocalizationProvider(loader);
 * ```
 */
export class HttpLocalizationLoader implements LocalizationLoader {
  readonly #template: string;
  readonly #client: LocalizationHttpClient | undefined;
  readonly #fetch: LocalizationFetch;
  readonly #headers: Record<string, string>;
  readonly #timeout: number;
  readonly #maxResourceSize: number;

  /**
   * Creates the loader.
   *
   * @param template The address with the placeholder `{culture}`.
   * @param options The HTTP client or `fetch` to use, and headers.
   * @throws {TypeError} When `template` has no `{culture}`.
   * @throws {RangeError} When `timeout` or `maxResourceSize` is not a whole
   * number >= 0.
   */
  constructor(template: string, options: HttpLocalizationLoaderOptions = {}) {
    const timeout = options.timeout ?? DEFAULT_TIMEOUT;
    if (!Number.isSafeInteger(timeout) || timeout < 0) {
      throw new RangeError(
        `HttpLocalizationLoader: timeout must be a whole number of milliseconds >= 0, got ${timeout}`,
      );
    }
    this.#timeout = timeout;
    this.#maxResourceSize = checkMaxResourceSize(
      "HttpLocalizationLoader",
      options.maxResourceSize,
    );
    this.#template = checkTemplate(template, "HttpLocalizationLoader");
    this.#client = options.client;
    this.#fetch = options.fetch ??
      ((input, init) => globalThis.fetch(input, init));
    this.#headers = { accept: "application/json", ...options.headers };
  }

  /** The limit of one load through `fetch`, in milliseconds (`0` = none). */
  get timeout(): number {
    return this.#timeout;
  }

  /** The largest resource read, in bytes (`0` = no limit). */
  get maxResourceSize(): number {
    return this.#maxResourceSize;
  }

  /** The address template. */
  get template(): string {
    return this.#template;
  }

  /**
   * The address of a culture's resource.
   *
   * @param culture A BCP 47 culture name.
   * @returns The template with `{culture}` replaced.
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag.
   *
   * @example Usage
   * ```ts
   * import { HttpLocalizationLoader } from "@vendor/kit/localization";
   *
   * new HttpLocalizationLoader("/i18n/{culture}.json").addressOf("de"); // "/i18n/de.json"
   * ```
   */
  addressOf(culture: string): string {
    return fillTemplate(this.#template, culture);
  }

  /**
   * Fetches and parses the resource of `culture`.
   *
   * @param culture A BCP 47 culture name.
   * @returns The parsed JSON.
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag (no
   * request is made).
   * @throws {LocalizationLoadError} When the request fails, the status is not
   * 2xx (`notFound` for 404), the body is larger than `maxResourceSize`
   * (`limit` set) or the body is not JSON; the message names the culture and
   * the address.
   *
   * @example Usage
   * ```ts
   * import { HttpLocalizationLoader } from "@vendor/kit/localization";
   *
   * const loader = new HttpLocalizationLoader("https://example.com/i18n/{culture}.json");
   * async function loadFrench(): Promise<unknown> {
   *   return await loader.load("fr-FR");
   * }
   * ```
   */
  async load(culture: string): Promise<unknown> {
    const address = this.addressOf(culture);
    if (this.#client !== undefined) {
      const limit = this.#maxResourceSize;
      try {
        // Without a limit of its own the loader leaves the client's limits
        // alone (0 would turn Kit's HttpClient's off).
        return await (limit > 0
          ? this.#client.get<unknown>(address, { maxResponseSize: limit })
          : this.#client.get<unknown>(address));
      } catch (error) {
        if (limit > 0 && isTooLarge(error)) {
          throw new LocalizationLoadError({
            culture,
            address: fullAddress(address, error),
            limit,
            reason: tooLargeReason(limit, tooLargeHow(error, limit)),
            cause: error,
          });
        }
        const status = statusOf(error);
        throw new LocalizationLoadError({
          culture,
          address: fullAddress(address, error),
          status,
          notFound: status === 404,
          reason: status !== undefined
            ? `HTTP ${status}${messageSuffix(error)}`
            : describeNetworkError(error),
          cause: error,
        });
      }
    }
    // One signal for the request and the body: AbortSignal.timeout's timer
    // does not keep the process alive.
    const signal = this.#timeout > 0
      ? AbortSignal.timeout(this.#timeout)
      : undefined;
    const failed = (error: unknown): LocalizationLoadError =>
      new LocalizationLoadError({
        culture,
        address: fullAddress(address),
        reason: signal?.aborted
          ? `no answer within ${this.#timeout} ms (the loader's timeout)`
          : describeNetworkError(error),
        cause: error,
      });
    let response: Response;
    try {
      response = await this.#fetch(
        address,
        signal === undefined
          ? { headers: this.#headers }
          : { headers: this.#headers, signal },
      );
    } catch (error) {
      throw failed(error);
    }
    if (!response.ok) {
      // The status says all: the body of an error answer is never read.
      await response.body?.cancel().catch(() => {});
      throw new LocalizationLoadError({
        culture,
        address: fullAddress(response.url || address),
        status: response.status,
        notFound: response.status === 404,
        reason: `HTTP ${response.status}${
          response.statusText ? ` ${response.statusText}` : ""
        }`,
      });
    }
    let text: string | BodyTooLarge;
    try {
      text = await readBoundedText(response, this.#maxResourceSize);
    } catch (error) {
      throw failed(error);
    }
    if (text instanceof BodyTooLarge) {
      throw new LocalizationLoadError({
        culture,
        address: fullAddress(response.url || address),
        limit: this.#maxResourceSize,
        reason: tooLargeReason(this.#maxResourceSize, text.how),
      });
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new LocalizationLoadError({
        culture,
        address: fullAddress(response.url || address),
        reason: `the response is not JSON (${messageOf(error)})`,
        cause: error,
      });
    }
  }
}

const DEFAULT_TIMEOUT = 10_000;

function statusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const direct = (error as { status?: unknown }).status;
  if (typeof direct === "number") return direct;
  const nested = (error as { response?: { status?: unknown } }).response
    ?.status;
  return typeof nested === "number" ? nested : undefined;
}

// Kit's HttpClient rejects with a ResponseTooLargeError; its name is checked
// so the http package need not be loaded.
function isTooLarge(error: unknown): boolean {
  return error instanceof Error && error.name === "ResponseTooLargeError";
}

function tooLargeHow(error: unknown, limit: number): string {
  const { declared, size } = error as { declared?: unknown; size?: unknown };
  return declared === true && typeof size === "number"
    ? `its Content-Length is ${size} bytes`
    : `more than ${limit} bytes arrived`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function messageSuffix(error: unknown): string {
  const message = messageOf(error);
  return message === "" ? "" : ` (${message})`;
}
