// The locale matcher loader of Deno and browsers (#localization/cultures/locale_matcher;
// Node.js and Bun load it on first use instead, see scripts/_variants.ts): the
// matcher is imported with the module, which a browser bundler includes either
// way.
import * as matcher from "@formatjs/intl-localematcher";

/** Returns `@formatjs/intl-localematcher`. */
export function loadLocaleMatcher(): typeof matcher {
  return matcher;
}
