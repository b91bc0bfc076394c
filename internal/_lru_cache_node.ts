// Node.js and Bun flavour of the lru-cache loader (chosen by
// scripts/_variants.ts in place of _lru_cache_deno.ts): lru-cache is loaded
// when the first cache is made, synchronously, so an import of the package
// that never makes a cache does not pay for it (figure in
// BENCHMARKS.md, "Cold import in Node").
//
// requireDependency (core) resolves it from the folder of the package this
// file is bundled into, the same instance as the application's own import;
// the caller names that package for the error a failed load gives.
import { requireDependency } from "./require_dependency.ts";
import type * as LruCache from "lru-cache";

declare const __filename: string | undefined;

let lruCache: typeof LruCache.LRUCache | undefined;

/**
 * Returns lru-cache's `LRUCache` class, loading lru-cache on the first call.
 *
 * @param packageName The Kit package that loads it, named by the error.
 */
export function loadLruCache(packageName: string): typeof LruCache.LRUCache {
  if (lruCache === undefined) {
    const module = requireDependency(
      "lru-cache",
      packageName,
      import.meta,
      typeof __filename === "string" ? __filename : undefined,
    ) as typeof LruCache;
    lruCache = module.LRUCache;
  }
  return lruCache;
}
