import { CacheError } from "./cache_error.ts";

/**
 * Reported (never thrown) when a value read back from the store is not a
 * Kit cache entry: not JSON, or JSON of the wrong shape (written by another
 * program, truncated, or a key of another Redis type). The read is treated as
 * a miss. The message is exactly `Invalid cached value for key: <key>`.
 *
 * @example Usage
 * ```ts
 * import { CacheValueError } from "@vendor/kit/caching";
 *
 * const error = new CacheValueError("users:1", "not JSON");
 * console.log(error.message, error.reason);
 * ```
 */
export class CacheValueError extends CacheError {
  /** What went wrong, as a stable string: `cache_value`. */
  override readonly code = "cache_value";

  /** Why the value was rejected (`not JSON`, `not a cache entry`…). */
  readonly reason: string;

  /**
   * Creates the error.
   *
   * @param key The key whose value was rejected (with the store's prefix).
   * @param reason Why it was rejected.
   * @param cause The parse error, if any.
   */
  constructor(key: string, reason: string, cause?: unknown) {
    super(`Invalid cached value for key: ${key}`, { key, cause });
    this.name = "CacheValueError";
    this.reason = reason;
  }
}
