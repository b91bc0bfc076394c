// Address helpers of HttpClient: the base address, query strings.
import { displayUrl } from "./_display_url.ts";
import { pageAddress } from "../internal/page_address.ts";

/** A query-string value; `null` and `undefined` entries are left out. */
type QueryValue = string | number | boolean | null | undefined;

/** The `query` option of a call. */
export type Query =
  | Record<string, QueryValue | readonly QueryValue[]>
  | URLSearchParams
  | string;

/** Appends a query string to an address. */
export function withQuery(url: string, query: Query): string {
  let text: string;
  if (typeof query === "string") {
    text = query.charCodeAt(0) === 63 /* ? */ ? query.slice(1) : query;
  } else if (query instanceof URLSearchParams) {
    text = query.toString();
  } else {
    const params = new URLSearchParams();
    for (const key of Object.keys(query)) {
      const value = query[key];
      if (Array.isArray(value)) {
        for (const item of value) {
          if (item !== null && item !== undefined) {
            params.append(key, String(item));
          }
        }
      } else if (value !== null && value !== undefined) {
        params.append(key, String(value));
      }
    }
    text = params.toString();
  }
  if (text === "") return url;
  return url + (url.includes("?") ? "&" : "?") + text;
}

// A host name (or IPv4 address) with an optional port and path, no scheme.
const HOST_WITHOUT_SCHEME =
  /^(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+)(?::\d{1,5})?(?:[/?#].*)?$/i;

/** Validates the base address; returns it with a trailing slash. */
export function resolveBase(baseUrl: string): string | undefined {
  // The value as messages show it (no credentials, query or fragment), and
  // the reason kept apart for HttpClient.fromConfiguration's own wording.
  const invalid = (why: string): TypeError =>
    Object.assign(
      new TypeError(
        `Invalid base URL: ${
          JSON.stringify(
            typeof baseUrl === "string" ? displayUrl(baseUrl) : baseUrl,
          )
        }; ${why}`,
      ),
      { reason: why },
    );
  if (typeof baseUrl !== "string" || baseUrl.trim() === "") {
    throw invalid(
      'expected an absolute http(s) URL or a path starting with "/"',
    );
  }
  let url: URL;
  if (baseUrl.startsWith("/")) {
    const page = pageAddress();
    try {
      url = new URL(baseUrl, page ?? "http://relative.invalid");
    } catch {
      throw invalid("it is not a valid path");
    }
    if (page === undefined) {
      checkParts(url, invalid);
      return undefined;
    }
  } else {
    // `localhost:4010` or `api.example.com/v1`: a host without a scheme
    // (which `new URL` reads as the scheme `localhost:`, or rejects).
    const suggestion = HOST_WITHOUT_SCHEME.test(baseUrl.trim())
      ? `; did you mean ${
        // No credentials can match the pattern; a query is cut, as
        // displayUrl does.
        JSON.stringify(
          `http://${baseUrl.trim()}`.replace(
            /[?#].*$/s,
            (rest) => rest.startsWith("?") ? "?…" : "",
          ),
        )}?`
      : "";
    try {
      url = new URL(baseUrl);
    } catch {
      throw invalid(
        'expected an absolute http(s) URL or a path starting with "/"' +
          suggestion,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw invalid(
        `the scheme must be http or https, not ${url.protocol}${suggestion}`,
      );
    }
  }
  checkParts(url, invalid);
  const href = url.href;
  return href.endsWith("/") ? href : href + "/";
}

function checkParts(url: URL, invalid: (why: string) => TypeError): void {
  if (url.search !== "" || url.hash !== "") {
    throw invalid("it must not have a query or a fragment");
  }
}
