import { checkTimeout } from "./_check_timeout.ts";

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
  /**
   * When a stale value can be served and a refresh is needed, how long the
   * caller waits for the factory before it gets the stale value, in
   * milliseconds; the factory then goes on in the background and its value
   * is stored when it comes. Default: none, the stale value is returned at
   * once (as `0`).
   */
  softTimeout?: number;
  /**
   * How long a factory run may take, in milliseconds: past it the factory's
   * `AbortSignal` is aborted and the run fails with a
   * {@linkcode CacheFactoryError} (a late value is not stored). Default:
   * none.
   */
  hardTimeout?: number;
  /**
   * Whether a factory run takes a lock in the store first, so that one
   * instance of a service runs the factory for a key and the others wait for
   * its value (see {@linkcode CacheManager.getOrSet}). Default `false`. A
   * store without locks (memory) keeps one run per process only.
   */
  lock?: boolean;
  /**
   * How long the store's lock lives and how long the others wait for its
   * owner's value before they run the factory themselves, in milliseconds.
   * Default 5000.
   */
  lockTimeout?: number;
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
export class CachePolicy implements
  Required<
    Omit<CachePolicyOptions, "softTimeout" | "hardTimeout">
  >,
  CachePolicyOptions {
  /** How long a value is fresh, in milliseconds. */
  readonly ttl: number;
  /** Fraction of `ttl` after which a background refresh starts. */
  readonly refreshThreshold: number;
  /** How long after `ttl` a stale value may be served, in milliseconds. */
  readonly maxStale: number;
  /** How long a caller waits before it is served a stale value, if set. */
  readonly softTimeout: number | undefined;
  /** How long a factory run may take, if set. */
  readonly hardTimeout: number | undefined;
  /** Whether a factory run takes a lock in the store first. */
  readonly lock: boolean;
  /** How long the store's lock lives and others wait for its value. */
  readonly lockTimeout: number;

  /**
   * Creates a policy.
   *
   * @param options `ttl` (default 300000), `refreshThreshold` (default 1),
   * `maxStale` (default 0), `softTimeout` and `hardTimeout` (default none),
   * `lock` (default `false`), `lockTimeout` (default 5000).
   * @throws {RangeError} `CachePolicy ttl must be a positive number of
   * milliseconds: <value>`, `CachePolicy refreshThreshold must be greater than
   * 0 and at most 1: <value>` or `CachePolicy maxStale must be 0 or a positive
   * number of milliseconds: <value>`, and the same for `softTimeout` (0 or
   * positive), `hardTimeout` and `lockTimeout` (positive); `CachePolicy lock
   * must be a boolean: <value>`.
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
    this.softTimeout = checkTimeout(
      "CachePolicy",
      "softTimeout",
      options.softTimeout,
      true,
    );
    this.hardTimeout = checkTimeout(
      "CachePolicy",
      "hardTimeout",
      options.hardTimeout,
      false,
    );
    const { lock = false } = options;
    if (typeof lock !== "boolean") {
      throw new RangeError(`CachePolicy lock must be a boolean: ${lock}`);
    }
    this.lock = lock;
    this.lockTimeout =
      checkTimeout("CachePolicy", "lockTimeout", options.lockTimeout, false) ??
        5_000;
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
