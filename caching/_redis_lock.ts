// The store's lock behind getOrSet's `lock` option: `SET <lock key> <token>
// NX PX <ttl>` takes it (one round trip) and it expires by itself, so an
// owner that dies never blocks the others for longer than the ttl. Only its
// owner removes it, with a compare-and-delete script: an owner whose lock
// already expired (and was taken by another) must not remove the new one.

/** Removes KEYS[1] only while it still holds ARGV[1] (the owner's token). */
export const RELEASE_SCRIPT =
  'if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end';

/**
 * The lock key of a cache key: under the provider's key prefix (so that
 * ACLs on the prefix cover it), marked with a NUL character, which cache
 * keys do not contain in practice, so that no cache key is a lock key.
 */
export function lockKey(prefix: string, key: string): string {
  return `${prefix}\u0000lock:${key}`;
}

/** A token no other owner has: a random UUID. */
export function lockToken(): string {
  return crypto.randomUUID();
}
