import { KitError } from "../core/mod.ts";
import { displayUrl } from "./_display_url.ts";

/**
 * Why {@linkcode HttpClient} did not follow a redirect:
 * - `"limit"`: the call was redirected more than `maxRedirects` times (a
 *   redirect loop, usually);
 * - `"location"`: the redirect pointed to an address that is not `http:` or
 *   `https:` (or not an address at all);
 * - `"body"`: a 307 or 308 asked for the request body to be sent again, and
 *   the body was a stream, which can be read only once.
 *
 * @example
 * ```ts
 * import { RedirectError, type RedirectErrorReason } from "@vendor/kit/http";
 *
 * function why(error: unknown): RedirectErrorReason | undefined {
 *   return error instanceof RedirectError ? error.reason : undefined;
 * }
 * why(new Error("other")); // undefined
 * ```
 */
export type RedirectErrorReason = "limit" | "location" | "body";

/**
 * What a {@linkcode RedirectError} reports.
 *
 * @example
 * ```ts
 * import type { RedirectErrorDetails } from "@vendor/kit/http";
 *
 * const details: RedirectErrorDetails = {
 *   reason: "limit",
 *   method: "GET",
 *   url: "https://api.example.com/a",
 *   from: "https://api.example.com/b",
 *   status: 302,
 *   location: "https://api.example.com/a",
 *   redirects: 20,
 *   maxRedirects: 20,
 * };
 * details.reason; // "limit"
 * ```
 */
export interface RedirectErrorDetails {
  /** Why the redirect was not followed. */
  reason: RedirectErrorReason;
  /** Upper-case HTTP method of the call. */
  method: string;
  /** Address of the call. */
  url: string;
  /** The address that answered with the redirect not followed. */
  from: string;
  /** Status of that redirect (301, 302, 303, 307 or 308). */
  status: number;
  /** Where it pointed: the resolved address, or the `Location` as sent. */
  location: string;
  /** Redirects followed before it. */
  redirects: number;
  /** The client's `maxRedirects`. */
  maxRedirects: number;
}

/**
 * A redirect that {@linkcode HttpClient} would not follow (see
 * {@linkcode RedirectErrorReason}). The call fails with it at once and is
 * never retried: sending the same request again would meet the same
 * redirect. The message names the method, the call's address, the address
 * that answered last and where it pointed (addresses without credentials and
 * query string), and what to do, for example `GET
 * https://api.example.com/start was redirected more than maxRedirects (20)
 * times; the last address, https://api.example.com/loop, answered 302 with
 * one more redirect, to https://api.example.com/loop; look for a redirect
 * loop, or raise maxRedirects in the HttpClient options if the chain is
 * expected`.
 *
 * @example Usage
 * ```ts
 * import { HttpClient, RedirectError } from "@vendor/kit/http";
 *
 * const client = new HttpClient("https://api.example.com");
 * try {
 *   await client.get("/start");
 * } catch (error) {
 *   if (error instanceof RedirectError && error.reason === "limit") {
 *     console.log(error.redirects, error.location);
 *   }
 * }
 * ```
 */
export class RedirectError extends KitError {
  /** What went wrong, as a stable string: `http_redirect`. */
  readonly code = "http_redirect";

  /** Why the redirect was not followed. */
  readonly reason: RedirectErrorReason;
  /** Upper-case HTTP method of the call. */
  readonly method: string;
  /** Address of the call. */
  readonly url: string;
  /** The address that answered with the redirect not followed. */
  readonly from: string;
  /** Status of that redirect. */
  readonly status: number;
  /** Where it pointed: the resolved address, or the `Location` as sent. */
  readonly location: string;
  /** Redirects followed before it. */
  readonly redirects: number;

  /**
   * Creates the error.
   *
   * @param details What happened and where.
   */
  constructor(details: RedirectErrorDetails) {
    const call = `${details.method} ${displayUrl(details.url)}`;
    const from = displayUrl(details.from);
    const to = displayUrl(details.location);
    let message: string;
    if (details.reason === "limit") {
      message = `${call} was redirected more than maxRedirects ` +
        `(${details.maxRedirects}) times; the last address, ${from}, ` +
        `answered ${details.status} with one more redirect, to ${to}; ` +
        "look for a redirect loop, or raise maxRedirects in the HttpClient " +
        "options if the chain is expected";
    } else if (details.reason === "location") {
      message = `${call}: ${from} answered ${details.status} with a ` +
        `redirect to ${JSON.stringify(to)}, which is not an http(s) ` +
        "address; the redirect is not followed";
    } else {
      message = `${call}: ${from} answered ${details.status}, which asks ` +
        `for the body to be sent again to ${to}, but the body is a stream ` +
        "that can be read only once; send the request to that address " +
        "directly";
    }
    super(message);
    this.name = "RedirectError";
    this.reason = details.reason;
    this.method = details.method;
    this.url = details.url;
    this.from = details.from;
    this.status = details.status;
    this.location = details.location;
    this.redirects = details.redirects;
  }
}
