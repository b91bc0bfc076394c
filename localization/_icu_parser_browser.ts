// Browser flavour of the ICU MessageFormat parser loader (chosen by
// scripts/build_npm.ts under the `browser` condition): the parser is imported
// with the module, as in Deno, since a browser bundler includes it in the
// bundle either way and has no synchronous loader.
import * as parser from "@formatjs/icu-messageformat-parser";

/** Returns `@formatjs/icu-messageformat-parser`. */
export function loadIcuParser(): typeof parser {
  return parser;
}
