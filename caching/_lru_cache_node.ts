// Node.js and Bun flavour of the lru-cache loader (chosen by
// scripts/build_npm.ts in place of _lru_cache_deno.ts): lru-cache is loaded
// when the first cache is made, synchronously (about 4 ms of a cold start in
// Node.js 20 otherwise, paid by every import of the package).
//
// The ES bundle loads lru-cache's ES module file, resolved as an `import`
// would resolve it, through require(esm) (Node.js 20.19 and later, Bun): the
// same instance as the application's own `import "lru-cache"`. The CommonJS
// bundle (where esbuild leaves `import.meta` empty) loads what `require`
// gives. Either way the name resolves from this package's own folder.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DependencyLoadError } from "../core/mod.ts";
import type * as LruCache from "lru-cache";

declare const __filename: string | undefined;

let lruCache: typeof LruCache.LRUCache | undefined;

/** Returns lru-cache's `LRUCache` class, loading lru-cache on the first call. */
export function loadLruCache(): typeof LruCache.LRUCache {
  if (lruCache === undefined) {
    const module = requireDependency() as typeof LruCache;
    lruCache = module.LRUCache;
  }
  return lruCache;
}

const NAME = "lru-cache";
const PACKAGE = "@vendor/kit-platform-caching";

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
