import { markKitError, markSettingError } from "../internal/error_marks.ts";

/**
 * A setting of `RemoteStoreCacheProvider` that cannot be used: a
 * `cache:redis:*` key read by `fromConfiguration` that is not a number or a
 * switch (`cache:redis:port must be a number: abc`), a sentinel name without
 * its nodes (or the reverse), or a constructor option out of range
 * (`RemoteStoreCacheProvider port must be an integer from 1 to 65535:
 * 70000`). A value is shown with its secrets masked and its length bounded.
 *
 * It is a `RangeError`, as these errors always were, so code that catches
 * one keeps working; and it is a Kit error (`code` `cache_setting`) and a
 * `SettingError` of `@vendor/kit/core` (its `key` and `source`) all the
 * same. It is not a `CacheError`: those are reported by a working cache,
 * this one is thrown before there is one.
 *
 * @example Usage
 * ```ts
 * import { CacheSettingError, RemoteStoreCacheProvider } from "@vendor/kit/caching";
 *
 * try {
 *   RemoteStoreCacheProvider.fromConfiguration({
 *     hasValue: (key) => key === "cache:redis:port",
 *     getValue: <T>() => "abc" as T,
 *   });
 * } catch (error) {
 *   if (error instanceof CacheSettingError) {
 *     console.log(error.key); // "cache:redis:port"
 *     console.log(error instanceof RangeError); // true
 *   }
 * }
 * ```
 */
export class CacheSettingError extends RangeError {
  /** What went wrong, as a stable string: `cache_setting`. */
  readonly code = "cache_setting";
  /**
   * The setting at fault (`cache:redis:port`); `undefined` for a
   * constructor option that no configuration key sets (`commandTimeout`).
   */
  readonly key: string | undefined;
  /**
   * Where its value came from: a variable's name (`REDIS_PORT`), a file
   * (`appsettings.json`), or "the configuration"; `undefined` when the
   * setting is missing or the value was passed in code.
   */
  readonly source: string | undefined;

  /**
   * Creates the error.
   *
   * @param key The setting at fault, if a configuration key names it.
   * @param message The whole message.
   * @param source Where the value came from, when it came from the
   * configuration.
   */
  constructor(key: string | undefined, message: string, source?: string) {
    super(message);
    this.name = "CacheSettingError";
    this.key = key;
    this.source = source;
  }
}

// It keeps the RangeError base these errors always had; the marks make it a
// KitError and a SettingError all the same.
markKitError(CacheSettingError);
markSettingError(CacheSettingError);
