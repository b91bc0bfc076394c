import type {
  ConfigurationEntry,
  ConfigurationProvider,
} from "./configuration_provider.ts";
import { maskSecretText } from "../../core/mod.ts";
import { pageAddress } from "../../internal/page_address.ts";
import { ConfigurationSourceError } from "./configuration_source_error.ts";
import { parseJsonSource } from "./_json_source.ts";
import { describeNetworkError } from "../../internal/delivery/network_error.ts";
import {
  BodyTooLargeError,
  readBodyText,
} from "../../internal/bounded_body.ts";
import { DEFAULT_MAX_FILE_SIZE, describeSize } from "../_limits.ts";

/** Options of {@linkcode JsonUrlProvider}. */
export interface JsonUrlOptions {
  /** Skip the source when the URL answers 404. Default `false`. */
  optional?: boolean;
  /** Request headers (for example an `Authorization` header). */
  headers?: Record<string, string>;
  /** Milliseconds to wait for the answer. Default `10000`. */
  timeout?: number;
  /**
   * The largest document read, in bytes. Default `10485760` (10 MiB, as for
   * a configuration file). A larger one (a Content-Length above it, or a
   * body that passes it while it arrives) fails the load, and the rest of
   * the body is not read.
   */
  maxResponseSize?: number;
  /** The `fetch` to use. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
}

/**
 * A JSON document fetched over HTTP as a configuration source — with
 * {@linkcode MemoryProvider}, the source that works in a browser. The answer
 * must be a JSON object. The label shown by `explain()` is the URL without
 * credentials or query string, so a token in the URL never appears.
 *
 * @example Usage
 * ```ts ignore
 * // Not run here: the relative URL needs a browser page to resolve against.
 * import { ConfigurationManager, JsonUrlProvider } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * await config.addProvider(new JsonUrlProvider("/config/appsettings.json"));
 * await config.loadConfiguration();
 * ```
 */
export class JsonUrlProvider implements ConfigurationProvider {
  /** The URL without credentials or query string. */
  readonly name: string;
  #url: string;
  #options: JsonUrlOptions;

  /**
   * Creates the provider. Nothing is fetched until it is loaded.
   *
   * @param url An absolute URL, or in a browser one relative to the page.
   * @param options Whether it is optional, headers, timeout, size limit.
   * @throws {RangeError} When `maxResponseSize` is not a positive number.
   */
  constructor(url: string | URL, options: JsonUrlOptions = {}) {
    const limit = options.maxResponseSize;
    if (
      limit !== undefined &&
      (typeof limit !== "number" || Number.isNaN(limit) || limit <= 0)
    ) {
      throw new RangeError(
        `JsonUrlProvider: maxResponseSize must be a positive number of bytes, got ${
          String(limit)
        }`,
      );
    }
    this.#url = String(url);
    this.#options = { ...options };
    this.name = safeLabel(this.#url);
  }

  /**
   * Fetches and parses the document.
   *
   * @returns One entry holding the document's object, or none when an
   * optional URL answers 404.
   * @throws {ConfigurationSourceError} on a network error, a timeout, a
   * non-success status, a body larger than `maxResponseSize`, invalid JSON
   * or JSON that is not an object.
   */
  async load(): Promise<ConfigurationEntry[]> {
    const fetchFn = this.#options.fetch ?? globalThis.fetch;
    const timeout = this.#options.timeout ?? 10_000;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    try {
      let response: Response;
      try {
        response = await fetchFn(this.#url, {
          headers: { Accept: "application/json", ...this.#options.headers },
          signal: controller.signal,
        });
      } catch (cause) {
        throw new ConfigurationSourceError(
          timedOut
            ? `Configuration URL ${this.name} did not answer within ${timeout}ms`
            : `Configuration URL ${this.name} could not be fetched: ${
              maskSecretText(describeNetworkError(cause))
            }`,
          { source: this.name, cause },
        );
      }
      if (!response.ok) {
        await response.body?.cancel();
        if (response.status === 404 && this.#options.optional === true) {
          return [];
        }
        throw new ConfigurationSourceError(
          `Configuration URL ${this.name} answered ${response.status} ${response.statusText}`
            .trimEnd(),
          { source: this.name },
        );
      }
      const limit = this.#options.maxResponseSize ?? DEFAULT_MAX_FILE_SIZE;
      let text: string;
      try {
        text = await readBodyText(response, { limit, url: this.name });
      } catch (cause) {
        if (cause instanceof BodyTooLargeError) {
          throw new ConfigurationSourceError(
            `Configuration URL ${this.name} answered a body larger than the limit of ${
              describeSize(limit)
            } (maxResponseSize): ${
              cause.declared
                ? `its Content-Length is ${cause.size} bytes`
                : `more than ${limit} bytes arrived`
            }; make the document smaller or raise the provider's maxResponseSize option`,
            { source: this.name, cause },
          );
        }
        throw new ConfigurationSourceError(
          timedOut
            ? `Configuration URL ${this.name} did not answer within ${timeout}ms`
            : `Configuration URL ${this.name} could not be read`,
          { source: this.name, cause },
        );
      }
      return parseJsonSource(text, {
        label: this.name,
        location: this.name,
        what: "URL",
      });
    } finally {
      clearTimeout(timer);
    }
  }
}

function safeLabel(url: string): string {
  try {
    // A relative address names its host too: the page's, in a browser.
    const parsed = new URL(url, pageAddress());
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url.replace(/[?#].*$/, "");
  }
}
