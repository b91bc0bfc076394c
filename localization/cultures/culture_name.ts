import { InvalidCultureError } from "./invalid_culture_error.ts";
import { matchesCultureTag } from "../../internal/culture_names.ts";

/**
 * Checks whether a value is a culture name the localization package accepts:
 * a BCP 47 language tag made of a 2-3 letter language, an optional script, an
 * optional region and optional variants (`en`, `fr-CA`, `zh-Hant-TW`,
 * `es-419`). Extensions and private-use subtags are not accepted.
 *
 * @param value The value to check.
 * @returns `true` when `value` is such a tag.
 *
 * @example Usage
 * ```ts
 * import { isCultureName } from "@vendor/kit/localization";
 *
 * isCultureName("fr-CA"); // true
 * isCultureName("../etc/passwd"); // false
 * ```
 */
export function isCultureName(value: unknown): value is string {
  // The one pattern, shared with the configuration's check of
  // localization:supportedCultures.
  return matchesCultureTag(value);
}

/**
 * Throws unless `value` is a culture name accepted by
 * {@linkcode isCultureName}.
 *
 * @param value The value to check.
 * @returns `value`, typed as a string.
 * @throws {InvalidCultureError} When `value` is not a BCP 47 tag.
 *
 * @example Usage
 * ```ts
 * import { assertCultureName } from "@vendor/kit/localization";
 *
 * assertCultureName("en-GB"); // "en-GB"
 * ```
 */
export function assertCultureName(value: unknown): string {
  if (!isCultureName(value)) throw new InvalidCultureError(value);
  return value;
}
