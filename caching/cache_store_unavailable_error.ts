import { CacheError } from "./cache_error.ts";

/**
 * Reported (never thrown) when the cache store cannot be reached: connection
 * refused or lost, password missing or refused, no reply in time. It is
 * reported once per outage; while the outage lasts reads are misses and
 * writes are skipped, the provider reconnects by itself, and a
 * {@linkcode CacheStoreRecovered} follows once the store answers again. The
 * message is exactly `Cache store unreachable: <host>:<port>`, followed by
 * ` (<reason>)` when the provider can tell what to do (a missing or refused
 * password, a server that stopped answering); `cause` holds the driver's
 * error. Neither ever contains the password.
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
  /** What went wrong, as a stable string: `cache_store_unavailable`. */
  override readonly code = "cache_store_unavailable";

  /**
   * `host:port` of the store; on a Redis Cluster whose other primaries still
   * answer, of the primary that failed (its slots alone are down).
   */
  readonly address: string;
  /** What went wrong and what to do, when known. */
  readonly reason: string | undefined;

  /**
   * Creates the error.
   *
   * @param address `host:port` of the store.
   * @param cause The driver's error.
   * @param reason What went wrong and what to do, appended to the message.
   */
  constructor(address: string, cause?: unknown, reason?: string) {
    super(
      `Cache store unreachable: ${address}${
        reason === undefined ? "" : ` (${reason})`
      }`,
      { cause },
    );
    this.name = "CacheStoreUnavailableError";
    this.address = address;
    this.reason = reason;
  }
}
