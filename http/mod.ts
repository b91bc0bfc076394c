/**
 * HTTP client of Kit (`@vendor/kit-platform-http`): a JSON client
 * built on `ky` with interceptors, per-attempt and total timeouts, retries
 * with exponential backoff that honour `Retry-After`, a response size limit,
 * bearer-token authentication with single-flight refresh, and request ids
 * (from the request context of `@vendor/kit/platform` when there is one) with
 * typed errors. {@linkcode HttpClient.fromConfiguration} builds a client from
 * the `api` section of a configuration, reports its retries to the running
 * application's log, and keeps a private HTTP cache of GET responses when
 * `api:enableCaching` is true.
 *
 * @example Usage
 * ```ts ignore
 * // Not run here: it calls a remote API (api.example.com).
 * import {
 *   AuthInterceptor,
 *   ErrorInterceptor,
 *   HttpClient,
 *   StorageTokenSource,
 * } from "@vendor/kit/http";
 *
 * const tokens = new StorageTokenSource();
 * const client = new HttpClient("https://api.example.com", {
 *   timeout: 10_000,
 *   retryAttempts: 3,
 *   retryDelay: 1_000,
 * });
 * client.addInterceptor(new ErrorInterceptor());
 * client.addInterceptor(new AuthInterceptor({ getToken: () => tokens.getToken() }));
 *
 * const users = await client.get<{ id: number }[]>("/users");
 * ```
 *
 * @module
 */
export * from "./http_client.ts";
export type * from "./http_client_options.ts";
export type * from "./cache/http_cache_store.ts";
export type * from "./http_interceptor.ts";
export * from "./http_error.ts";
export * from "./response_too_large_error.ts";
export * from "./timeout_error.ts";
export * from "./redirect_error.ts";
export * from "./http_configuration_error.ts";
export * from "./error_interceptor.ts";
export * from "./auth/auth_interceptor.ts";
export * from "./auth/storage_token_source.ts";
export * from "./auth/memory_storage.ts";
