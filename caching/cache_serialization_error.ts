import { CacheError } from "./cache_error.ts";

/**
 * Reported (never thrown) when a value cannot be written to a remote store
 * because `JSON.stringify` fails on it (a `BigInt`, a cycle). The write is
 * skipped. The message is exactly `Cannot serialize cache value for key: <key>`.
 *
 * @example Usage
 * ```ts
 * import { CacheSerializationError } from "@vendor/kit/caching";
 *
 * const error = new CacheSerializationError("users:1");
 * console.log(error.message);
 * ```
 */
export class CacheSerializationError extends CacheError {
  /** What went wrong, as a stable string: `cache_serialization`. */
  override readonly code = "cache_serialization";

  /**
   * Creates the error.
   *
   * @param key The key whose value could not be serialized.
   * @param cause The error `JSON.stringify` threw.
   */
  constructor(key: string, cause?: unknown) {
    super(`Cannot serialize cache value for key: ${key}`, { key, cause });
    this.name = "CacheSerializationError";
  }
}
