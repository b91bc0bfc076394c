import { CacheError } from "./cache_error.ts";

/**
 * Reported (never thrown) when the cache store cannot be reached: connection
 * refused or lost, authentication refused, command timed out. It is reported
 * once per outage; while the outage lasts reads are misses and writes are
 * skipped, and the provider reconnects by itself. The message is exactly
 * `Cache store unreachable: <host>:<port>`; `cause` holds the driver's error.
 *
 * @example Usage
 * ```ts
 * import { CacheStoreUnavailableError } from "@vendor/kit/caching";
 *
 * const error = new CacheStoreUnavailableError("localhost:6379");
 * console.log(error.message); // "Cache store unreachable: localhost:6379"
 * ```
 */
export class CacheStoreUnavailableError extends CacheError {
  /** `host:port` of the store. */
  readonly address: string;

  /**
   * Creates the error.
   *
   * @param address `host:port` of the store.
   * @param cause The driver's error.
   */
  constructor(address: string, cause?: unknown) {
    super(`Cache store unreachable: ${address}`, { cause });
    this.name = "CacheStoreUnavailableError";
    this.address = address;
  }
}
