// Deno flavour of the locale matcher loader (the npm build uses
// _locale_matcher_node.ts for Node.js and Bun and _locale_matcher_browser.ts
// for browsers): the matcher is imported with the module.
import * as matcher from "@formatjs/intl-localematcher";

/** Returns `@formatjs/intl-localematcher`. */
export function loadLocaleMatcher(): typeof matcher {
  return matcher;
}
