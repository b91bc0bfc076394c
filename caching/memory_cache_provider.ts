import type { LRUCache } from "lru-cache";
import { loadLruCache } from "#internal/lru_cache";
import type { Clock } from "../core/mod.ts";
import type { TimerHandle } from "../internal/timer_handle.ts";
import { unrefTimer } from "../internal/unref_timer.ts";
import { clockOption } from "./_clock.ts";
import type { CacheEntry, ICacheProvider } from "./cache_provider.ts";

/** Options of {@linkcode MemoryCacheProvider}; all times are milliseconds. */
export interface MemoryCacheProviderOptions {
  /** Most entries kept; the least recently used goes first. Default 1000. */
  maxSize?: number;
  /** How long an entry is kept when `set` gives no ttl. Default 300000 (5 minutes). */
  defaultTtl?: number;
  /**
   * How often expired entries are purged, by a timer that never keeps the
   * process alive. Default 60000 (1 minute); 0 disables the timer (expired
   * entries are then dropped when read or evicted).
   */
  cleanupInterval?: number;
  /**
   * The clock expiry is measured with: a {@linkcode Clock} (the test kit's
   * `FakeClock` in a test) or a function returning milliseconds (only
   * differences matter). Default `performance.now`. An entry expires once
   * its age exceeds its ttl. It is read on every access; the clean-up timer
   * stays on real time (it only frees memory: an expired entry is never
   * served either way).
   */
  clock?: Clock | (() => number);
}

function positive(name: string, value: number, allowZero = false): number {
  if (
    typeof value !== "number" || !Number.isFinite(value) ||
    (allowZero ? value < 0 : value <= 0)
  ) {
    throw new RangeError(
      `MemoryCacheProvider ${name} must be a ${
        allowZero ? "non-negative" : "positive"
      } number: ${value}`,
    );
  }
  return value;
}

/**
 * An in-process cache provider on `lru-cache`: at most `maxSize` entries, the
 * least recently used evicted first, each entry expiring after its ttl.
 * Entries are kept by reference (not copied), so a cached object must not be
 * mutated by its readers.
 *
 * @example Usage
 * ```ts
 * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
 *
 * const provider = new MemoryCacheProvider({
 *   maxSize: 1000,
 *   defaultTtl: 300_000, // 5 minutes
 *   cleanupInterval: 60_000, // 1 minute
 * });
 * const cache = new CacheManager(provider);
 * await cache.set("greeting", "hello");
 * console.log(await cache.get<string>("greeting")); // "hello"
 * await cache.dispose(); // also disposes the provider
 * ```
 */
export class MemoryCacheProvider implements ICacheProvider {
  readonly #cache: LRUCache<string, CacheEntry>;
  readonly #defaultTtl: number;
  // One options object for every write instead of one per call: lru-cache
  // only reads it during set(), and writes back `status` (reset each time).
  readonly #setOptions: LRUCache.SetOptions<string, CacheEntry, unknown> = {
    ttl: 0,
    status: undefined,
  };
  #timer: TimerHandle | undefined;
  // The last invalidation time of each tag, and the longest time a tagged
  // entry was given to live (how long a tag's time can matter).
  readonly #tagTimes = new Map<string, number>();
  #longestTagged = 0;
  #pruneAt = 1024;

  /**
   * Creates the provider and starts its clean-up timer (unref'd).
   *
   * @param options `maxSize` (default 1000), `defaultTtl` (default 300000),
   * `cleanupInterval` (default 60000), `clock`.
   * @throws {RangeError} `MemoryCacheProvider <option> must be a positive
   * number: <value>` for a bad option.
   * @throws {TypeError} `MemoryCacheProvider clock must be a function
   * returning milliseconds or a Clock (now, setTimeout, clearTimeout):
   * <value>`.
   */
  constructor(options: MemoryCacheProviderOptions = {}) {
    const maxSize = positive("maxSize", options.maxSize ?? 1000);
    const defaultTtl = positive("defaultTtl", options.defaultTtl ?? 300_000);
    const cleanupInterval = positive(
      "cleanupInterval",
      options.cleanupInterval ?? 60_000,
      true,
    );
    const clock = clockOption("MemoryCacheProvider", options.clock);
    this.#defaultTtl = Math.ceil(defaultTtl);
    this.#cache = new (loadLruCache("@vendor/kit-platform-caching"))<
      string,
      CacheEntry
    >({
      max: Math.max(1, Math.floor(maxSize)),
      ttl: this.#defaultTtl,
      // A fake clock must be read on every access, never cached; lru-cache
      // takes a start time of 0 for "no ttl", hence the offset of 1.
      ...(clock === undefined
        ? {}
        : { perf: { now: () => clock.now() + 1 }, ttlResolution: 0 }),
    });
    if (cleanupInterval > 0) {
      this.#timer = unrefTimer(
        setInterval(() => this.#cache.purgeStale(), cleanupInterval),
      );
    }
  }

  /** How many entries are held, expired ones not yet purged included. */
  get size(): number {
    return this.#cache.size;
  }

  /**
   * Reads an entry (synchronously) and marks it most recently used.
   *
   * @param key The key.
   * @returns The entry, or `undefined` when absent or expired.
   */
  get(key: string): CacheEntry | undefined {
    const entry = this.#cache.get(key);
    if (entry === undefined || entry.tags === undefined) return entry;
    return this.#invalidated(entry) ? undefined : entry;
  }

  /**
   * Records that the entries carrying one of `tags`, stored at or before
   * `at`, are misses from now on. The times are kept as long as an entry
   * they can concern may still be here.
   *
   * @param tags The tags.
   * @param at The time of the invalidation, on the clock of `storedAt`.
   */
  invalidateTags(tags: string[], at: number): void {
    const times = this.#tagTimes;
    for (const tag of tags) {
      if (!((times.get(tag) ?? -Infinity) >= at)) times.set(tag, at);
    }
    if (times.size > this.#pruneAt) {
      // A time older than the longest life of a tagged entry concerns no
      // entry still here.
      const before = at - this.#longestTagged;
      for (const [tag, time] of times) {
        if (time < before) times.delete(tag);
      }
      this.#pruneAt = Math.max(1024, times.size * 2);
    }
  }

  #invalidated(entry: CacheEntry): boolean {
    const times = this.#tagTimes;
    if (times.size === 0) return false;
    for (const tag of entry.tags!) {
      const time = times.get(tag);
      if (time !== undefined && time >= entry.storedAt) return true;
    }
    return false;
  }

  /**
   * Stores an entry, evicting the least recently used one when full.
   *
   * @param key The key.
   * @param entry The entry.
   * @param ttl How long to keep it, in milliseconds; default the entry's
   * `ttl + maxStale`, else `defaultTtl`.
   */
  set(key: string, entry: CacheEntry, ttl?: number): void {
    let keep = ttl;
    if (keep === undefined) {
      keep = entry.ttl === undefined
        ? this.#defaultTtl
        : entry.ttl + (entry.maxStale ?? 0);
    }
    const options = this.#setOptions;
    options.ttl = keep > 0 ? keep : 1;
    if (entry.tags !== undefined && keep > this.#longestTagged) {
      this.#longestTagged = keep;
    }
    options.status = undefined;
    this.#cache.set(key, entry, options);
  }

  /**
   * Removes an entry.
   *
   * @param key The key.
   */
  delete(key: string): void {
    this.#cache.delete(key);
  }

  /**
   * Tells whether an unexpired entry exists (without marking it used).
   *
   * @param key The key.
   * @returns `true` when present.
   */
  has(key: string): boolean {
    return this.#cache.has(key);
  }

  /**
   * Removes every entry whose key starts with `prefix`, or all entries.
   *
   * @param prefix The key prefix; all entries when omitted or empty.
   */
  clear(prefix?: string): void {
    if (prefix === undefined || prefix === "") {
      this.#cache.clear();
      return;
    }
    const doomed: string[] = [];
    for (const key of this.#cache.keys()) {
      if (key.startsWith(prefix)) doomed.push(key);
    }
    for (const key of doomed) this.#cache.delete(key);
  }

  /** Stops the clean-up timer and drops every entry. */
  dispose(): void {
    if (this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
    this.#cache.clear();
  }
}
