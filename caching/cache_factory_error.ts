import { CacheError } from "./cache_error.ts";

/**
 * Reported (never thrown) when a factory fails during a background refresh,
 * that is while a fresh or stale value was served instead. `cause` holds what
 * the factory threw. The message is exactly
 * `Cache factory failed for key: <key>`. When no value can be served, the
 * factory's own error reaches the caller of `getOrSet` unwrapped.
 *
 * It is also what a factory run that passes its `hardTimeout` fails with
 * (thrown to a caller with nothing to serve, reported otherwise), with the
 * message `Cache factory timed out after <timeout> ms for key: <key>`.
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
  /** What went wrong, as a stable string: `cache_factory`. */
  override readonly code = "cache_factory";

  /** The `hardTimeout` the run passed, in milliseconds, for a timeout. */
  readonly timeout: number | undefined;

  /**
   * Creates the error.
   *
   * @param key The key being refreshed.
   * @param cause What the factory threw.
   * @param timeout For a run that passed its `hardTimeout`: that timeout
   * (the message is then `Cache factory timed out after <timeout> ms for
   * key: <key>`).
   */
  constructor(key: string, cause?: unknown, timeout?: number) {
    super(
      timeout === undefined
        ? `Cache factory failed for key: ${key}`
        : `Cache factory timed out after ${timeout} ms for key: ${key}`,
      { key, cause },
    );
    this.name = "CacheFactoryError";
    this.timeout = timeout;
  }
}
