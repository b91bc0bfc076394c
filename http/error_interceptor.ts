import { httpErrorOf } from "./_body.ts";
import type { HttpCallContext, HttpInterceptor } from "./http_interceptor.ts";

/** Options of {@linkcode ErrorInterceptor}. */
export interface ErrorInterceptorOptions {
  /** Makes request ids. Default `crypto.randomUUID()`. */
  generateId?: () => string;
}

const REQUEST_ID = Symbol("kit.http.requestId");

/**
 * Tags each call with an `X-Request-ID` header and turns a non-success
 * response into an {@linkcode HttpError}.
 *
 * The id is generated once per call (`crypto.randomUUID()`) and sent
 * unchanged with every retry and a replay of that call, so server logs can
 * join the attempts; an `X-Request-ID` the caller set is kept. A response
 * with a status outside 200–299 is thrown as `HttpError(status, message)`,
 * where the message is the `message` field of the JSON body, or the status
 * text when the body is not JSON or has no `message`. The error also carries
 * `body`, `requestId`, `method` and `url`.
 *
 * Add it before {@linkcode AuthInterceptor}: `onResponse` runs in reverse
 * order, so the auth interceptor then sees a 401 (and can refresh and replay)
 * before this one throws it.
 *
 * @example Usage
 * ```ts
 * import { ErrorInterceptor, HttpClient, HttpError } from "@vendor/kit/http";
 *
 * const client = new HttpClient("https://api.example.com");
 * client.addInterceptor(new ErrorInterceptor());
 * try {
 *   await client.request("DELETE", "/users/1");
 * } catch (error) {
 *   if (error instanceof HttpError) console.log(error.status, error.requestId);
 * }
 * ```
 */
export class ErrorInterceptor implements HttpInterceptor {
  readonly #generateId: () => string;

  /**
   * Creates the interceptor.
   *
   * @param options How to make request ids.
   */
  constructor(options: ErrorInterceptorOptions = {}) {
    this.#generateId = options.generateId ?? (() => crypto.randomUUID());
  }

  /**
   * Sets `X-Request-ID` to the call's id (the same for every attempt).
   *
   * @param request The request about to be sent.
   * @param context The call it belongs to.
   * @returns The same request.
   */
  intercept(request: Request, context: HttpCallContext): Request {
    let id = context.state.get(REQUEST_ID) as string | undefined;
    if (id === undefined) {
      id = request.headers.get("x-request-id") ?? this.#generateId();
      context.state.set(REQUEST_ID, id);
    }
    request.headers.set("x-request-id", id);
    return request;
  }

  /**
   * Throws an {@linkcode HttpError} for a non-success response.
   *
   * @param response The response of the call.
   * @param context The call it belongs to.
   * @returns The response when its status is 200–299.
   * @throws {HttpError} When the status is anything else; a
   * {@linkcode ResponseTooLargeError} when its body is larger than the call's
   * `maxResponseSize`.
   */
  async onResponse(
    response: Response,
    context: HttpCallContext,
  ): Promise<Response> {
    if (response.ok) return response;
    throw await httpErrorOf(response, context.maxResponseSize ?? 0, {
      requestId: context.state.get(REQUEST_ID) as string | undefined,
      method: context.method,
      url: context.url,
    });
  }
}
