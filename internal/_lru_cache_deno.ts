// Deno flavour of the lru-cache loader (the npm build uses _lru_cache_node.ts
// for Node.js and Bun, _lru_cache_browser.ts for browsers): lru-cache is
// imported with the module; Deno resolves it once, from its own cache.
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
