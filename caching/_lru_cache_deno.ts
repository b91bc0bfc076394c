// Deno flavour of the lru-cache loader (the npm build uses _lru_cache_node.ts
// for Node.js and Bun, _lru_cache_browser.ts for browsers): lru-cache is
// imported with the module; Deno resolves it once, from its own cache.
import { LRUCache } from "lru-cache";

/** Returns lru-cache's `LRUCache` class. */
export function loadLruCache(): typeof LRUCache {
  return LRUCache;
}
