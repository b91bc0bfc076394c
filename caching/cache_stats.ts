/**
 * Counters of a {@linkcode CacheManager} (or of one of its areas), as
 * returned by `stats()`. A snapshot: later activity does not change it.
 *
 * @example Usage
 * ```ts
 * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
 *
 * const cache = new CacheManager(new MemoryCacheProvider());
 * await cache.getOrSet("a", () => 1);
 * await cache.getOrSet("a", () => 1);
 * const { hits, misses } = cache.stats(); // 1, 1
 * console.log(hits, misses);
 * await cache.dispose();
 * ```
 */
export interface CacheStats {
  /** Reads answered with a fresh value (early-refresh band included). */
  readonly hits: number;
  /** Reads that found nothing usable. */
  readonly misses: number;
  /** Reads answered with a stale value (inside `maxStale`). */
  readonly staleServed: number;
  /** Background refreshes started. */
  readonly backgroundRefreshes: number;
  /** Factory runs that failed (reported or thrown to the caller). */
  readonly factoryErrors: number;
  /**
   * Errors reported by the provider (store unreachable once per outage, bad
   * values, refused commands) or thrown by a custom provider. Counted for
   * the whole manager, areas included.
   */
  readonly providerErrors: number;
}
