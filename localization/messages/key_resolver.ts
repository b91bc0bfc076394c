/**
 * Maps the key given to `translate` to the key of the translation resources
 * (the key naming convention, set with
 * {@linkcode LocalizationManager.prototype.setKeyResolver}).
 *
 * @example Usage
 * ```ts
 * import type { LocalizationKeyResolver } from "@vendor/kit/localization";
 *
 * const lowerCase: LocalizationKeyResolver = { resolve: (key) => key.toLowerCase() };
 * ```
 */
export interface LocalizationKeyResolver {
  /**
   * Maps a requested key to a resource key.
   *
   * @param key The key given to `translate`.
   * @returns The key to look up.
   */
  resolve(key: string): string;
}
