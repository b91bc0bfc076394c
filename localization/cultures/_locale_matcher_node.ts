// Node.js and Bun flavour of the locale matcher loader (chosen by
// scripts/_variants.ts in place of _locale_matcher_deno.ts): the matcher is
// loaded at the first culture negotiation, synchronously, so an application
// that never negotiates never loads it.
//
// requireDependency (core) resolves it from this package's own folder, the
// same instance as the application's own import.
import { requireDependency } from "../../internal/require_dependency.ts";
import type * as Matcher from "@formatjs/intl-localematcher";

declare const __filename: string | undefined;

let matcher: typeof Matcher | undefined;

/** Returns `@formatjs/intl-localematcher`, loading it on the first call. */
export function loadLocaleMatcher(): typeof Matcher {
  if (matcher === undefined) {
    matcher = requireDependency(
      "@formatjs/intl-localematcher",
      "@vendor/kit-platform-localization",
      import.meta,
      typeof __filename === "string" ? __filename : undefined,
    ) as typeof Matcher;
  }
  return matcher;
}
