// The ICU MessageFormat parser loader of Deno and browsers
// (#localization/messages/icu_parser; Node.js and Bun load it on first use instead, see
// scripts/_variants.ts): the parser is imported with the module, which a
// browser bundler includes either way.
import * as parser from "@formatjs/icu-messageformat-parser";

/** Returns `@formatjs/icu-messageformat-parser`. */
export function loadIcuParser(): typeof parser {
  return parser;
}
