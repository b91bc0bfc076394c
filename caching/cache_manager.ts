import {
  type Clock,
  deadlineSignal,
  type DisposeOptions,
  systemClock,
} from "../core/mod.ts";
import { clockOption } from "./_clock.ts";
import type { HealthCheckResult } from "../platform/mod.ts";
import { CacheCore } from "./_cache_core.ts";
import { CacheScope } from "./_cache_scope.ts";
import { settleWithin } from "./redis/_deadlines.ts";
import type {
  CacheFactory,
  CacheGetOrSetOptions,
  CacheSetOptions,
  ICache,
  ICacheArea,
} from "./cache.ts";
import type { CacheError } from "./cache_error.ts";
import { CachePolicy, type CachePolicyOptions } from "./cache_policy.ts";
import type { ICacheProvider } from "./cache_provider.ts";
import type { CacheStats } from "./cache_stats.ts";
import { CacheStoreRecovered } from "./cache_store_recovered.ts";

/** Options of {@linkcode CacheManager}. */
export interface CacheManagerOptions {
  /**
   * The policy of keys outside any area, and of areas without a policy of
   * their own. Default: none; a value is then fresh for its `ttl` when `set`
   * gives one, else for as long as the provider keeps it.
   */
  policy?: CachePolicy | CachePolicyOptions;
  /**
   * The clock ages, tag invalidations and the soft and hard factory
   * timeouts are measured with: a {@linkcode Clock} (the test kit's
   * `FakeClock` in a test), or a function returning milliseconds since the
   * epoch (then the timeouts run on the system's timers). Default
   * {@linkcode systemClock}. Give a `MemoryCacheProvider` the same clock, so
   * that it drops entries by the same time.
   */
  clock?: Clock | (() => number);
  /**
   * Receives background factory failures ({@linkcode CacheFactoryError}) and
   * the provider's errors (and the {@linkcode CacheStoreRecovered} that
   * ends an outage). Default `console.warn` (`console.info` for the
   * recovery). Nothing is ever thrown
   * to a caller for these.
   */
  onError?: (error: CacheError) => void;
}

/**
 * The entry point of caching: `get`, `set`, `delete`, `clear`, `getOrSet`
 * over any {@linkcode ICacheProvider}, with named policies and areas.
 *
 * - `getOrSet` follows a {@linkcode CachePolicy}'s age bands: fresh values
 *   are returned; near the end of the ttl and during `maxStale` the stored
 *   value is returned while one background refresh runs; past that the
 *   caller waits for the factory. Concurrent calls for one key share one
 *   factory run, whatever the band, so a cold key never stampedes.
 * - A refresh that fails keeps the stored value and is reported through
 *   `onError`; only a caller with nothing to serve sees the factory's error.
 * - The provider's errors never reach callers: a failed read is a miss, a
 *   failed write is skipped; they are counted and reported.
 *
 * @example Usage
 * ```ts
 * import { CacheManager, CachePolicy, MemoryCacheProvider } from "@vendor/kit/caching";
 *
 * const cache = new CacheManager(new MemoryCacheProvider({ maxSize: 1000 }));
 * cache.setPolicy("products", new CachePolicy({
 *   ttl: 900_000,
 *   refreshThreshold: 0.8,
 *   maxStale: 300_000,
 * }));
 * const products = cache.area("products");
 * const product = await products.getOrSet("42", async () => ({ id: 42, name: "Lamp" }));
 * console.log(product.name, cache.stats().misses); // "Lamp" 1
 * await cache.dispose();
 * ```
 */
export class CacheManager implements ICache {
  readonly #core: CacheCore;
  readonly #root: CacheScope;
  readonly #areas = new Map<string, CacheScope>();
  readonly #detach: (() => void) | undefined;
  #disposed = false;

  /**
   * Creates a manager over `provider`; the manager owns it
   * ({@linkcode CacheManager.dispose} disposes it).
   *
   * @param provider Where values are stored.
   * @param options `policy`, `clock`, `onError`.
   * @throws {RangeError} For an invalid `policy` (see {@linkcode CachePolicy}).
   * @throws {TypeError} `CacheManager clock must be a function returning
   * milliseconds or a Clock (now, setTimeout, clearTimeout): <value>`.
   */
  constructor(provider: ICacheProvider, options: CacheManagerOptions = {}) {
    this.#core = new CacheCore(
      provider,
      clockOption("CacheManager", options.clock) ?? systemClock,
      options.policy === undefined
        ? undefined
        : CachePolicy.from(options.policy),
      options.onError,
    );
    this.#root = new CacheScope(this.#core, undefined);
    const core = this.#core;
    this.#detach = provider.errorOccurred?.add((error) => {
      if (!(error instanceof CacheStoreRecovered)) core.providerErrors++;
      core.report(error);
    });
  }

  /** The provider values are stored in. */
  get provider(): ICacheProvider {
    return this.#core.provider;
  }

  /**
   * Reads a value that is still fresh.
   *
   * @typeParam T The expected type.
   * @param key The key.
   * @returns The value, or `undefined` on a miss (also while the store is
   * unreachable).
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * await cache.set("a", 1);
   * console.log(await cache.get<number>("a")); // 1
   * await cache.dispose();
   * ```
   */
  get<T = unknown>(key: string): Promise<T | undefined> {
    return this.#root.get<T>(key);
  }

  /**
   * Stores a value.
   *
   * @typeParam T The value's type.
   * @param key The key.
   * @param value The value (JSON-serializable for a remote store).
   * @param options `ttl` in milliseconds; default the manager's policy ttl,
   * else the provider's default. `tags`: see
   * {@linkcode CacheManager.invalidateTags}.
   * @returns Settles when stored (or skipped, if the store is unreachable).
   * @throws {RangeError} `Cache ttl must be a positive number of
   * milliseconds: <value>` (as a rejection).
   * @throws {TypeError} `Cache tags must be an array of non-empty strings:
   * <value>` (as a rejection).
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * await cache.set("session:1", { user: "ada" }, { ttl: 60_000 });
   * await cache.dispose();
   * ```
   */
  set<T = unknown>(
    key: string,
    value: T,
    options?: CacheSetOptions,
  ): Promise<void> {
    return this.#root.set(key, value, options);
  }

  /**
   * Removes a value.
   *
   * @param key The key.
   * @returns Settles when removed.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * await cache.delete("session:1");
   * await cache.dispose();
   * ```
   */
  delete(key: string): Promise<void> {
    return this.#root.delete(key);
  }

  /**
   * Removes every value of the provider (areas included; for a remote store,
   * every key under its prefix).
   *
   * @returns Settles when cleared.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * await cache.clear();
   * await cache.dispose();
   * ```
   */
  clear(): Promise<void> {
    return this.#root.clear();
  }

  /**
   * Returns the cached value or runs `factory` (see {@linkcode CachePolicy}
   * for the age bands). Concurrent calls for one key share one factory run.
   *
   * @typeParam T The value's type.
   * @param key The key.
   * @param factory Produces the value; given an `AbortSignal` that aborts at
   * the `hardTimeout`.
   * @param options `policy` (object or name), `ttl`, and the policy's
   * `softTimeout`, `hardTimeout`, `lock`, `lockTimeout` for this call.
   * @returns The value.
   * @throws What `factory` threw, when no stored value can be served.
   * @throws {CacheFactoryError} When the run passed its `hardTimeout` and no
   * stored value can be served.
   * @throws {CachePolicyNotFoundError} For an unknown policy name.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * const rates = await cache.getOrSet(
   *   "rates",
   *   async () => ({ eur: 1, usd: 1.08 }),
   *   { policy: { ttl: 900_000, refreshThreshold: 0.8, maxStale: 300_000 } },
   * );
   * console.log(rates.usd);
   * await cache.dispose();
   * ```
   */
  getOrSet<T>(
    key: string,
    factory: CacheFactory<T>,
    options?: CacheGetOrSetOptions,
  ): Promise<T> {
    return this.#root.getOrSet(key, factory, options);
  }

  /**
   * Makes every value stored with one of `tags` (by `set` or `getOrSet`, in
   * any area) a miss, and never served stale. With Redis it is one command,
   * whatever the number of entries (no scan), and every instance sees it;
   * a factory run under way in this process for a value with one of the
   * tags returns its value to its callers but does not store it.
   *
   * @param tags The tags (any characters).
   * @returns Settles when recorded in the store (or skipped, if the store is
   * unreachable, reported like any store failure).
   * @throws {TypeError} `Cache tags must be an array of non-empty strings:
   * <value>` (as a rejection), or when the provider has no tags.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * await cache.set("product:42", { name: "Lamp" }, { tags: ["products", "shop:7"] });
   * await cache.invalidateTags(["shop:7"]);
   * console.log(await cache.get("product:42")); // undefined
   * await cache.dispose();
   * ```
   */
  invalidateTags(tags: string[]): Promise<void> {
    return this.#root.invalidateTags(tags);
  }

  /**
   * Attaches a policy to a named area; `area(name)` and
   * `getOrSet(…, { policy: name })` use it. Replaces an earlier one.
   *
   * @param name The area's name.
   * @param policy A {@linkcode CachePolicy} or a plain object of its shape.
   * @throws {RangeError} For an invalid policy.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, CachePolicy, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * cache.setPolicy("users", new CachePolicy({ ttl: 900_000, refreshThreshold: 0.8, maxStale: 300_000 }));
   * await cache.dispose();
   * ```
   */
  setPolicy(name: string, policy: CachePolicy | CachePolicyOptions): void {
    this.#core.policies.set(name, CachePolicy.from(policy));
  }

  /**
   * Returns the policy set under `name`.
   *
   * @param name The name.
   * @returns The policy, or `undefined`.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * cache.setPolicy("users", { ttl: 60_000 });
   * console.log(cache.getPolicy("users")?.ttl); // 60000
   * await cache.dispose();
   * ```
   */
  getPolicy(name: string): CachePolicy | undefined {
    return this.#core.policies.get(name);
  }

  /**
   * The same API scoped to an area: keys are stored as `<name>:<key>`, the
   * policy is the one set under `name` (looked up at each call, so a later
   * `setPolicy` applies), else the manager's. The same name returns the
   * same area.
   *
   * @param name The area's name.
   * @returns The area.
   * @throws {TypeError} `Cache area name must be a non-empty string` otherwise.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * const sessions = cache.area("sessions");
   * await sessions.set("abc", { user: 1 });
   * await sessions.clear(); // only "sessions:*"
   * await cache.dispose();
   * ```
   */
  area(name: string): ICacheArea {
    if (typeof name !== "string" || name === "") {
      throw new TypeError("Cache area name must be a non-empty string");
    }
    let area = this.#areas.get(name);
    if (area === undefined) {
      area = new CacheScope(this.#core, name);
      this.#areas.set(name, area);
    }
    return area;
  }

  /**
   * Counters for the whole manager, areas included.
   *
   * @returns A snapshot: hits, misses, staleServed, backgroundRefreshes,
   * factoryErrors, providerErrors.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * console.log(cache.stats().hits); // 0
   * await cache.dispose();
   * ```
   */
  stats(): CacheStats {
    return this.#root.stats();
  }

  /**
   * Tells whether the cache works fully: `healthy` when the store answers
   * (a memory store always does), `degraded` while a remote store is
   * unreachable and the cache runs on misses (`detail` says why and since
   * when, never the password), `unhealthy` once disposed or when the
   * provider's own check throws. The application host picks this method up
   * as a health check.
   *
   * @param signal Aborts the check (the store's answer is then not waited
   * for and the result is `degraded`).
   * @returns The state, from the provider's own check when it has one.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * console.log((await cache.checkHealth()).status); // "healthy"
   * await cache.dispose();
   * ```
   */
  async checkHealth(signal?: AbortSignal): Promise<HealthCheckResult> {
    if (this.#disposed) {
      return { status: "unhealthy", detail: "the cache manager is disposed" };
    }
    const provider = this.#core.provider;
    if (provider.checkHealth === undefined) return { status: "healthy" };
    try {
      return await provider.checkHealth(signal);
    } catch (error) {
      return {
        status: "unhealthy",
        detail: `the provider's checkHealth threw: ${
          error instanceof Error ? error.message : String(error)
        }`,
      };
    }
  }

  /**
   * Waits for writes started by background refreshes, stops listening to
   * the provider and disposes it (timers, connections). `options` bounds
   * the whole of it: at the deadline the background writes still under way
   * are no longer waited for (a cache can lose them) and the provider is
   * disposed with what is left of the time, so a shutdown never waits on a
   * silent store.
   *
   * @param options `signal` and/or `timeout` (milliseconds).
   * @returns Settles when everything is released, or at the deadline;
   * never rejects because of it.
   * @throws {RangeError} For a negative or non-numeric `timeout`.
   *
   * @example Usage
   * ```ts
   * import { CacheManager, MemoryCacheProvider } from "@vendor/kit/caching";
   *
   * const cache = new CacheManager(new MemoryCacheProvider());
   * await cache.dispose({ timeout: 2_000 });
   * ```
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    if (this.#disposed) return;
    const signal = deadlineSignal(options);
    this.#disposed = true;
    const core = this.#core;
    while (core.writes.size > 0 && signal?.aborted !== true) {
      await settleWithin(Promise.all([...core.writes]), undefined, signal);
    }
    this.#detach?.();
    await core.provider.dispose?.(
      signal === undefined ? undefined : { signal },
    );
  }

  /**
   * Same as {@linkcode CacheManager.dispose}, for `await using`.
   *
   * @returns Settles when everything is released.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
