import { loadLocaleMatcher } from "#localization/cultures/locale_matcher";
import { assertCultureName } from "./culture_name.ts";

// Picks from `available` for ranges already in order of preference; best fit
// with @formatjs/intl-localematcher (in Node.js and Bun loaded at the first
// call that gets as far as matching). `undefined` when nothing fits.
export function pickCulture(
  requested: readonly string[],
  available: readonly string[],
): string | undefined {
  const byCanonical = new Map<string, string>();
  for (const culture of available) {
    assertCultureName(culture);
    byCanonical.set(Intl.getCanonicalLocales(culture)[0], culture);
  }
  const canonical: string[] = [];
  for (const range of requested) {
    try {
      canonical.push(...Intl.getCanonicalLocales(range));
    } catch {
      // Not a tag Intl knows: skipped like any malformed range.
    }
  }
  if (canonical.length === 0 || byCanonical.size === 0) return undefined;
  // "zxx" (no linguistic content) marks "nothing fits": the matcher needs a
  // valid tag as its default.
  const none = "zxx";
  const { match } = loadLocaleMatcher();
  let found: string;
  try {
    found = match(canonical, [...byCanonical.keys()], none, {
      algorithm: "best fit",
    });
  } catch {
    return undefined;
  }
  return found === none ? undefined : byCanonical.get(found);
}
