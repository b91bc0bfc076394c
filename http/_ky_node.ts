// Node.js and Bun flavour of the ky loader (chosen by scripts/build_npm.ts in
// place of _ky_deno.ts): ky is loaded when the first HttpClient is made,
// synchronously, because loading it builds a `Request`, which makes Node.js
// load undici (about 38 ms of a cold start in Node.js 20).
//
// The ES bundle loads ky's ES module file, resolved as an `import` would
// resolve it, through require(esm) (Node.js 20.19 and later, Bun): the same
// instance as the application's own `import "ky"`. The CommonJS bundle
// (where esbuild leaves `import.meta` empty) loads what `require` gives.
// Either way the name resolves from this package's own folder, where its
// package manager put its dependency.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DependencyLoadError } from "../core/mod.ts";
import type * as Ky from "ky";

declare const __filename: string | undefined;

let ky: typeof Ky.default | undefined;

/** Returns ky's default export, loading ky on the first call. */
export function loadKy(): typeof Ky.default {
  if (ky === undefined) {
    const module = requireDependency() as typeof Ky;
    ky = module.default;
  }
  return ky;
}

const NAME = "ky";
const PACKAGE = "@vendor/kit-platform-http";

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
