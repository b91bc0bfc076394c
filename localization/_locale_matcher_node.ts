// Node.js and Bun flavour of the locale matcher loader (chosen by
// scripts/build_npm.ts in place of _locale_matcher_deno.ts): the matcher is
// loaded at the first culture negotiation, synchronously, so an application
// that never negotiates never loads it. As core's OpenTelemetry API loader:
// the ES bundle loads the ES module file an `import` would resolve, through
// require(esm) (Node.js 20.19 and later, Bun), the CommonJS bundle (where
// esbuild leaves `import.meta` empty) what `require` gives; either way the name
// resolves from this package's own folder.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DependencyLoadError } from "../core/mod.ts";
import type * as Matcher from "@formatjs/intl-localematcher";

declare const __filename: string | undefined;

let matcher: typeof Matcher | undefined;

/** Returns `@formatjs/intl-localematcher`, loading it on the first call. */
export function loadLocaleMatcher(): typeof Matcher {
  if (matcher === undefined) {
    matcher = requireDependency() as typeof Matcher;
  }
  return matcher;
}

const NAME = "@formatjs/intl-localematcher";
const PACKAGE = "@vendor/kit-platform-localization";

// Loads NAME from this package's folder (see the first comment); a failure
// (not installed, or left out of a bundle) names both packages and the fix.
function requireDependency(): unknown {
  const meta = import.meta as Partial<ImportMeta>;
  try {
    if (typeof meta.resolve === "function") {
      return createRequire(meta.url!)(fileURLToPath(meta.resolve(NAME)));
    }
    if (typeof __filename === "string") return createRequire(__filename)(NAME);
    throw new Error(
      "this module host has neither import.meta.resolve nor __filename",
    );
  } catch (error) {
    throw new DependencyLoadError(NAME, PACKAGE, error);
  }
}
