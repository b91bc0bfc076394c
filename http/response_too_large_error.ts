import { HttpError } from "./http_error.ts";
import { displayUrl } from "./_display_url.ts";

/** What a {@linkcode ResponseTooLargeError} reports. */
export interface ResponseTooLargeDetails {
  /** The limit in bytes (`maxResponseSize`). */
  limit: number;
  /**
   * The size that was refused: the `Content-Length` when the response
   * declared one, else the bytes received when reading stopped.
   */
  size: number;
  /** `true` when `size` is the declared `Content-Length`. */
  declared: boolean;
  /** Upper-case HTTP method of the request. */
  method?: string;
  /** Address of the request. */
  url?: string;
  /** The `X-Request-ID` sent with the request, when there was one. */
  requestId?: string;
  /** The response's status text. */
  statusText?: string;
  /** The response headers. */
  headers?: Headers;
}

/**
 * A response body larger than the client's `maxResponseSize` (default
 * 50 MiB). {@linkcode HttpClient} refuses it before reading when the
 * `Content-Length` is above the limit, and otherwise stops reading (and
 * cancels the body) as soon as the bytes received pass it, so a huge or
 * endless body never fills the memory. It is an {@linkcode HttpError}:
 * `status` is the response's status; the body is not kept. The call is not
 * retried.
 *
 * The message names the limit, the method and the address (without
 * credentials and query string) and how to raise the limit, for example
 * `The response to GET https://api.example.com/export is larger than
 * maxResponseSize (52428800 bytes): its Content-Length is 209715200 bytes;
 * raise maxResponseSize (in the HttpClient options or for this call; 0 turns
 * the limit off) to accept it`.
 *
 * @example Usage
 * ```ts
 * import { HttpClient, ResponseTooLargeError } from "@vendor/kit/http";
 *
 * const client = new HttpClient("https://api.example.com");
 * try {
 *   await client.get("/export");
 * } catch (error) {
 *   if (error instanceof ResponseTooLargeError) {
 *     console.log(error.limit, error.size, error.status);
 *   }
 * }
 * ```
 */
export class ResponseTooLargeError extends HttpError {
  /** What went wrong, as a stable string: `response_too_large`. */
  override readonly code = "response_too_large";

  /** The limit in bytes that the body exceeded. */
  readonly limit: number;
  /**
   * The declared `Content-Length` (when {@linkcode declared}), else the bytes
   * received when reading stopped.
   */
  readonly size: number;
  /** `true` when the response declared its size in `Content-Length`. */
  readonly declared: boolean;

  /**
   * Creates the error.
   *
   * @param status The HTTP status of the response.
   * @param details The limit, the size and the request.
   */
  constructor(status: number, details: ResponseTooLargeDetails) {
    const what = details.method === undefined || details.url === undefined
      ? "The response"
      : `The response to ${details.method} ${displayUrl(details.url)}`;
    const size = details.declared
      ? `its Content-Length is ${details.size} bytes`
      : `more than ${details.limit} bytes arrived (no Content-Length)`;
    super(
      status,
      `${what} is larger than maxResponseSize (${details.limit} bytes): ` +
        `${size}; raise maxResponseSize (in the HttpClient options or for ` +
        "this call; 0 turns the limit off) to accept it",
      {
        requestId: details.requestId,
        method: details.method,
        url: details.url,
        statusText: details.statusText,
        headers: details.headers,
      },
    );
    this.name = "ResponseTooLargeError";
    this.limit = details.limit;
    this.size = details.size;
    this.declared = details.declared;
  }
}
