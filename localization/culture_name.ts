import { InvalidCultureError } from "./invalid_culture_error.ts";

// language (2-3 letters), optional script (4 letters), optional region
// (2 letters or 3 digits), then variants (5-8 alphanumerics, or a digit and 3
// alphanumerics). Only letters, digits and "-" can ever match, which is what
// keeps culture names safe to put into a URL or a file path.
const CULTURE_PATTERN =
  /^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|\d{3}))?(?:-(?:[A-Za-z\d]{5,8}|\d[A-Za-z\d]{3}))*$/;

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
  return typeof value === "string" && value.length <= 64 &&
    CULTURE_PATTERN.test(value);
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
