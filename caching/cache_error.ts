import { KitError } from "../core/mod.ts";

/**
 * Base class of every error the caching package reports. Store failures and
 * background refresh failures are not thrown: they reach the `onError` hook
 * of the provider or the {@linkcode CacheManager} as a `CacheError` subclass.
 *
 * @example Usage
 * ```ts
 * import { CacheError, CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
 *
 * const cache = new CacheManager(new MemoryCacheProvider(), {
 *   onError: (error: CacheError) => console.warn(error.message, error.key),
 * });
 * await cache.dispose();
 * ```
 */
export class CacheError extends KitError {
  /** What went wrong, as a stable string: `cache`. */
  readonly code: string = "cache";

  /** The cache key concerned, when there is one. */
  readonly key: string | undefined;

  /**
   * Creates the error.
   *
   * @param message The message.
   * @param options The key concerned and the underlying cause.
   */
  constructor(
    message: string,
    options: { key?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "CacheError";
    this.key = options.key;
  }
}
