// Where the HTTP cache of HttpClient.fromConfiguration keeps responses: the
// store given in code, else the running application's `cache` service (a
// CacheManager over memory or Redis, so that the instances of an application
// share it), else a memory store of the client's own. The cache options are
// checked here, once, when the client is made.
import { type Clock, maskSecretText } from "../../core/mod.ts";
import {
  AsyncServiceError,
  hostLogger,
  ServiceLocator,
} from "../../platform/mod.ts";
import { HttpCache } from "./_http_cache.ts";
import { MemoryCacheStore } from "./_memory_cache_store.ts";
import { LOG_CATEGORY } from "../_log.ts";
import { byteCount, count } from "../_validate.ts";
import type { HttpClientConfigurationOptions } from "../http_client_options.ts";
import type { HttpCacheStore } from "./http_cache_store.ts";

export const DEFAULT_MAX_CACHE_ENTRY_SIZE = 1024 * 1024;
export const DEFAULT_MAX_CACHE_ENTRIES = 1_000;
export const DEFAULT_MAX_CACHE_SIZE = 32 * 1024 * 1024;

/** The name of the application's cache service. */
const CACHE_SERVICE = "cache";

/** What the client's HTTP cache is made of; the clock comes later. */
export interface CacheSetup {
  /**
   * The store; a promise while the application's cache service is being
   * created; undefined for the client's own memory store.
   */
  readonly store: HttpCacheStore | Promise<unknown> | undefined;
  readonly maxEntrySize: number;
  readonly maxEntries: number;
  readonly maxSize: number;
}

/**
 * Checks the cache options and, when the cache is on, picks its store.
 *
 * @throws {TypeError} For a `cache` that is not a store, or an application
 * `cache` service that is not one.
 * @throws {RangeError} For an invalid size or count.
 */
export function cacheSetup(
  options: HttpClientConfigurationOptions,
  enabled: boolean,
): CacheSetup | undefined {
  const maxEntrySize = byteCount(
    "maxCacheEntrySize",
    options.maxCacheEntrySize,
    DEFAULT_MAX_CACHE_ENTRY_SIZE,
  );
  const maxEntries = count(
    "maxCacheEntries",
    options.maxCacheEntries,
    DEFAULT_MAX_CACHE_ENTRIES,
  );
  if (maxEntries < 1) {
    throw new RangeError(
      `Invalid maxCacheEntries: ${maxEntries}; expected a whole number >= 1`,
    );
  }
  const maxSize = byteCount(
    "maxCacheSize",
    options.maxCacheSize,
    DEFAULT_MAX_CACHE_SIZE,
  );
  const given = options.cache;
  if (given !== undefined && !isStore(given)) {
    throw new TypeError(
      "Invalid cache: expected a store with get(key), set(key, value, " +
        "{ ttl }) and delete(key) methods, such as a CacheManager",
    );
  }
  if (!enabled) return undefined;
  return {
    store: given ?? applicationStore(),
    maxEntrySize,
    maxEntries,
    maxSize,
  };
}

/** The HTTP cache of a client, on its clock. */
export function createHttpCache(setup: CacheSetup, clock: Clock): HttpCache {
  const memory = (): HttpCacheStore =>
    new MemoryCacheStore(setup.maxEntries, setup.maxSize, clock);
  const store = setup.store;
  if (store === undefined) {
    return new HttpCache(memory(), false, setup.maxEntrySize, clock);
  }
  return new HttpCache(
    store instanceof Promise ? new DeferredStore(store, memory) : store,
    true,
    setup.maxEntrySize,
    clock,
  );
}

/** Whether `value` has the methods of a store. */
function isStore(value: unknown): value is HttpCacheStore {
  if (value === null || typeof value !== "object") return false;
  const store = value as Record<string, unknown>;
  return typeof store.get === "function" && typeof store.set === "function" &&
    typeof store.delete === "function";
}

/**
 * The running application's `cache` service (or one registered on the
 * process-wide locator): the service, a promise for one still being created
 * asynchronously, or undefined when there is none.
 *
 * @throws {TypeError} When the service is not a store.
 * @throws What creating the service threw.
 */
function applicationStore(): HttpCacheStore | Promise<unknown> | undefined {
  if (!ServiceLocator.has(CACHE_SERVICE)) return undefined;
  let service: unknown;
  try {
    service = ServiceLocator.get<unknown>(CACHE_SERVICE);
  } catch (error) {
    if (!(error instanceof AsyncServiceError)) throw error;
    const pending = ServiceLocator.getAsync<unknown>(CACHE_SERVICE);
    // Its failure is reported when the store is first used.
    pending.catch(() => {});
    return pending;
  }
  if (!isStore(service)) throw notAStore();
  return service;
}

function notAStore(): TypeError {
  return new TypeError(
    `The application's "${CACHE_SERVICE}" service is not a store (get, set ` +
      "and delete methods) the HTTP cache can use: pass options.cache to " +
      "HttpClient.fromConfiguration (a CacheManager), or enableCaching: false",
  );
}

/**
 * The application's cache service created asynchronously: its store once it
 * is there; the client's own memory store when its creation failed or it is
 * not a store (said once, as a warning).
 */
class DeferredStore implements HttpCacheStore {
  #store: HttpCacheStore | undefined;
  readonly #ready: Promise<HttpCacheStore>;

  constructor(pending: Promise<unknown>, memory: () => HttpCacheStore) {
    this.#ready = pending.then(
      (service) => {
        if (isStore(service)) return service;
        return fallBack(memory, notAStore().message);
      },
      (error: unknown) =>
        fallBack(
          memory,
          `The application's "${CACHE_SERVICE}" service could not be ` +
            `created (${
              maskSecretText(
                error instanceof Error ? error.message : String(error),
              )
            }): the HTTP cache keeps responses in this process`,
        ),
    ).then((store) => this.#store = store);
  }

  async #resolve(): Promise<HttpCacheStore> {
    return this.#store ?? await this.#ready;
  }

  async get(key: string): Promise<unknown> {
    return await (await this.#resolve()).get(key);
  }

  async set(
    key: string,
    value: unknown,
    options: { ttl: number },
  ): Promise<void> {
    await (await this.#resolve()).set(key, value, options);
  }

  async delete(key: string): Promise<void> {
    await (await this.#resolve()).delete(key);
  }
}

function fallBack(
  memory: () => HttpCacheStore,
  message: string,
): HttpCacheStore {
  const logger = hostLogger(LOG_CATEGORY);
  if (logger !== undefined) logger.warning(message, { cache: "error" });
  else console.warn(`kit.http: ${message}`);
  return memory();
}
