// Browser flavour of the lru-cache loader (chosen by scripts/build_npm.ts
// under the `browser` condition, in place of the Node.js loader, which has no
// way to load anything in a browser): lru-cache is imported with the module,
// as in Deno; a web bundler includes it in the bundle either way.
import { LRUCache } from "lru-cache";

/**
 * Returns lru-cache's `LRUCache` class.
 *
 * @param _packageName The Kit package that loads it (the Node.js flavour
 * names it when the load fails).
 */
export function loadLruCache(_packageName: string): typeof LRUCache {
  return LRUCache;
}
