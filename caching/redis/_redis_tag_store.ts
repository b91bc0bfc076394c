// The tags of RemoteStoreCacheProvider: invalidating a tag records its time
// under a tag key (kept `tagRetention`), and a tagged entry read back is a
// miss when one of its tags was invalidated at or after it was stored. On
// one server the times are read with the entry by one script; on a cluster
// the tag keys live in other slots than the entry, so they are read apart.
import { TIMED_OUT } from "./_deadlines.ts";
import type { OutageJournal } from "../outages/_outage_journal.ts";
import type { RedisCommands } from "./_redis_link.ts";
import type { RedisKeys } from "./_redis_keys.ts";
import { keySlot } from "./_redis_slots.ts";
import {
  INVALIDATE_SCRIPT,
  invalidatedSince,
  READ_SCRIPT,
} from "./_redis_tags.ts";
import {
  type StoreConnectionState,
  UNANSWERED,
} from "../outages/_store_connection_state.ts";
import type { CacheEntry } from "../cache_provider.ts";

type MaybeEntry = CacheEntry | undefined;

/** The tag commands of one provider. */
export class RedisTagStore {
  readonly #link: StoreConnectionState;
  readonly #keys: RedisKeys;
  readonly #cluster: boolean;
  readonly #retention: number;
  readonly #journal: OutageJournal;

  constructor(
    link: StoreConnectionState,
    keys: RedisKeys,
    cluster: boolean,
    retention: number,
    journal: OutageJournal,
  ) {
    this.#link = link;
    this.#keys = keys;
    this.#cluster = cluster;
    this.#retention = retention;
    this.#journal = journal;
  }

  /**
   * A tagged entry is a miss when one of its tags was invalidated at or
   * after it was stored (one MGET of the tags' times); the times cannot be
   * read, it is a miss too. An invalidation of this instance's that is
   * still waiting to be re-sent (its tag's slots just answered again, or
   * not yet) counts as recorded.
   */
  check(entry: MaybeEntry): MaybeEntry | Promise<MaybeEntry> {
    if (entry === undefined || entry.tags === undefined) return entry;
    if (entry.tags.length === 0) return entry;
    if (this.#pendingInvalidation(entry)) return undefined;
    const keys = entry.tags.map((tag) => this.#keys.tag(tag));
    const link = this.#link;
    // On a cluster each tag key is in its own slot: one GET each, at once.
    const times = this.#cluster
      ? Promise.all(
        keys.map((key) => link.send(["GET", key], key, UNANSWERED)),
      ).then((replies) => replies.includes(UNANSWERED) ? UNANSWERED : replies)
      : link.send(["MGET", ...keys], undefined, UNANSWERED);
    return times.then(
      (times) =>
        !Array.isArray(times) || invalidatedSince(times, entry.storedAt)
          ? undefined
          : entry,
    );
  }

  /**
   * Reads an entry and its tags' times with one script (one server only):
   * a miss when a tag was invalidated since the entry was stored.
   */
  readTagged(
    client: RedisCommands,
    fullKey: string,
    decode: (fullKey: string, reply: unknown) => MaybeEntry,
  ): Promise<MaybeEntry> {
    const link = this.#link;
    const command = ["EVAL", READ_SCRIPT, "1", fullKey, this.#keys.tagPrefix];
    return link.race(client.send(command, fullKey)).then(
      (reply) => {
        if (reply === TIMED_OUT) return link.timedOut("EVAL", undefined);
        if (!Array.isArray(reply)) return decode(fullKey, reply);
        const entry = decode(fullKey, reply[0]);
        return entry !== undefined &&
            (invalidatedSince(reply.slice(1), entry.storedAt) ||
              this.#pendingInvalidation(entry))
          ? undefined
          : entry;
      },
      (error) => link.failed("EVAL", fullKey, error, undefined),
    );
  }

  /** One of the entry's tags has an invalidation waiting to be re-sent. */
  #pendingInvalidation(entry: CacheEntry): boolean {
    return this.#journal.size > 0 && entry.tags !== undefined &&
      invalidatedSince(
        entry.tags.map((tag) => this.#journal.tagTime(tag)),
        entry.storedAt,
      );
  }

  /**
   * Sets each tag's time to `at` (keeping a later one): one script, or on a
   * cluster one per slot (in parallel: still one round trip).
   *
   * @returns The tags the store did not take (on a cluster, those of slots
   * that did not answer); empty when all were recorded.
   */
  async invalidate(tags: readonly string[], at: number): Promise<string[]> {
    const groups = new Map<number, { keys: string[]; tags: string[] }>();
    for (const tag of tags) {
      const key = this.#keys.tag(tag);
      const slot = this.#cluster ? keySlot(key) : 0;
      const group = groups.get(slot);
      if (group === undefined) groups.set(slot, { keys: [key], tags: [tag] });
      else {
        group.keys.push(key);
        group.tags.push(tag);
      }
    }
    const unanswered = await Promise.all(
      [...groups.values()].map(async ({ keys, tags }) => {
        const reply = await this.#link.send(
          [
            "EVAL",
            INVALIDATE_SCRIPT,
            String(keys.length),
            ...keys,
            String(at),
            String(this.#retention),
          ],
          keys[0],
          UNANSWERED,
        );
        return reply === UNANSWERED ? tags : [];
      }),
    );
    return unanswered.flat();
  }
}
