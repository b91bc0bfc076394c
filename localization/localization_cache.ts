import type { LRUCache } from "lru-cache";
import { loadLruCache } from "#internal/lru_cache";
import { cacheClocks } from "./_cache_clock.ts";
import type { Clock } from "../core/mod.ts";
import type { LocalizationResources } from "./loading/localization_provider.ts";

/** Options of a {@linkcode LocalizationCache}. */
export interface LocalizationCacheOptions {
  /** How many cultures are kept; the least recently used goes first. Default 1000. */
  maxSize?: number;
  /**
   * How long loaded translations stay fresh, in milliseconds; `0` keeps them
   * fresh for ever. Default 3600000 (one hour).
   */
  ttl?: number;
  /**
   * The clock freshness is measured with, for this cache and for the
   * translators a {@linkcode LocalizationManager} builds from it: the test
   * kit's `FakeClock` in a test, so that an hour passes in a moment. Only
   * `now()` is read (expiry is checked on access; no timer runs on it).
   * Default: the real time (`performance.now()`).
   */
  clock?: Clock;
  /**
   * The older form of `clock`: a function returning milliseconds (only
   * differences matter). Give one or the other.
   */
  now?: () => number;
}

function isClock(value: unknown): value is Clock {
  return typeof value === "object" && value !== null &&
    typeof (value as Clock).now === "function" &&
    typeof (value as Clock).setTimeout === "function" &&
    typeof (value as Clock).clearTimeout === "function";
}

/**
 * Keeps the loaded translations of each culture for the
 * {@linkcode LocalizationManager} (built on `lru-cache`). A fresh entry spares
 * the provider a load on `setCulture`; an expired entry is reloaded on the
 * next `setCulture`, and when that reload fails the last good translations
 * keep being served. Expired entries are kept (until pushed out by
 * `maxSize`) for exactly that purpose; no timer runs.
 *
 * @example Usage
 * ```ts
 * import {
 *   DefaultCultureProvider,
 *   LocalizationCache,
 *   LocalizationManager,
 *   MapLocalizationProvider,
 * } from "@vendor/kit/localization";
 *
 * const cache = new LocalizationCache({ maxSize: 1000, ttl: 3600000 });
 * const manager = new LocalizationManager(
 *   new MapLocalizationProvider(new Map([["en", new Map([["a", "A"]])]])),
 *   new DefaultCultureProvider("en"),
 *   (key) => `[${key}]`,
 *   cache,
 * );
 * await manager.setCulture("en");
 * cache.has("en"); // true
 * ```
 */
export class LocalizationCache {
  readonly #entries: LRUCache<string, LocalizationResources>;
  readonly #maxSize: number;
  readonly #ttl: number;

  /**
   * Creates the cache.
   *
   * @param options `maxSize`, `ttl` and the clock (`clock`, or `now`).
   * @throws {RangeError} When `maxSize` is not a positive integer or `ttl` is
   * not a non-negative integer.
   * @throws {TypeError} When `clock` is not a {@linkcode Clock}, or both
   * `clock` and `now` are given.
   */
  constructor(options: LocalizationCacheOptions = {}) {
    const maxSize = options.maxSize ?? 1000;
    const ttl = options.ttl ?? 3_600_000;
    if (!Number.isInteger(maxSize) || maxSize < 1) {
      throw new RangeError(
        `LocalizationCache: maxSize must be a positive integer, got ${maxSize}`,
      );
    }
    if (!Number.isInteger(ttl) || ttl < 0) {
      throw new RangeError(
        `LocalizationCache: ttl must be a non-negative integer, got ${ttl}`,
      );
    }
    this.#maxSize = maxSize;
    this.#ttl = ttl;
    const clock = options.clock;
    if (clock !== undefined && !isClock(clock)) {
      throw new TypeError(
        `LocalizationCache: clock must be a Clock (now, setTimeout, clearTimeout), got ${
          String(clock)
        }`,
      );
    }
    if (clock !== undefined && options.now !== undefined) {
      throw new TypeError(
        "LocalizationCache: give either clock or now, not both (now is the older form of clock)",
      );
    }
    const now = clock === undefined ? options.now : () => clock.now();
    if (now !== undefined) cacheClocks.set(this, now);
    this.#entries = new (loadLruCache("@vendor/kit-platform-localization"))<
      string,
      LocalizationResources
    >({
      max: maxSize,
      ...(ttl > 0 ? { ttl } : {}),
      // Staleness is checked against the clock each time, with no timer.
      ttlResolution: 0,
      // An expired entry stays for getStale() until replaced or evicted.
      noDeleteOnStaleGet: true,
      // lru-cache treats a start time of 0 as "no ttl", so a clock that
      // starts at 0 is shifted by 1 ms (only differences matter).
      ...(now !== undefined ? { perf: { now: () => now() + 1 } } : {}),
    });
  }

  /** The most cultures kept. */
  get maxSize(): number {
    return this.#maxSize;
  }

  /** How long an entry stays fresh, in milliseconds (`0`: for ever). */
  get ttl(): number {
    return this.#ttl;
  }

  /** How many cultures are held, expired ones included. */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The fresh translations of `culture`.
   *
   * @param culture A culture name.
   * @returns The translations, or `undefined` when absent or expired.
   *
   * @example Usage
   * ```ts
   * import { LocalizationCache } from "@vendor/kit/localization";
   *
   * const cache = new LocalizationCache();
   * cache.set("en", new Map([["a", "A"]]));
   * cache.get("en")?.get("a"); // "A"
   * ```
   */
  get(culture: string): LocalizationResources | undefined {
    return this.#entries.get(culture);
  }

  /**
   * The translations of `culture`, even when expired: what is served when a
   * reload fails.
   *
   * @param culture A culture name.
   * @returns The translations, or `undefined` when absent.
   *
   * @example Usage
   * ```ts
   * import { LocalizationCache } from "@vendor/kit/localization";
   *
   * let clock = 0;
   * const cache = new LocalizationCache({ ttl: 10, now: () => clock });
   * cache.set("en", new Map([["a", "A"]]));
   * clock = 20;
   * cache.get("en"); // undefined
   * cache.getStale("en")?.get("a"); // "A"
   * ```
   */
  getStale(culture: string): LocalizationResources | undefined {
    return this.#entries.get(culture, { allowStale: true });
  }

  /**
   * Whether fresh translations of `culture` are held.
   *
   * @param culture A culture name.
   * @returns `true` when present and not expired.
   *
   * @example Usage
   * ```ts
   * import { LocalizationCache } from "@vendor/kit/localization";
   *
   * new LocalizationCache().has("en"); // false
   * ```
   */
  has(culture: string): boolean {
    return this.#entries.has(culture);
  }

  /**
   * Stores the translations of `culture`; they are fresh for `ttl`.
   *
   * @param culture A culture name.
   * @param resources Its translations.
   *
   * @example Usage
   * ```ts
   * import { LocalizationCache } from "@vendor/kit/localization";
   *
   * new LocalizationCache().set("fr", new Map([["a", "A"]]));
   * ```
   */
  set(culture: string, resources: LocalizationResources): void {
    this.#entries.set(culture, resources);
  }

  /**
   * Forgets the translations of `culture`.
   *
   * @param culture A culture name.
   * @returns `true` when something was held.
   *
   * @example Usage
   * ```ts
   * import { LocalizationCache } from "@vendor/kit/localization";
   *
   * new LocalizationCache().delete("fr"); // false
   * ```
   */
  delete(culture: string): boolean {
    return this.#entries.delete(culture);
  }

  /**
   * Forgets every culture.
   *
   * @example Usage
   * ```ts
   * import { LocalizationCache } from "@vendor/kit/localization";
   *
   * const cache = new LocalizationCache();
   * cache.clear();
   * ```
   */
  clear(): void {
    this.#entries.clear();
  }
}
