/**
 * The part of the Web Storage API (`localStorage`) that Kit uses. Any
 * `Storage` fits, and so does {@linkcode MemoryStorage}.
 */
export interface StorageLike {
  /** The value under `key`, or `null`. */
  getItem(key: string): string | null;
  /** Stores `value` under `key`. */
  setItem(key: string, value: string): void;
  /** Removes `key`. */
  removeItem(key: string): void;
}

/**
 * An in-memory `Storage` (the Web Storage API shape: `getItem`, `setItem`,
 * `removeItem`, `clear`, `key`, `length`) for runtimes without
 * `localStorage`, and for tests. Values are kept as strings, like
 * `localStorage` does.
 *
 * @example Usage
 * ```ts
 * import { MemoryStorage } from "@vendor/kit/http";
 *
 * const storage = new MemoryStorage();
 * storage.setItem("authToken", "abc");
 * storage.getItem("authToken"); // "abc"
 * storage.length; // 1
 * ```
 */
export class MemoryStorage implements StorageLike {
  readonly #items = new Map<string, string>();

  /** Number of stored keys. */
  get length(): number {
    return this.#items.size;
  }

  /**
   * The key at `index` in insertion order.
   *
   * @param index Position from 0.
   * @returns The key, or `null` when out of range.
   */
  key(index: number): string | null {
    if (!Number.isInteger(index) || index < 0) return null;
    let i = 0;
    for (const key of this.#items.keys()) {
      if (i++ === index) return key;
    }
    return null;
  }

  /**
   * Reads a value.
   *
   * @param key The key.
   * @returns The value, or `null` when absent.
   */
  getItem(key: string): string | null {
    return this.#items.get(String(key)) ?? null;
  }

  /**
   * Stores a value (converted to a string).
   *
   * @param key The key.
   * @param value The value.
   */
  setItem(key: string, value: string): void {
    this.#items.set(String(key), String(value));
  }

  /**
   * Removes a key.
   *
   * @param key The key.
   */
  removeItem(key: string): void {
    this.#items.delete(String(key));
  }

  /** Removes every key. */
  clear(): void {
    this.#items.clear();
  }
}
