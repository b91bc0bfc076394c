import { CacheError } from "./cache_error.ts";

/**
 * Reported (never thrown) when the store is reachable but refuses a command
 * (an error reply such as `OOM` or `WRONGTYPE`), or when a custom provider
 * throws. The message is exactly `Cache store command failed: <command>`,
 * followed by ` <key>` when a key is concerned.
 *
 * @example Usage
 * ```ts
 * import { CacheStoreError } from "@vendor/kit/caching";
 *
 * const error = new CacheStoreError("SET", "users:1");
 * console.log(error.message); // "Cache store command failed: SET users:1"
 * ```
 */
export class CacheStoreError extends CacheError {
  /** What went wrong, as a stable string: `cache_store`. */
  override readonly code = "cache_store";

  /** The command or provider method that failed (`GET`, `SET`, `get`…). */
  readonly command: string;

  /**
   * Creates the error.
   *
   * @param command The command or provider method that failed.
   * @param key The key concerned, if any.
   * @param cause The underlying error.
   */
  constructor(command: string, key?: string, cause?: unknown) {
    super(
      `Cache store command failed: ${command}${
        key === undefined ? "" : ` ${key}`
      }`,
      { key, cause },
    );
    this.name = "CacheStoreError";
    this.command = command;
  }
}
