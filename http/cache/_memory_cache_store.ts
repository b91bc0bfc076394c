// The HTTP cache's own store when the application has no cache service and
// none is given: an LRU bounded in count and in the bytes of the bodies it
// holds, in this process only. Expiry runs on the client's clock (so that a
// test's FakeClock ages it), checked when an entry is read; lru-cache loads
// with the first store, never with the module.
import type { LRUCache } from "lru-cache";
import type { Clock } from "../../core/mod.ts";
import { loadLruCache } from "#internal/lru_cache";
import type {
  HttpCacheStore,
  HttpCacheStoreSetOptions,
} from "./http_cache_store.ts";

interface Slot {
  readonly value: unknown;
  readonly until: number;
  readonly size: number;
}

/** What an entry weighs: its `size` field (the body's bytes), else 1. */
function sizeOf(value: unknown): number {
  const size = (value as { size?: unknown } | null)?.size;
  return typeof size === "number" && size > 0 ? Math.ceil(size) : 1;
}

export class MemoryCacheStore implements HttpCacheStore {
  readonly #entries: LRUCache<string, Slot>;
  readonly #clock: Clock;

  /** `maxSize` 0: bounded in count only. */
  constructor(maxEntries: number, maxSize: number, clock: Clock) {
    const LRU = loadLruCache("@vendor/kit-platform-http");
    this.#entries = new LRU<string, Slot>(
      maxSize > 0
        ? { max: maxEntries, maxSize, sizeCalculation: (slot) => slot.size }
        : { max: maxEntries },
    );
    this.#clock = clock;
  }

  get(key: string): Promise<unknown> {
    const slot = this.#entries.get(key);
    if (slot === undefined) return Promise.resolve(undefined);
    if (slot.until <= this.#clock.now()) {
      this.#entries.delete(key);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(slot.value);
  }

  set(
    key: string,
    value: unknown,
    options: HttpCacheStoreSetOptions,
  ): Promise<void> {
    this.#entries.set(key, {
      value,
      until: this.#clock.now() + options.ttl,
      size: sizeOf(value),
    });
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.#entries.delete(key);
    return Promise.resolve();
  }
}
