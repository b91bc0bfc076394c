// Node.js and Bun flavour of the LogTape loader (chosen by
// scripts/build_npm.ts in place of _logtape_deno.ts): LogTape is loaded on
// the first call, synchronously, when the first console or file provider
// builds its sink or formatter, so a process that logs elsewhere (or not at
// all) never loads it (about 19 ms of a cold start in Node.js 20).
//
// The ES bundle loads LogTape's ES module file, resolved as an `import`
// would resolve it, through require(esm) (Node.js 20.19 and later, Bun):
// the same instance as the application's own `import "@logtape/logtape"`.
// The CommonJS bundle (where esbuild leaves `import.meta` empty) loads what
// `require` gives. Either way the name resolves from this package's own
// folder, where its package manager put its dependency.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DependencyLoadError } from "../core/mod.ts";
import type * as LogTape from "@logtape/logtape";

declare const __filename: string | undefined;

let logtape: typeof LogTape | undefined;

/** Returns `@logtape/logtape`, loading it on the first call. */
export function loadLogTape(): typeof LogTape {
  if (logtape === undefined) {
    logtape = requireDependency() as typeof LogTape;
  }
  return logtape;
}

const NAME = "@logtape/logtape";
const PACKAGE = "@vendor/kit-platform-logging";

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
