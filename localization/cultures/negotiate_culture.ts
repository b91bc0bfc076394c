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
  const parts = header.slice(0, MAX_HEADER_LENGTH).split(",");
  for (let order = 0; order < parts.length && order < MAX_RANGES; order++) {
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

// Only so much of a header is read: a longer one is cut, and past that many
// ranges the rest is ignored.
const MAX_HEADER_LENGTH = 4096;
const MAX_RANGES = 64;

// The memo of negotiateCulture, keyed by what is read of the header (so a
// long header is not kept whole), bounded by entries and by the characters
// its keys and answers hold (two bytes each at most).
const memo = new Map<string, string>();
const MEMO_ENTRIES = 1000;
const MEMO_BYTES = 1024 * 1024;
let memoBytes = 0;

function sizeOf(key: string, value: string): number {
  return 2 * (key.length + value.length);
}

function remember(key: string, value: string): void {
  const size = sizeOf(key, value);
  if (size > MEMO_BYTES) return;
  while (
    memo.size > 0 &&
    (memo.size >= MEMO_ENTRIES || memoBytes + size > MEMO_BYTES)
  ) {
    const [oldKey, oldValue] = memo.entries().next().value!;
    memo.delete(oldKey);
    memoBytes -= sizeOf(oldKey, oldValue);
  }
  memo.set(key, value);
  memoBytes += size;
}

/**
 * Picks the culture to answer in from those on offer, for an
 * `Accept-Language` header. Quality values are honoured and malformed ranges
 * skipped; matching is "best fit" as users expect it (with
 * `@formatjs/intl-localematcher` and CLDR's language distances): `fr-CH` or
 * `fr` gets `fr-FR` when that is the French on offer, `de-AT` gets `de`,
 * `zh-TW` gets `zh-Hant`. When nothing fits, `fallback` is returned.
 *
 * Results are remembered for the last 1000 distinct headers, up to about
 * 1 MiB in all, so calling it on every request is cheap. Only the first 4096
 * characters of a header (and its first 64 ranges) are read, and only they
 * are remembered.
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
  // Keyed by what is read: the rest of a long header would only take room.
  const memoKey = `${available.join(",")}\u0000${fallback}\u0000${
    (acceptLanguage ?? "").slice(0, MAX_HEADER_LENGTH)
  }`;
  const known = memo.get(memoKey);
  if (known !== undefined) return known;
  assertCultureName(fallback);
  const result = pickCulture(parseAcceptLanguage(acceptLanguage), available) ??
    fallback;
  // A fresh copy of the key: the slice of the header may share the whole
  // header's memory in the engine (V8 and JavaScriptCore keep substrings as
  // views), which would keep it alive in the memo.
  remember(JSON.parse(JSON.stringify(memoKey)) as string, result);
  return result;
}
