/**
 * The read side of a configuration, as the other Kit packages consume it
 * (`LoggerManager.fromConfiguration`, the Redis cache provider, …).
 * {@linkcode ConfigurationManager} implements it; a test or an application
 * may pass any object of this shape.
 *
 * Keys are colon paths (`database:connectionString`), matched
 * case-insensitively per segment.
 *
 * @example Usage
 * ```ts
 * import type { IConfiguration } from "@vendor/kit/config";
 *
 * function redisHost(config: IConfiguration): string {
 *   return config.getValue<string>("cache:redis:host", "localhost");
 * }
 * ```
 */
export interface IConfiguration {
  /**
   * Tells whether a key has a value.
   *
   * @param key A colon path.
   * @returns `true` when some source supplies the key (or a subtree below it).
   */
  hasValue(key: string): boolean;
  /**
   * Reads a value.
   *
   * @typeParam T The expected type.
   * @param key A colon path.
   * @param defaultValue Returned when the key is missing.
   * @returns The value (a subtree as a plain object or array), or the default.
   * @throws {Error} `Configuration value not found: <key>` when missing and no
   * default was given.
   */
  getValue<T = unknown>(key: string, defaultValue?: T): T;
}
