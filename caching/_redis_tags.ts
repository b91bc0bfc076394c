// Tags in Redis: one key per tag, holding the time of its last
// invalidation. Invalidating is one command whatever the number of entries;
// a tagged entry read back is compared with the times of its tags (one MGET).

/**
 * The key of a tag: under the provider's key prefix, marked with a NUL
 * character, the tag percent-encoded by UTF-16 unit (every character but
 * letters, digits and `_.~-`), so that no tag can read as another tag, a
 * lock key, or a glob pattern.
 */
export function tagKey(prefix: string, tag: string): string {
  return `${prefix}\u0000tag:${
    tag.replace(
      /[^A-Za-z0-9_.~-]/g,
      (c) => `%${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    )
  }`;
}

/**
 * Sets each of KEYS to ARGV[1] (the invalidation time) unless it holds a
 * later one already, expiring after ARGV[2] milliseconds.
 */
export const INVALIDATE_SCRIPT = `
for _, key in ipairs(KEYS) do
  local current = tonumber(redis.call("GET", key))
  if current == nil or current < tonumber(ARGV[1]) then
    redis.call("SET", key, ARGV[1], "PX", ARGV[2])
  else
    redis.call("PEXPIRE", key, ARGV[2])
  end
end
return #KEYS`;

/** Whether a time read back from a tag key is at or after `storedAt`. */
export function invalidatedSince(times: unknown, storedAt: number): boolean {
  if (!Array.isArray(times)) return false;
  for (const time of times) {
    if (time !== null && time !== undefined && Number(time) >= storedAt) {
      return true;
    }
  }
  return false;
}
