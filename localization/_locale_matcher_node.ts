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
import type * as Matcher from "@formatjs/intl-localematcher";

declare const __filename: string | undefined;

let matcher: typeof Matcher | undefined;

/** Returns `@formatjs/intl-localematcher`, loading it on the first call. */
export function loadLocaleMatcher(): typeof Matcher {
  if (matcher === undefined) {
    const meta = import.meta as Partial<ImportMeta>;
    matcher = (typeof meta.resolve === "function"
      ? createRequire(meta.url!)(fileURLToPath(meta.resolve(NAME)))
      : createRequire(__filename!)(NAME)) as typeof Matcher;
  }
  return matcher;
}

const NAME = "@formatjs/intl-localematcher";
