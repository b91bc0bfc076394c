import type { DisposeOptions } from "../core/mod.ts";
import type { HealthCheckResult } from "../platform/mod.ts";
import type { CacheError } from "./cache_error.ts";

/**
 * Where listeners attach to a stream of values (errors, invalidations). A
 * Kit `Signal` from the platform package has this shape.
 *
 * @typeParam T What listeners receive.
 *
 * @example Usage
 * ```ts
 * import type { CacheError, CacheListeners } from "@vendor/kit/caching";
 *
 * function log(errors: CacheListeners<CacheError>): () => void {
 *   return errors.add((error) => console.warn(error.message));
 * }
 * ```
 */
export interface CacheListeners<T> {
  /**
   * Attaches a listener.
   *
   * @param listener Called with each value.
   * @returns A function that detaches it.
   */
  add(listener: (value: T) => void): () => void;
  /**
   * Detaches a listener.
   *
   * @param listener The function given to `add`.
   * @returns `true` when it was attached.
   */
  remove(listener: (value: T) => void): boolean;
  /** How many listeners are attached. */
  readonly size: number;
}

/**
 * One stored value with the metadata the {@linkcode CacheManager} needs to
 * tell fresh from stale. Providers store it as it is (the memory provider) or
 * as JSON (the Redis provider); all times are milliseconds.
 *
 * @typeParam T The cached value.
 *
 * @example Usage
 * ```ts
 * import type { CacheEntry } from "@vendor/kit/caching";
 *
 * const entry: CacheEntry<string> = {
 *   value: "hello",
 *   storedAt: Date.now(),
 *   ttl: 60_000,
 *   maxStale: 10_000,
 * };
 * ```
 */
export interface CacheEntry<T = unknown> {
  /** The cached value. */
  value: T;
  /** When the value was stored, in milliseconds of the writer's clock. */
  storedAt: number;
  /**
   * How long the value stays fresh after {@linkcode CacheEntry.storedAt}.
   * Absent: fresh for as long as the provider keeps it.
   */
  ttl?: number;
  /**
   * How long after {@linkcode CacheEntry.ttl} the value may still be served
   * stale while a refresh runs. Absent means 0.
   */
  maxStale?: number;
}

/**
 * A place where cache entries live: memory, Redis, or both
 * ({@linkcode TieredCacheProvider}). Methods may answer synchronously or with
 * a promise; {@linkcode CacheManager} accepts either.
 *
 * Providers shipped with Kit never throw for a store failure: they report it
 * through {@linkcode ICacheProvider.errorOccurred} and behave as a miss (reads)
 * or as a no-op (writes).
 *
 * @example A custom provider
 * ```ts
 * import type { CacheEntry, ICacheProvider } from "@vendor/kit/caching";
 *
 * class MapProvider implements ICacheProvider {
 *   #map = new Map<string, CacheEntry>();
 *   get(key: string): CacheEntry | undefined {
 *     return this.#map.get(key);
 *   }
 *   set(key: string, entry: CacheEntry): void {
 *     this.#map.set(key, entry);
 *   }
 *   delete(key: string): void {
 *     this.#map.delete(key);
 *   }
 *   has(key: string): boolean {
 *     return this.#map.has(key);
 *   }
 *   clear(prefix = ""): void {
 *     for (const key of [...this.#map.keys()]) {
 *       if (key.startsWith(prefix)) this.#map.delete(key);
 *     }
 *   }
 * }
 * ```
 */
export interface ICacheProvider {
  /**
   * Reads an entry.
   *
   * @param key The full key (area prefix included).
   * @returns The entry, or `undefined` when absent or expired.
   */
  get(key: string): CacheEntry | undefined | Promise<CacheEntry | undefined>;
  /**
   * Stores an entry.
   *
   * @param key The full key.
   * @param entry The value and its metadata.
   * @param ttl How long the store keeps the entry, in milliseconds.
   * {@linkcode CacheManager} passes the entry's `ttl + maxStale`, so a stale
   * value is still there to serve during its window. When omitted, Kit's
   * providers keep it for the entry's own `ttl + maxStale`, else for their
   * default ttl.
   */
  set(key: string, entry: CacheEntry, ttl?: number): void | Promise<void>;
  /**
   * Removes an entry; removing an absent key is not an error.
   *
   * @param key The full key.
   */
  delete(key: string): void | Promise<void>;
  /**
   * Tells whether an unexpired entry exists.
   *
   * @param key The full key.
   * @returns `true` when the key is present.
   */
  has(key: string): boolean | Promise<boolean>;
  /**
   * Removes every entry whose key starts with `prefix` (all entries of this
   * provider when omitted or empty).
   *
   * @param prefix The key prefix to remove.
   */
  clear(prefix?: string): void | Promise<void>;
  /**
   * Releases timers and connections. Calling it twice is harmless.
   *
   * @param options `signal` and/or `timeout` (milliseconds): a provider that
   * waits on the network stops waiting at the deadline and resolves.
   */
  dispose?(options?: DisposeOptions): void | Promise<void>;
  /**
   * Tells whether the store answers (`degraded` while the cache runs on
   * misses). A provider without it counts as healthy.
   *
   * @param signal Aborts the check.
   * @returns The state of the store.
   */
  checkHealth?(
    signal?: AbortSignal,
  ): HealthCheckResult | Promise<HealthCheckResult>;
  /**
   * Store failures (unreachable store, bad value read back), if the provider
   * can have any. {@linkcode CacheManager} listens to count them in
   * {@linkcode CacheStats.providerErrors}.
   */
  readonly errorOccurred?: CacheListeners<CacheError>;
}
