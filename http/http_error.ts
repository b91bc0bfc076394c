import { KitError } from "../core/mod.ts";
import { readBodyText } from "../internal/bounded_body.ts";
import { describeErrorBody } from "./_error_body.ts";

/** How {@linkcode HttpError.fromResponse} reads the body. */
export interface HttpErrorReadOptions {
  /**
   * Most bytes of the body read. A longer body is cancelled unread and the
   * error carries no `body` (its start is not the document), its message
   * the status text. Default 1048576 (1 MiB).
   */
  maxBodySize?: number;
  /**
   * Stops waiting for the body: the error is built from what arrived, with
   * no `body` and the status text as message. Default: no signal, the read
   * ends with the body or at `maxBodySize`.
   */
  signal?: AbortSignal;
}

const DEFAULT_MAX_ERROR_BODY = 1024 * 1024;

/** Extra facts carried by an {@linkcode HttpError}. */
export interface HttpErrorDetails {
  /** The response body: parsed JSON, else the text, `undefined` when empty. */
  body?: unknown;
  /** The `X-Request-ID` sent with the request, when there was one. */
  requestId?: string;
  /** Upper-case HTTP method of the request. */
  method?: string;
  /** Address of the request. */
  url?: string;
  /** The response's status text. */
  statusText?: string;
  /** The response headers. */
  headers?: Headers;
}

/**
 * A response with a non-success status (not 200–299). Thrown by
 * {@linkcode ErrorInterceptor} and by the JSON methods of
 * {@linkcode HttpClient} (`get`, `post`, `put`, `patch`, `delete`). The
 * message is the `message` field of the JSON response body when it is a
 * non-empty string, else the status text. Its subclass
 * {@linkcode ResponseTooLargeError} reports a body larger than the client's
 * `maxResponseSize`, whatever the status.
 *
 * @example Usage
 * ```ts
 * import { HttpClient, HttpError } from "@vendor/kit/http";
 *
 * const client = new HttpClient("https://api.example.com");
 * try {
 *   await client.get("/users/42");
 * } catch (error) {
 *   if (error instanceof HttpError && error.status === 404) {
 *     console.log(error.message, error.body, error.requestId);
 *   }
 * }
 * ```
 */
export class HttpError extends KitError {
  /** What went wrong, as a stable string: `http_status`. */
  readonly code: string = "http_status";

  /** The HTTP status code of the response. */
  readonly status: number;
  /** The response's status text (may be empty). */
  readonly statusText: string;
  /** The response body: parsed JSON, else the text, `undefined` when empty. */
  readonly body: unknown;
  /** The `X-Request-ID` sent with the request, when there was one. */
  readonly requestId: string | undefined;
  /** Upper-case HTTP method of the request. */
  readonly method: string | undefined;
  /** Address of the request. */
  readonly url: string | undefined;
  /** The response headers (empty when not known). */
  readonly headers: Headers;

  /**
   * Creates the error.
   *
   * @param status The HTTP status code.
   * @param message The error message (the body's `message` or status text).
   * @param details Body, request id, method, address, status text, headers.
   */
  constructor(status: number, message: string, details: HttpErrorDetails = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.statusText = details.statusText ?? "";
    this.body = details.body;
    this.requestId = details.requestId;
    this.method = details.method;
    this.url = details.url;
    this.headers = details.headers ?? new Headers();
  }

  /**
   * Builds the error from a non-success response, reading (and so consuming)
   * at most `maxBodySize` of its body: a longer body, or one still arriving
   * when `signal` aborts, is cancelled, and the error has no `body` and the
   * status text as its message.
   *
   * @param response The non-success response.
   * @param details Request id, method and address to carry.
   * @param options The most bytes read (default 1 MiB) and a signal.
   * @returns The error, ready to throw. Never rejects: a body that cannot be
   * read leaves the status text as the message.
   *
   * @example Usage
   * ```ts
   * import { HttpError } from "@vendor/kit/http";
   *
   * const response = new Response(JSON.stringify({ message: "No such user" }), {
   *   status: 404,
   * });
   * const error = await HttpError.fromResponse(response, {}, {
   *   signal: AbortSignal.timeout(5_000),
   * });
   * console.log(error.message); // "No such user"
   * ```
   */
  static async fromResponse(
    response: Response,
    details: Omit<HttpErrorDetails, "body" | "statusText" | "headers"> = {},
    options: HttpErrorReadOptions = {},
  ): Promise<HttpError> {
    let text = "";
    try {
      text = await readBodyText(response, {
        limit: options.maxBodySize ?? DEFAULT_MAX_ERROR_BODY,
        signal: options.signal,
      });
    } catch {
      // Longer than the limit (cancelled unread), cut short by the signal or
      // a broken connection: the status text speaks, as half a document
      // would be read as text.
    }
    const { body, message } = describeErrorBody(
      text,
      response.status,
      response.statusText,
    );
    return new HttpError(response.status, message, {
      ...details,
      body,
      statusText: response.statusText,
      headers: response.headers,
    });
  }
}
