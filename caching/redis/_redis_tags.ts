// Tags in Redis: one key per tag, holding the time of its last
// invalidation. Invalidating is one command whatever the number of entries;
// a tagged entry read back is compared with the times of its tags.
//
// A tagged entry is stored with its tags first and already encoded
// (`{"tags":["…"],…}`), so that a script can find its tag keys without
// decoding the value: READ_SCRIPT answers the entry and its tags' times in
// one round trip.

/**
 * Percent-encodes a tag by UTF-16 unit (`%xxxx` for every character but
 * letters, digits and `_.~-`): injective, never throws, and the result holds
 * no quote, bracket, glob character or NUL.
 */
export function encodeTag(tag: string): string {
  return tag.replace(
    /[^A-Za-z0-9_.~-]/g,
    (c) => `%${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The inverse of encodeTag. */
export function decodeTag(encoded: string): string {
  return encoded.replace(
    /%([0-9a-f]{4})/g,
    (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
  );
}

/**
 * The prefix of tag keys: under the provider's key prefix, marked with a
 * NUL character, so that no tag key is a lock key; followed by the encoded
 * tag.
 */
export function tagKeyPrefix(prefix: string): string {
  return `${prefix}\u0000tag:`;
}

/**
 * GET KEYS[1]; for a tagged entry, also the times of its tags (keys
 * ARGV[1] .. encoded tag), as `{entry, time…}`. The tags are found by a
 * pattern on the stored text, not by decoding it.
 */
export const READ_SCRIPT = `
local v = redis.call("GET", KEYS[1])
if v and string.sub(v, 1, 9) == '{"tags":[' then
  local list = string.match(v, '^{"tags":%[(.-)%]')
  local keys = {}
  for t in string.gmatch(list or "", '"([^"]*)"') do
    keys[#keys + 1] = ARGV[1] .. t
  end
  if #keys > 0 then return {v, unpack(redis.call("MGET", unpack(keys)))} end
end
return v`;

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
export function invalidatedSince(
  times: readonly unknown[],
  storedAt: number,
): boolean {
  for (const time of times) {
    if (time !== null && time !== undefined && Number(time) >= storedAt) {
      return true;
    }
  }
  return false;
}
