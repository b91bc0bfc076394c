// Following redirects in HttpClient. `fetch` follows them by itself, but it
// drops only Authorization when a redirect leads to another origin: an
// X-Api-Key, a cookie or a token header of the client's would go along to
// whatever host the redirect names. And when its limit (20) is reached it
// fails with the TypeError of a network failure, which the client would
// retry. So the client sends its requests with `redirect: "manual"` and
// follows each redirect here, within maxRedirects, dropping the credential
// headers (those the secret rule of Kit names, the one logging and the
// configuration mask by) whenever the origin changes to one not trusted, as
// browsers and curl do. Once dropped, they stay dropped for the rest of the
// chain, even when it comes back.
import { isSecretKey } from "../../core/mod.ts";
import { displayUrl } from "../_display_url.ts";
import { discard } from "./_retry.ts";
import { RedirectError, type RedirectErrorReason } from "../redirect_error.ts";

/** How a client follows redirects. */
export interface RedirectPolicy {
  /** Redirects followed at most; 0 returns a redirect as it is. */
  readonly max: number;
  /** Origins (`https://auth.example.com`) that keep credential headers. */
  readonly trusted: ReadonlySet<string>;
}

type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([
  301,
  302,
  303,
  307,
  308,
]);

/** Headers that describe a body, dropped when a redirect turns it into GET. */
const BODY_HEADERS = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
];

/** Tells whether a status asks to follow a redirect. */
export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/**
 * Follows the redirects of a response to `first`, the request as the client
 * sent it. `body` is what the call was asked to send (`json` as text or
 * `body`): a 307 or 308 sends it again; a body that was a stream cannot be.
 *
 * @throws {RedirectError} Past `policy.max` redirects, for a Location that is
 * not an http(s) address, or for a stream body that a 307/308 wants again.
 */
export async function followRedirects(
  response: Response,
  run: Fetch,
  first: Request,
  signal: AbortSignal | undefined,
  policy: RedirectPolicy,
  body: RequestInit["body"] | undefined,
): Promise<Response> {
  let current = first;
  let redirects = 0;
  const init = signal === undefined ? undefined : { signal };
  while (isRedirect(response.status) && policy.max > 0) {
    const location = response.headers.get("location");
    // Without a Location there is nowhere to go: the caller gets it as is,
    // as from fetch.
    if (location === null) return response;
    const status = response.status;
    const fail = (reason: RedirectErrorReason, target: string) =>
      new RedirectError({
        reason,
        method: first.method,
        url: first.url,
        from: current.url,
        status,
        location: target,
        redirects,
        maxRedirects: policy.max,
      });
    await discard(response);
    let target: URL | undefined;
    try {
      target = new URL(location, current.url);
    } catch {
      target = undefined;
    }
    if (
      target === undefined ||
      (target.protocol !== "http:" && target.protocol !== "https:")
    ) {
      throw fail("location", target?.href ?? location);
    }
    if (redirects >= policy.max) throw fail("limit", target.href);
    current = nextRequest(current, status, target, policy, body, fail);
    redirects++;
    response = await run(current, init);
  }
  return response;
}

/** The request a redirect asks for. */
function nextRequest(
  previous: Request,
  status: number,
  target: URL,
  policy: RedirectPolicy,
  body: RequestInit["body"] | undefined,
  fail: (reason: RedirectErrorReason, target: string) => RedirectError,
): Request {
  const headers = new Headers(previous.headers);
  let method = previous.method;
  let next: RequestInit["body"] = null;
  // As fetch does: a 303 asks for a GET (a HEAD stays one), and a 301 or 302
  // turns a POST into a GET, as every browser has always done.
  if (
    (status === 303 && method !== "GET" && method !== "HEAD") ||
    ((status === 301 || status === 302) && method === "POST")
  ) {
    method = "GET";
    for (const name of BODY_HEADERS) headers.delete(name);
  } else if (previous.body !== null) {
    if (body === undefined || body === null || body instanceof ReadableStream) {
      throw fail("body", target.href);
    }
    next = body;
    // Form data gets a new boundary, so a new Content-Type with it.
    if (body instanceof FormData) headers.delete("content-type");
  }
  if (
    target.origin !== new URL(previous.url).origin &&
    !policy.trusted.has(target.origin)
  ) {
    const credentials: string[] = [];
    headers.forEach((_value, name) => {
      if (isSecretKey(name)) credentials.push(name);
    });
    for (const name of credentials) headers.delete(name);
  }
  return new Request(target, {
    method,
    headers,
    body: next,
    redirect: "manual",
  });
}

/**
 * Checks `trustedRedirectOrigins` and returns their origins.
 *
 * @throws {TypeError} When it is not an array, or an entry is not an
 * http(s) address.
 */
export function trustedOrigins(
  value: readonly string[] | undefined,
): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(
      "Invalid trustedRedirectOrigins: expected an array of http(s) origins",
    );
  }
  const origins: string[] = [];
  for (const entry of value) {
    let url: URL | undefined;
    try {
      url = typeof entry === "string" ? new URL(entry) : undefined;
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      (url.protocol !== "http:" && url.protocol !== "https:")
    ) {
      throw new TypeError(
        "Invalid trustedRedirectOrigins entry: " +
          `${
            JSON.stringify(
              typeof entry === "string" ? displayUrl(entry) : entry,
            )
          }; ` +
          'expected an http(s) origin such as "https://auth.example.com"',
      );
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}
