// The lru-cache loader of Deno and browsers (#internal/lru_cache; Node.js and
// Bun load it on first use instead, see scripts/_variants.ts): lru-cache is
// imported with the module; Deno resolves it once, from its own cache, and a
// browser bundler includes it either way.
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
