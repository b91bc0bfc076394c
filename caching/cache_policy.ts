/**
 * The shape of a {@linkcode CachePolicy}; a plain object of this shape is
 * accepted wherever a policy is.
 *
 * @example Usage
 * ```ts
 * import type { CachePolicyOptions } from "@vendor/kit/caching";
 *
 * const options: CachePolicyOptions = { ttl: 900_000, refreshThreshold: 0.8, maxStale: 300_000 };
 * ```
 */
export interface CachePolicyOptions {
  /** How long a value is fresh, in milliseconds. Default 300000 (5 minutes). */
  ttl?: number;
  /**
   * Fraction of `ttl` after which a read still returns the value but starts a
   * background refresh. From 0 (exclusive) to 1; default 1 (no early refresh).
   */
  refreshThreshold?: number;
  /**
   * How long after `ttl` a stale value may still be served while a refresh
   * runs, in milliseconds. Default 0 (no stale serving).
   */
  maxStale?: number;
}

/**
 * How {@linkcode CacheManager.getOrSet} treats a stored value, by its age
 * (now − the time it was stored):
 *
 * | age | result |
 * |---|---|
 * | below `ttl × refreshThreshold` | fresh: returned as is |
 * | from there to `ttl` | returned, and refreshed in the background |
 * | from `ttl` to `ttl + maxStale` | returned stale, and refreshed in the background |
 * | `ttl + maxStale` or more | the caller waits for the factory |
 *
 * A refresh that fails keeps the stored value (fail-safe) and is reported as
 * a {@linkcode CacheFactoryError}; when the caller has to wait, the factory's
 * error reaches it. Concurrent calls for one key share one factory run.
 *
 * @example Usage
 * ```ts
 * import { CacheManager, CachePolicy, MemoryCacheProvider } from "@vendor/kit/caching";
 *
 * const cache = new CacheManager(new MemoryCacheProvider());
 * cache.setPolicy("products", new CachePolicy({
 *   ttl: 900_000, // 15 minutes
 *   refreshThreshold: 0.8,
 *   maxStale: 300_000, // 5 minutes
 * }));
 * await cache.dispose();
 * ```
 */
export class CachePolicy implements Required<CachePolicyOptions> {
  /** How long a value is fresh, in milliseconds. */
  readonly ttl: number;
  /** Fraction of `ttl` after which a background refresh starts. */
  readonly refreshThreshold: number;
  /** How long after `ttl` a stale value may be served, in milliseconds. */
  readonly maxStale: number;

  /**
   * Creates a policy.
   *
   * @param options `ttl` (default 300000), `refreshThreshold` (default 1),
   * `maxStale` (default 0).
   * @throws {RangeError} `CachePolicy ttl must be a positive number of
   * milliseconds: <value>`, `CachePolicy refreshThreshold must be greater than
   * 0 and at most 1: <value>` or `CachePolicy maxStale must be 0 or a positive
   * number of milliseconds: <value>`.
   */
  constructor(options: CachePolicyOptions = {}) {
    const { ttl = 300_000, refreshThreshold = 1, maxStale = 0 } = options;
    if (typeof ttl !== "number" || !(ttl > 0) || !Number.isFinite(ttl)) {
      throw new RangeError(
        `CachePolicy ttl must be a positive number of milliseconds: ${ttl}`,
      );
    }
    if (
      typeof refreshThreshold !== "number" || !(refreshThreshold > 0) ||
      !(refreshThreshold <= 1)
    ) {
      throw new RangeError(
        `CachePolicy refreshThreshold must be greater than 0 and at most 1: ${refreshThreshold}`,
      );
    }
    if (
      typeof maxStale !== "number" || !(maxStale >= 0) ||
      !Number.isFinite(maxStale)
    ) {
      throw new RangeError(
        `CachePolicy maxStale must be 0 or a positive number of milliseconds: ${maxStale}`,
      );
    }
    this.ttl = ttl;
    this.refreshThreshold = refreshThreshold;
    this.maxStale = maxStale;
    Object.freeze(this);
  }

  /**
   * Returns `policy` itself when it is a `CachePolicy`, else a new policy
   * built from the plain object.
   *
   * @param policy A policy or its options.
   * @returns A validated policy.
   * @throws {RangeError} As the constructor.
   *
   * @example Usage
   * ```ts
   * import { CachePolicy } from "@vendor/kit/caching";
   *
   * const policy = CachePolicy.from({ ttl: 60_000 });
   * console.log(policy.refreshThreshold); // 1
   * ```
   */
  static from(policy: CachePolicy | CachePolicyOptions): CachePolicy {
    return policy instanceof CachePolicy ? policy : new CachePolicy(policy);
  }
}
