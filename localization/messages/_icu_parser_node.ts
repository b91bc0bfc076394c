// Node.js and Bun flavour of the ICU MessageFormat parser loader (chosen by
// scripts/_variants.ts in place of _icu_parser_deno.ts): the parser is loaded
// when the first ICU message is parsed, synchronously, so an application whose
// texts hold no ICU syntax never loads it.
//
// requireDependency (core) resolves it from this package's own folder, the
// same instance as the application's own import.
import { requireDependency } from "../../internal/require_dependency.ts";
import type * as Parser from "@formatjs/icu-messageformat-parser";

declare const __filename: string | undefined;

let parser: typeof Parser | undefined;

/** Returns `@formatjs/icu-messageformat-parser`, loading it on the first call. */
export function loadIcuParser(): typeof Parser {
  if (parser === undefined) {
    parser = requireDependency(
      "@formatjs/icu-messageformat-parser",
      "@vendor/kit-platform-localization",
      import.meta,
      typeof __filename === "string" ? __filename : undefined,
    ) as typeof Parser;
  }
  return parser;
}
