// How RemoteStoreCacheProvider names things in Redis: a cache key under the
// key prefix (with `hashTag`, its area name as a hash tag so that an area
// stays in one cluster slot), the lock key of a cache key, the key of a tag,
// the key a probe of a cluster slot asks about, and the SCAN patterns that
// find the keys under a prefix.
import { lockKey } from "./_redis_lock.ts";
import { keySlot, slotTag } from "./_redis_slots.ts";
import { encodeTag, tagKeyPrefix } from "./_redis_tags.ts";

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

/** The Redis names of one provider's keys. */
export class RedisKeys {
  /** Prepended to every key. */
  readonly prefix: string;
  /** Where the times of the tags' invalidations are kept. */
  readonly tagPrefix: string;
  readonly #hashTag: boolean;

  constructor(prefix: string, hashTag: boolean) {
    this.prefix = prefix;
    this.tagPrefix = tagKeyPrefix(prefix);
    this.#hashTag = hashTag;
  }

  /**
   * The Redis key of a cache key: under the prefix and, with `hashTag`, the
   * area name (the text before the first `:`) as a hash tag.
   */
  full(key: string): string {
    if (!this.#hashTag) return this.prefix + key;
    const colon = key.indexOf(":");
    return colon <= 0
      ? this.prefix + key
      : `${this.prefix}{${key.slice(0, colon)}}${key.slice(colon)}`;
  }

  /**
   * The lock key of a cache key. On a cluster it carries a hash tag of the
   * entry's slot, so that one script can read the entry and take the lock.
   */
  lock(key: string, fullKey: string, cluster: boolean): string {
    if (!cluster) return lockKey(this.prefix, key);
    return lockKey(this.prefix, `{${slotTag(keySlot(fullKey))}}${key}`);
  }

  /** The key holding the time of a tag's last invalidation. */
  tag(tag: string): string {
    return this.tagPrefix + encodeTag(tag);
  }

  /**
   * A key of cluster slot `slot` (unless the prefix carries a hash tag of
   * its own) under the prefix, never written: a probe asks `EXISTS` about
   * it, which an ACL limited to the prefix allows. Marked with a NUL
   * character, so that it is no cache key.
   */
  probe(slot: number): string {
    return `${this.prefix}\u0000probe:{${slotTag(slot)}}`;
  }

  /** The SCAN patterns of the keys under `keyPrefix + prefix`. */
  clearPatterns(prefix: string): string[] {
    if (!this.#hashTag || prefix === "") {
      return [escapeGlob(this.full(prefix)) + "*"];
    }
    if (prefix.includes(":")) return [escapeGlob(this.full(prefix)) + "*"];
    // Without ":" the prefix may start a root key or an area's name.
    return [
      escapeGlob(this.prefix + prefix) + "*",
      escapeGlob(this.prefix + "{" + prefix) + "*",
    ];
  }
}
