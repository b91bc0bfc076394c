import type { CachePolicy, CachePolicyOptions } from "./cache_policy.ts";
import type { CacheStats } from "./cache_stats.ts";

/**
 * Options of `set`.
 *
 * @example Usage
 * ```ts
 * import type { CacheSetOptions } from "@vendor/kit/caching";
 *
 * const options: CacheSetOptions = { ttl: 60_000 };
 * ```
 */
export interface CacheSetOptions {
  /**
   * How long the value is fresh, in milliseconds. Default: the policy's ttl;
   * without a policy, the provider's default ttl (the value is then fresh
   * for as long as the provider keeps it).
   */
  ttl?: number;
  /**
   * Tags of the value: `invalidateTags` of one of them makes it a miss.
   * Non-empty strings, any characters.
   */
  tags?: string[];
}

/**
 * Options of `getOrSet`.
 *
 * @example Usage
 * ```ts
 * import type { CacheGetOrSetOptions } from "@vendor/kit/caching";
 *
 * const options: CacheGetOrSetOptions = { policy: { ttl: 900_000, refreshThreshold: 0.8, maxStale: 300_000 } };
 * ```
 */
export interface CacheGetOrSetOptions {
  /**
   * The policy: a {@linkcode CachePolicy}, a plain object of its shape, or
   * the name given to {@linkcode CacheManager.setPolicy}. Default: the
   * area's policy, else the manager's.
   */
  policy?: string | CachePolicy | CachePolicyOptions;
  /** Overrides the policy's ttl for the value this call stores. */
  ttl?: number;
  /**
   * Tags of the value this call stores: `invalidateTags` of one of them
   * makes it a miss.
   */
  tags?: string[];
  /** Overrides the policy's `softTimeout` (see {@linkcode CachePolicyOptions}). */
  softTimeout?: number;
  /** Overrides the policy's `hardTimeout` (see {@linkcode CachePolicyOptions}). */
  hardTimeout?: number;
  /** Overrides the policy's `lock` (see {@linkcode CachePolicyOptions}). */
  lock?: boolean;
  /** Overrides the policy's `lockTimeout` (see {@linkcode CachePolicyOptions}). */
  lockTimeout?: number;
}

/**
 * What `getOrSet` runs to produce a value. It is given an `AbortSignal`
 * that aborts when the run passes its `hardTimeout` (its `reason` is the
 * {@linkcode CacheFactoryError}); a factory that takes no parameter is
 * fine.
 *
 * @typeParam T The value's type.
 *
 * @example Usage
 * ```ts
 * import type { CacheFactory } from "@vendor/kit/caching";
 *
 * const load: CacheFactory<string> = async (signal) => {
 *   const response = await fetch("http://127.0.0.1:8080/rates", { signal });
 *   return await response.text();
 * };
 * ```
 */
export type CacheFactory<T> = (signal: AbortSignal) => T | Promise<T>;

/**
 * The operations of a cache: a {@linkcode CacheManager} or one of its areas.
 *
 * @example Usage
 * ```ts
 * import type { ICache } from "@vendor/kit/caching";
 *
 * async function userName(cache: ICache, id: number): Promise<string> {
 *   return await cache.getOrSet(`users:${id}`, () => `user ${id}`);
 * }
 * ```
 */
export interface ICache {
  /**
   * Reads a value that is still fresh (its age below its ttl).
   *
   * @typeParam T The expected type.
   * @param key The key.
   * @returns The value, or `undefined` on a miss.
   */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /**
   * Stores a value.
   *
   * @typeParam T The value's type.
   * @param key The key.
   * @param value The value (JSON-serializable for a remote store).
   * @param options `ttl`.
   * @returns Settles when stored (or skipped, if the store is unreachable).
   * @throws {RangeError} `Cache ttl must be a positive number of
   * milliseconds: <value>` (as a rejection).
   */
  set<T = unknown>(
    key: string,
    value: T,
    options?: CacheSetOptions,
  ): Promise<void>;
  /**
   * Removes a value.
   *
   * @param key The key.
   * @returns Settles when removed (or skipped, if the store is unreachable).
   */
  delete(key: string): Promise<void>;
  /**
   * Removes every value of this cache (of this area only, for an area).
   *
   * @returns Settles when cleared (or skipped, if the store is unreachable).
   */
  clear(): Promise<void>;
  /**
   * Returns the cached value, or runs `factory`, stores and returns its
   * result, following the policy's age bands (see {@linkcode CachePolicy}).
   * Concurrent calls for one key share one factory run.
   *
   * @typeParam T The value's type.
   * @param key The key.
   * @param factory Produces the value on a miss or refresh; given an
   * `AbortSignal` that aborts at the `hardTimeout`.
   * @param options `policy`, `ttl`, `softTimeout`, `hardTimeout`, `lock`,
   * `lockTimeout`.
   * @returns The value.
   * @throws What `factory` threw, when no stored value can be served.
   * @throws {CacheFactoryError} When the run passed its `hardTimeout` and no
   * stored value can be served.
   * @throws {CachePolicyNotFoundError} For an unknown policy name.
   */
  getOrSet<T>(
    key: string,
    factory: CacheFactory<T>,
    options?: CacheGetOrSetOptions,
  ): Promise<T>;
  /**
   * Makes every value stored with one of `tags` a miss, in this process and,
   * with a shared store, in every instance; a value so invalidated is never
   * served stale either. Tags are shared by a manager and all its areas.
   *
   * @param tags The tags.
   * @returns Settles when recorded in the store.
   * @throws {TypeError} `Cache tags must be an array of non-empty strings:
   * <value>` (as a rejection).
   */
  invalidateTags(tags: string[]): Promise<void>;
  /**
   * Counters since creation.
   *
   * @returns A snapshot of the counters.
   */
  stats(): CacheStats;
}

/**
 * A named area of a {@linkcode CacheManager}: keys are stored as
 * `<name>:<key>`, and the policy is the one set under the area's name.
 *
 * @example Usage
 * ```ts
 * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
 *
 * const cache = new CacheManager(new MemoryCacheProvider());
 * cache.setPolicy("users", { ttl: 60_000 });
 * const users = cache.area("users");
 * await users.set("1", { name: "Ada" }); // stored as "users:1"
 * await cache.dispose();
 * ```
 */
export interface ICacheArea extends ICache {
  /** The area's name. */
  readonly name: string;
}
