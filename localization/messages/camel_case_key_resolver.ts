import { toCamelCase } from "../../core/mod.ts";
import type { LocalizationKeyResolver } from "./key_resolver.ts";

const MEMO_LIMIT = 10_000;

/**
 * A {@linkcode LocalizationKeyResolver} that turns each dotted segment of a
 * key into camelCase: `Home.Page-Title` → `home.pageTitle`,
 * `CHECKOUT.TOTAL_PRICE` → `checkout.totalPrice`. Results are memoized (up to
 * 10 000 keys), so the conversion costs once per key, not once per call.
 *
 * @example Usage
 * ```ts
 * import { CamelCaseKeyResolver } from "@vendor/kit/localization";
 *
 * new CamelCaseKeyResolver().resolve("Home.Page-Title"); // "home.pageTitle"
 * ```
 */
export class CamelCaseKeyResolver implements LocalizationKeyResolver {
  readonly #memo = new Map<string, string>();

  /**
   * Converts every dotted segment of `key` to camelCase.
   *
   * @param key The requested key.
   * @returns The camelCase key.
   *
   * @example Usage
   * ```ts
   * import { CamelCaseKeyResolver } from "@vendor/kit/localization";
   *
   * new CamelCaseKeyResolver().resolve("user_profile.First Name"); // "userProfile.firstName"
   * ```
   */
  resolve(key: string): string {
    let resolved = this.#memo.get(key);
    if (resolved === undefined) {
      resolved = key.split(".").map(toCamelCase).join(".");
      if (this.#memo.size >= MEMO_LIMIT) this.#memo.clear();
      this.#memo.set(key, resolved);
    }
    return resolved;
  }
}
