import { CacheError } from "./cache_error.ts";

/**
 * Reported (never thrown) once the cache store answers again after a
 * {@linkcode CacheStoreUnavailableError}: the end of the outage, so that a
 * log shows when it ended. It goes through the same `onError` hook (it is a
 * {@linkcode CacheError} only for that reason) and is not counted in
 * `providerErrors`. The message is exactly
 * `Cache store reachable again: <host>:<port> after <n> ms`.
 *
 * Right after it, {@linkcode RemoteStoreCacheProvider} re-sends the changes
 * it kept during the outage (last writer wins by `storedAt`) and publishes
 * the keys concerned, and a {@linkcode TieredCacheProvider} that sees it
 * drops its memory layer.
 *
 * @example Usage
 * ```ts
 * import {
 *   CacheManager,
 *   CacheStoreRecovered,
 *   RemoteStoreCacheProvider,
 * } from "@vendor/kit/caching";
 *
 * const cache = new CacheManager(new RemoteStoreCacheProvider(), {
 *   onError: (report) =>
 *     report instanceof CacheStoreRecovered
 *       ? console.info(report.message)
 *       : console.warn(report.message),
 * });
 * await cache.dispose();
 * ```
 */
export class CacheStoreRecovered extends CacheError {
  /** What went wrong, as a stable string: `cache_store_recovered`. */
  override readonly code = "cache_store_recovered";

  /**
   * `host:port` of the store, as the {@linkcode CacheStoreUnavailableError}
   * of the outage named it (on a cluster, possibly one primary).
   */
  readonly address: string;
  /** How long the outage lasted, in milliseconds. */
  readonly downtime: number;

  /**
   * Creates the report.
   *
   * @param address `host:port` of the store.
   * @param downtime How long the outage lasted, in milliseconds.
   */
  constructor(address: string, downtime: number) {
    const ms = Math.max(0, Math.round(downtime));
    super(`Cache store reachable again: ${address} after ${ms} ms`);
    this.name = "CacheStoreRecovered";
    this.address = address;
    this.downtime = ms;
  }
}
