import type { HttpCallContext, HttpInterceptor } from "../http_interceptor.ts";

/** A token, or nothing when there is none. */
export type AuthToken = string | null | undefined;

/** Options of {@linkcode AuthInterceptor}. */
export interface AuthInterceptorOptions {
  /** Reads the current access token (for example from a StorageTokenSource). */
  getToken(): AuthToken | Promise<AuthToken>;
  /** Tells whether a token has expired; expired tokens are refreshed first. */
  isExpired?(token: string): boolean | Promise<boolean>;
  /**
   * Gets a new token (application code) and stores it where
   * `getToken` reads it. May return the new token; when it returns nothing
   * the interceptor reads `getToken` again. It must not send its request
   * through a client that has this interceptor (it would wait for itself):
   * use a separate client or `fetch`.
   */
  refreshToken?(): AuthToken | Promise<AuthToken>;
  /** Authorization scheme. Default `"Bearer"`. */
  scheme?: string;
}

const SENT_TOKEN = Symbol("kit.http.sentToken");

/**
 * Sets `Authorization: Bearer <token>` on every attempt when a token exists.
 * With `refreshToken`, an expired token (per `isExpired`) is
 * refreshed before the request, concurrent requests share one refresh
 * (single flight), and a 401 response triggers one refresh and one replay of
 * the call, never more: a replayed call that gets 401 again returns (or
 * throws) that 401.
 *
 * Add it after {@linkcode ErrorInterceptor} so that it sees a 401 before the
 * error interceptor throws it.
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
 * const client = new HttpClient("https://api.example.com");
 * client.addInterceptor(new ErrorInterceptor());
 * client.addInterceptor(
 *   new AuthInterceptor({
 *     getToken: () => tokens.getToken(),
 *     isExpired: (token) => token.startsWith("old-"),
 *     refreshToken: async () => {
 *       const response = await fetch("https://auth.example.com/refresh", {
 *         method: "POST",
 *       });
 *       const { token } = await response.json() as { token: string };
 *       tokens.setToken(token);
 *       return token;
 *     },
 *   }),
 * );
 * ```
 */
export class AuthInterceptor implements HttpInterceptor {
  readonly #options: AuthInterceptorOptions;
  readonly #prefix: string;
  #refreshing: Promise<AuthToken> | undefined;
  /** Counts finished refreshes, so a call can tell one ended while it read. */
  #refreshes = 0;

  /**
   * Creates the interceptor.
   *
   * @param options Where tokens come from and how they are refreshed.
   * @throws {TypeError} When `getToken` is not a function.
   */
  constructor(options: AuthInterceptorOptions) {
    if (typeof options?.getToken !== "function") {
      throw new TypeError("AuthInterceptor needs a getToken() function");
    }
    this.#options = options;
    this.#prefix = `${options.scheme ?? "Bearer"} `;
  }

  /**
   * Refreshes the token now, sharing a refresh already under way.
   *
   * @returns The new token, or nothing when there is none.
   * @throws What `refreshToken` throws; `TypeError` without `refreshToken`.
   *
   * @example Usage
   * ```ts
   * import { AuthInterceptor } from "@vendor/kit/http";
   *
   * let token = "old";
   * const auth = new AuthInterceptor({
   *   getToken: () => token,
   *   refreshToken: () => (token = "new"),
   * });
   * await auth.refresh(); // "new"
   * ```
   */
  refresh(): Promise<AuthToken> {
    const options = this.#options;
    if (typeof options.refreshToken !== "function") {
      return Promise.reject(
        new TypeError("AuthInterceptor has no refreshToken() to call"),
      );
    }
    return this.#refreshing ??= (async () => {
      try {
        const token = await options.refreshToken!();
        return typeof token === "string" && token !== ""
          ? token
          : await options.getToken();
      } finally {
        this.#refreshes++;
        this.#refreshing = undefined;
      }
    })();
  }

  /**
   * Sets the `Authorization` header when a token exists, refreshing an
   * expired one first.
   *
   * @param request The request about to be sent.
   * @param context The call it belongs to.
   * @returns The same request.
   */
  async intercept(
    request: Request,
    context: HttpCallContext,
  ): Promise<Request> {
    const options = this.#options;
    const seen = this.#refreshes;
    let token = await this.#read();
    if (
      token && options.refreshToken !== undefined &&
      options.isExpired !== undefined && await options.isExpired(token)
    ) {
      // Another call's refresh may have finished while this one read and
      // checked the token: use its token instead of refreshing again.
      const latest = this.#refreshes === seen ? token : await this.#read();
      token = latest !== token ? latest : await this.refresh();
    }
    if (token) {
      request.headers.set("authorization", this.#prefix + token);
      context.state.set(SENT_TOKEN, token);
    } else {
      context.state.delete(SENT_TOKEN);
    }
    return request;
  }

  /**
   * On a 401, refreshes the token (unless another call already did) and asks
   * for one replay of the call.
   *
   * @param response The response of the call.
   * @param context The call it belongs to.
   * @returns The same response.
   */
  async onResponse(
    response: Response,
    context: HttpCallContext,
  ): Promise<Response> {
    if (
      response.status !== 401 || context.replayed ||
      this.#options.refreshToken === undefined
    ) {
      return response;
    }
    const sent = context.state.get(SENT_TOKEN);
    const seen = this.#refreshes;
    let token = await this.#read();
    // A refresh that finished while the token was read may have replaced it.
    if ((!token || token === sent) && this.#refreshes !== seen) {
      token = await this.#read();
    }
    // Another call may have refreshed since this one was sent.
    if (!token || token === sent) token = await this.refresh();
    if (token) context.replay();
    return response;
  }

  /** The current token: the result of a refresh under way, else getToken(). */
  async #read(): Promise<AuthToken> {
    return this.#refreshing === undefined
      ? await this.#options.getToken()
      : await this.#refreshing;
  }
}
