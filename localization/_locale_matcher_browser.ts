// Browser flavour of the locale matcher loader (chosen by scripts/build_npm.ts
// under the `browser` condition): the matcher is imported with the module, as
// in Deno, since a browser bundler includes it in the bundle either way and
// has no synchronous loader.
import * as matcher from "@formatjs/intl-localematcher";

/** Returns `@formatjs/intl-localematcher`. */
export function loadLocaleMatcher(): typeof matcher {
  return matcher;
}
