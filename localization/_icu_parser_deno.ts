// Deno flavour of the ICU MessageFormat parser loader (the npm build uses
// _icu_parser_node.ts for Node.js and Bun and _icu_parser_browser.ts for
// browsers): the parser is imported with the module.
import * as parser from "@formatjs/icu-messageformat-parser";

/** Returns `@formatjs/icu-messageformat-parser`. */
export function loadIcuParser(): typeof parser {
  return parser;
}
