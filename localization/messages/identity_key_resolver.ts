import type { LocalizationKeyResolver } from "./key_resolver.ts";

/**
 * The default {@linkcode LocalizationKeyResolver}: keys are looked up exactly
 * as given.
 *
 * @example Usage
 * ```ts
 * import { IdentityKeyResolver } from "@vendor/kit/localization";
 *
 * new IdentityKeyResolver().resolve("Home.Title"); // "Home.Title"
 * ```
 */
export class IdentityKeyResolver implements LocalizationKeyResolver {
  /**
   * Returns the key unchanged.
   *
   * @param key The requested key.
   * @returns `key`.
   *
   * @example Usage
   * ```ts
   * import { IdentityKeyResolver } from "@vendor/kit/localization";
   *
   * new IdentityKeyResolver().resolve("a.b"); // "a.b"
   * ```
   */
  resolve(key: string): string {
    return key;
  }
}
