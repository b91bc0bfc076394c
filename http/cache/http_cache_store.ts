// Where the HTTP cache of a client keeps responses: the few methods of a
// key-value store that Kit's CacheManager has, so that the application's
// cache (memory or Redis) serves without the HTTP client importing caching.

/** Options of {@linkcode HttpCacheStore.set}. */
export interface HttpCacheStoreSetOptions {
  /** Milliseconds the store keeps the value (always above 0). */
  ttl: number;
}

/**
 * Where {@linkcode HttpClient.fromConfiguration} keeps the responses of its
 * HTTP cache (`api:enableCaching`): a key-value store with a time to live.
 * Kit's `CacheManager` (`@vendor/kit/caching`) is one as it is, over memory
 * or Redis; any object with these three methods will do.
 *
 * Keys start with `kit.http:` and end with a hash of the address, so that no
 * address (nor a token in its query) is written to the store. Values are
 * plain objects of strings and numbers, the body as text: they survive
 * `JSON.stringify`, as a remote store needs. A store that fails or takes more
 * than a second is treated as a miss (reading) or skipped (writing): the call
 * goes to the server.
 *
 * @example A store over a Map (without eviction: an example only)
 * ```ts
 * import type { HttpCacheStore } from "@vendor/kit/http";
 *
 * const values = new Map<string, { value: unknown; until: number }>();
 * const store: HttpCacheStore = {
 *   get: (key) => {
 *     const found = values.get(key);
 *     return Promise.resolve(
 *       found !== undefined && found.until > Date.now() ? found.value : undefined,
 *     );
 *   },
 *   set: (key, value, { ttl }) => {
 *     values.set(key, { value, until: Date.now() + ttl });
 *     return Promise.resolve();
 *   },
 *   delete: (key) => {
 *     values.delete(key);
 *     return Promise.resolve();
 *   },
 * };
 * ```
 */
export interface HttpCacheStore {
  /**
   * Reads a value.
   *
   * @param key The key.
   * @returns The value, or `undefined` when there is none (or it expired).
   */
  get(key: string): Promise<unknown>;
  /**
   * Stores a value for `options.ttl` milliseconds.
   *
   * @param key The key.
   * @param value A plain, JSON-serialisable object.
   * @param options The time to live.
   * @returns Settles once stored.
   */
  set(
    key: string,
    value: unknown,
    options: HttpCacheStoreSetOptions,
  ): Promise<void>;
  /**
   * Removes a value.
   *
   * @param key The key.
   * @returns Settles once removed.
   */
  delete(key: string): Promise<void>;
}
