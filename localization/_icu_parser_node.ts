// Node.js and Bun flavour of the ICU MessageFormat parser loader (chosen by
// scripts/build_npm.ts in place of _icu_parser_deno.ts): the parser is loaded
// when the first ICU message is parsed, synchronously, so an application whose
// texts hold no ICU syntax never loads it. As core's OpenTelemetry API loader:
// the ES bundle loads the ES module file an `import` would resolve, through
// require(esm) (Node.js 20.19 and later, Bun), the CommonJS bundle (where
// esbuild leaves `import.meta` empty) what `require` gives; either way the name
// resolves from this package's own folder.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as Parser from "@formatjs/icu-messageformat-parser";

declare const __filename: string | undefined;

let parser: typeof Parser | undefined;

/** Returns `@formatjs/icu-messageformat-parser`, loading it on the first call. */
export function loadIcuParser(): typeof Parser {
  if (parser === undefined) {
    const meta = import.meta as Partial<ImportMeta>;
    parser = (typeof meta.resolve === "function"
      ? createRequire(meta.url!)(fileURLToPath(meta.resolve(NAME)))
      : createRequire(__filename!)(NAME)) as typeof Parser;
  }
  return parser;
}

const NAME = "@formatjs/icu-messageformat-parser";
