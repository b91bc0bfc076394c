import { pickCulture } from "./_pick_culture.ts";
import { assertCultureName } from "./culture_name.ts";

// language-range = (1*8ALPHA *("-" 1*8alphanum)) / "*"  (RFC 4647)
const RANGE = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z\d]{1,8})*)$/;
const QUALITY = /^[qQ]\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The language ranges of an `Accept-Language` header, best first: quality
 * values (`;q=0.8`) honoured, ranges with `q=0` and malformed ones skipped,
 * `*` dropped, equal qualities kept in the order written.
 *
 * @param header The header value (`"fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5"`).
 * @returns The ranges, best first (`["fr-CH", "fr", "en"]`).
 *
 * @example Usage
 * ```ts
 * import { parseAcceptLanguage } from "@vendor/kit/localization";
 *
 * parseAcceptLanguage("en;q=0.5, fr-CH, de;q=oops"); // ["fr-CH", "en"]
 * ```
 */
export function parseAcceptLanguage(
  header: string | null | undefined,
): string[] {
  if (typeof header !== "string" || header === "") return [];
  const ranges: Array<{ range: string; q: number; order: number }> = [];
  const parts = header.slice(0, 4096).split(",");
  for (let order = 0; order < parts.length && order < 64; order++) {
    const [range, ...params] = parts[order].split(";").map((p) => p.trim());
    if (!RANGE.test(range) || range === "*") continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const quality = QUALITY.exec(param);
      if (quality === null) {
        valid = false;
        break;
      }
      q = Number(quality[1]);
    }
    if (!valid || q === 0) continue;
    ranges.push({ range, q, order });
  }
  ranges.sort((a, b) => b.q - a.q || a.order - b.order);
  return ranges.map((entry) => entry.range);
}

const memo = new Map<string, string>();
const MEMO_LIMIT = 1000;

/**
 * Picks the culture to answer in from those on offer, for an
 * `Accept-Language` header. Quality values are honoured and malformed ranges
 * skipped; matching is "best fit" as users expect it (with
 * `@formatjs/intl-localematcher` and CLDR's language distances): `fr-CH` or
 * `fr` gets `fr-FR` when that is the French on offer, `de-AT` gets `de`,
 * `zh-TW` gets `zh-Hant`. When nothing fits, `fallback` is returned.
 *
 * Results are remembered (for the last 1000 distinct headers), so calling
 * it on every request is cheap.
 *
 * @param acceptLanguage The header value, or `null`/`undefined` when absent.
 * @param available The cultures on offer, as they are named in the
 * resources (`"fr-FR"`).
 * @param fallback What to answer when nothing fits (usually one of
 * `available`).
 * @returns One of `available` (as written there), or `fallback`.
 * @throws {InvalidCultureError} When a culture of `available` or `fallback`
 * is not a BCP 47 tag.
 *
 * @example Usage
 * ```ts
 * import { negotiateCulture } from "@vendor/kit/localization";
 *
 * negotiateCulture("fr-CH, en;q=0.5", ["en-US", "fr-FR"], "en-US"); // "fr-FR"
 * negotiateCulture("ja", ["en-US", "fr-FR"], "en-US"); // "en-US"
 * negotiateCulture(null, ["en-US", "fr-FR"], "en-US"); // "en-US"
 * ```
 */
export function negotiateCulture(
  acceptLanguage: string | null | undefined,
  available: readonly string[],
  fallback: string,
): string {
  const memoKey = `${available.join(",")}\u0000${fallback}\u0000${
    acceptLanguage ?? ""
  }`;
  const known = memo.get(memoKey);
  if (known !== undefined) return known;
  assertCultureName(fallback);
  const result = pickCulture(parseAcceptLanguage(acceptLanguage), available) ??
    fallback;
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!);
  memo.set(memoKey, result);
  return result;
}
