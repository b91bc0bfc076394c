import { CacheError } from "./cache_error.ts";

/**
 * Reported (never thrown) when a factory fails during a background refresh,
 * that is while a fresh or stale value was served instead. `cause` holds what
 * the factory threw. The message is exactly
 * `Cache factory failed for key: <key>`. When no value can be served, the
 * factory's own error reaches the caller of `getOrSet` unwrapped.
 *
 * @example Usage
 * ```ts
 * import { CacheFactoryError } from "@vendor/kit/caching";
 *
 * const error = new CacheFactoryError("users:1", new Error("database down"));
 * console.log(error.message, error.cause);
 * ```
 */
export class CacheFactoryError extends CacheError {
  /**
   * Creates the error.
   *
   * @param key The key being refreshed.
   * @param cause What the factory threw.
   */
  constructor(key: string, cause?: unknown) {
    super(`Cache factory failed for key: ${key}`, { key, cause });
    this.name = "CacheFactoryError";
  }
}
