import type {
  ConfigurationEntry,
  ConfigurationProvider,
} from "./configuration_provider.ts";
import { maskSecretText } from "../core/mod.ts";
import { pageAddress } from "../internal/page_address.ts";
import { ConfigurationSourceError } from "./configuration_source_error.ts";
import { parseJsonSource } from "./_json_source.ts";
import { describeNetworkError } from "../internal/network_error.ts";

/** Options of {@linkcode JsonUrlProvider}. */
export interface JsonUrlOptions {
  /** Skip the source when the URL answers 404. Default `false`. */
  optional?: boolean;
  /** Request headers (for example an `Authorization` header). */
  headers?: Record<string, string>;
  /** Milliseconds to wait for the answer. Default `10000`. */
  timeout?: number;
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
   * @param options Whether it is optional, headers, timeout.
   */
  constructor(url: string | URL, options: JsonUrlOptions = {}) {
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
   * non-success status, invalid JSON or JSON that is not an object.
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
      let text: string;
      try {
        text = await response.text();
      } catch (cause) {
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
