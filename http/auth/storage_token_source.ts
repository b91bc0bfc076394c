import { MemoryStorage, type StorageLike } from "./memory_storage.ts";

/** Options of {@linkcode StorageTokenSource}. */
export interface StorageTokenSourceOptions {
  /**
   * Where the token lives. Default: `localStorage` in a browser, a
   * {@linkcode MemoryStorage} elsewhere (a server must not share one
   * persistent token store between users).
   */
  storage?: StorageLike;
  /** Storage key. Default `"authToken"`. */
  key?: string;
}

/**
 * Reads and writes the access token under the key `authToken` of a
 * `Storage`: `localStorage` in browsers, an in-memory storage
 * elsewhere. Pair it with {@linkcode AuthInterceptor}.
 *
 * @example Usage
 * ```ts
 * import { MemoryStorage, StorageTokenSource } from "@vendor/kit/http";
 *
 * const tokens = new StorageTokenSource({ storage: new MemoryStorage() });
 * tokens.setToken("abc");
 * tokens.getToken(); // "abc"
 * tokens.clear();
 * tokens.getToken(); // null
 * ```
 */
export class StorageTokenSource {
  /** The storage the token is kept in. */
  readonly storage: StorageLike;
  /** The key the token is kept under. */
  readonly key: string;

  /**
   * Creates the source.
   *
   * @param options Storage and key.
   */
  constructor(options: StorageTokenSourceOptions = {}) {
    this.storage = options.storage ?? defaultStorage();
    this.key = options.key ?? "authToken";
  }

  /**
   * Reads the token.
   *
   * @returns The token, or `null` when none is stored (or it is empty).
   */
  getToken(): string | null {
    const token = this.storage.getItem(this.key);
    return token === "" ? null : token;
  }

  /**
   * Stores a token; `null`, `undefined` or `""` removes it.
   *
   * @param token The new token.
   */
  setToken(token: string | null | undefined): void {
    if (token === null || token === undefined || token === "") {
      this.storage.removeItem(this.key);
    } else {
      this.storage.setItem(this.key, token);
    }
  }

  /** Removes the token. */
  clear(): void {
    this.storage.removeItem(this.key);
  }
}

function defaultStorage(): StorageLike {
  const global = globalThis as { document?: unknown; localStorage?: unknown };
  // Only a page has a per-user localStorage; Deno and Node.js expose a
  // process-wide one (persisted on disk in Deno) that must not hold a
  // user's token.
  if (typeof global.document === "object" && global.document !== null) {
    try {
      const storage = global.localStorage as StorageLike | undefined;
      if (storage && typeof storage.getItem === "function") return storage;
    } catch {
      // A sandboxed frame throws on access: fall back to memory.
    }
  }
  return new MemoryStorage();
}
