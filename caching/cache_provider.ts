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
  /**
   * The tags given when it was stored: a later
   * {@linkcode ICacheProvider.invalidateTags} of one of them at or after
   * `storedAt` makes it a miss.
   */
  tags?: string[];
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
   * @param tagged A hint: the caller gave tags, so the entry probably carries
   * some (a remote store can then read the entry and its tags' state
   * together). A provider may ignore it.
   * @returns The entry, or `undefined` when absent, expired, or invalidated
   * through one of its tags.
   */
  get(
    key: string,
    tagged?: boolean,
  ): CacheEntry | undefined | Promise<CacheEntry | undefined>;
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
  /**
   * Takes a short lock on `key` in the store, shared by every instance of a
   * service, so that one of them runs a factory (`getOrSet` with `lock`).
   * The lock expires by itself after `ttl` even when its owner never
   * releases it. A provider without it (memory) has no cross-instance lock.
   *
   * @param key The cache key the lock is for (the lock lives elsewhere).
   * @param ttl How long the lock lives, in milliseconds.
   * @returns `acquired: true` with its `release()` (which removes the lock
   * only while it is still this owner's); `acquired: false, held: true`
   * when another owner holds it; `acquired: false, held: false` when the
   * store could not be asked (the caller goes on without a lock). Never
   * rejects.
   */
  tryLock?(key: string, ttl: number): Promise<CacheLockAttempt>;
  /**
   * Reads an entry and, when there is none, tries the lock of `key` in the
   * same round trip (see {@linkcode ICacheProvider.tryLock}). Optional: a
   * provider with `tryLock` alone costs `getOrSet` with `lock` one more
   * round trip on a miss.
   *
   * @param key The key.
   * @param ttl How long the lock lives, in milliseconds.
   * @returns The entry, or no entry and the lock attempt. Never rejects.
   */
  readOrLock?(key: string, ttl: number): Promise<CacheReadOrLock>;
  /**
   * Records that every entry carrying one of `tags` and stored at or before
   * `at` is invalid: from now on `get` answers `undefined` for it. The cost
   * does not depend on the number of entries (no scan).
   *
   * @param tags The tags.
   * @param at The time of the invalidation, on the clock of `storedAt`.
   * @returns Settles when recorded.
   */
  invalidateTags?(tags: string[], at: number): void | Promise<void>;
}

/**
 * The outcome of {@linkcode ICacheProvider.readOrLock}: the entry when there
 * is one (no `lock`), else the lock attempt made in the same round trip.
 *
 * @example Usage
 * ```ts
 * import type { CacheReadOrLock } from "@vendor/kit/caching";
 *
 * const outcome: CacheReadOrLock = { entry: undefined, lock: { acquired: false, held: true } };
 * console.log(outcome.lock?.acquired); // false
 * ```
 */
export interface CacheReadOrLock {
  /** The entry read, or `undefined` when absent or invalidated. */
  readonly entry: CacheEntry | undefined;
  /** The lock attempt, made when no entry was there. */
  readonly lock?: CacheLockAttempt;
}

/**
 * The outcome of {@linkcode ICacheProvider.tryLock}.
 *
 * @example Usage
 * ```ts
 * import type { CacheLockAttempt } from "@vendor/kit/caching";
 *
 * function describe(attempt: CacheLockAttempt): string {
 *   if (attempt.acquired) return "mine";
 *   return attempt.held ? "someone else's" : "no lock (store unreachable)";
 * }
 * ```
 */
export type CacheLockAttempt =
  | {
    /** This caller owns the lock. */
    readonly acquired: true;
    /** Removes the lock if this caller still owns it; never rejects. */
    release(): Promise<void>;
  }
  | {
    /** This caller does not own the lock. */
    readonly acquired: false;
    /** `true`: another owner holds it; `false`: the store did not answer. */
    readonly held: boolean;
  };
