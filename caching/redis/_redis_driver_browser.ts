// Browser flavour of the node-redis loader (the npm build's `browser`
// condition uses it in place of _redis_driver_node.ts): a page cannot open a TCP
// connection to Redis, so connecting fails like an unreachable server (a
// miss, reported once through onError, never thrown to the caller) and
// node-redis never reaches the bundle.
import type * as Redis from "redis";

/** Always rejects: Redis is out of a browser's reach. */
export function loadRedisDriver(): Promise<typeof Redis> {
  return Promise.reject(
    new Error(
      "RemoteStoreCacheProvider needs a server runtime (Deno, Node.js or Bun); in a browser use MemoryCacheProvider",
    ),
  );
}
