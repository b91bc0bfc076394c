// The store's lock behind getOrSet's `lock` option: `SET <lock key> <token>
// NX PX <ttl>` takes it (one round trip) and it expires by itself, so an
// owner that dies never blocks the others for longer than the ttl. Only its
// owner removes it, with a compare-and-delete script: an owner whose lock
// already expired (and was taken by another) must not remove the new one.

import type { StoreConnectionState } from "../outages/_store_connection_state.ts";
import type { CacheLockAttempt } from "../cache_provider.ts";

/** Removes KEYS[1] only while it still holds ARGV[1] (the owner's token). */
const RELEASE_SCRIPT =
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

/**
 * GET KEYS[1]; when absent, takes the lock KEYS[2] (token ARGV[2], expiry
 * ARGV[3] ms) in the same round trip. Answers `{false, 1}` (absent, lock
 * taken), `{false, 0}` (absent, lock held by another), `{entry, 2, time…}`
 * with the times of a tagged entry's tags (keys ARGV[1] .. encoded tag; see
 * _redis_tags.ts), or the entry alone (a bulk string, as a GET answers).
 * An empty ARGV[1] skips the tags (on a cluster, where the tag keys live in
 * other slots than KEYS and a script may only touch its own slot's keys):
 * the entry then comes alone and its tags are read apart.
 */
export const READ_OR_LOCK_SCRIPT = `
local v = redis.call("GET", KEYS[1])
if not v then
  if redis.call("SET", KEYS[2], ARGV[2], "NX", "PX", ARGV[3]) then
    return {false, 1}
  end
  return {false, 0}
end
if ARGV[1] ~= "" and string.sub(v, 1, 9) == '{"tags":[' then
  local list = string.match(v, '^{"tags":%[(.-)%]')
  local keys = {}
  for t in string.gmatch(list or "", '"([^"]*)"') do
    keys[#keys + 1] = ARGV[1] .. t
  end
  if #keys > 0 then return {v, 2, unpack(redis.call("MGET", unpack(keys)))} end
end
return v`;

/** A lock this owner took: `release` gives it back while it is still its. */
export function acquiredLock(
  link: StoreConnectionState,
  lockFullKey: string,
  token: string,
): CacheLockAttempt {
  return {
    acquired: true,
    release: async () => {
      await link.send(
        ["EVAL", RELEASE_SCRIPT, "1", lockFullKey, token],
        lockFullKey,
        undefined,
      );
    },
  };
}
