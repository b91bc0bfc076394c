import type { CacheInvalidation } from "../cache_invalidation.ts";
import { INVALIDATE_SCRIPT } from "../redis/_redis_tags.ts";

// The changes a Redis store could not take during an outage, kept to be
// re-sent when it answers again (as FusionCache's auto-recovery queue does):
// one pending change per key (the last one wins), in the order of the last
// change of each key, bounded.
//
// Why the bound degrades rather than forgets: a lost write or delete leaves
// Redis (and, without a message, the other instances' memory) holding a value
// this instance replaced. When the journal is full, the oldest change gives up
// its value and becomes "remove this key if it holds something older than the
// change" (a miss is always safe, a stale value is not); only when those
// key-only markers overflow too is a change lost outright, and counted.

/** A change the store must be told about. */
export type JournalChange =
  /** Store `json` under `key` if the key holds an older entry. */
  | {
    kind: "set";
    key: string;
    json: string;
    storedAt: number;
    /** How long the store keeps it, in milliseconds from `recordedAt`. */
    keep: number;
    recordedAt: number;
  }
  /** Remove `key` unless it holds an entry stored after `at`. */
  | { kind: "delete"; key: string; at: number }
  /** Remove every key under `prefix`. */
  | { kind: "clear"; prefix: string; at: number }
  /** Record that `tag` was invalidated at `at` (the later time wins). */
  | { kind: "tag"; tag: string; at: number }
  /** Nothing to change in the store; tell the other instances about `key`. */
  | { kind: "notify"; key: string; at: number };

/** What a journal kept, re-sent and lost over its life. */
export interface JournalStats {
  /** Changes waiting to be re-sent. */
  pending: number;
  /** Changes re-sent after an outage. */
  resent: number;
  /** Writes whose value was let go (journal full): their key is removed instead. */
  degraded: number;
  /** Changes lost (journal full even for keys alone). */
  dropped: number;
}

function idOf(change: JournalChange): string {
  switch (change.kind) {
    case "set":
    case "delete":
    case "notify":
      return `k:${change.key}`;
    case "clear":
      return `p:${change.prefix}`;
    case "tag":
      return `t:${change.tag}`;
  }
}

/** Bounded, deduplicated, ordered journal of the changes an outage held back. */
export class OutageJournal {
  readonly #limit: number;
  /** By id, in replay order (a new change of an id moves it to the end). */
  readonly #changes = new Map<string, JournalChange>();
  #values = 0;
  #resent = 0;
  #degraded = 0;
  #dropped = 0;
  /** A change was lost since the last recovery: everything must be dropped. */
  #overflowed = false;

  /**
   * @param limit How many writes with their value are kept; key-only changes
   * (deletes, degraded writes, clears, tags) are kept up to four times as
   * many.
   */
  constructor(limit: number) {
    this.#limit = limit;
  }

  /** How many changes are pending. */
  get size(): number {
    return this.#changes.size;
  }

  /** Whether a change was lost since the last {@linkcode OutageJournal.recovered}. */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** Counters. */
  get stats(): JournalStats {
    return {
      pending: this.#changes.size,
      resent: this.#resent,
      degraded: this.#degraded,
      dropped: this.#dropped,
    };
  }

  /** Records a change; an older one of the same key, prefix or tag is replaced. */
  record(change: JournalChange): void {
    const id = idOf(change);
    const previous = this.#changes.get(id);
    if (change.kind === "notify" && previous !== undefined) {
      // The pending change already tells the other instances.
      return;
    }
    if (change.kind === "tag" && previous?.kind === "tag") {
      if (previous.at >= change.at) return;
    }
    if (change.kind === "clear") {
      // What the clear removes need not be re-sent before it.
      for (const [otherId, other] of this.#changes) {
        if (
          ((other.kind === "set" || other.kind === "delete" ||
            other.kind === "notify") && other.key.startsWith(change.prefix)) ||
          (other.kind === "clear" && other.prefix.startsWith(change.prefix))
        ) {
          this.#remove(otherId, other);
        }
      }
    }
    if (previous !== undefined) this.#remove(id, previous);
    this.#changes.set(id, change);
    if (change.kind === "set") this.#values++;
    this.#bound();
  }

  /**
   * What a read of `key` should answer while changes are pending: the entry
   * of a pending write (its JSON), `null` for a pending delete or clear,
   * `undefined` when the journal knows nothing newer than the store.
   */
  lookup(key: string): string | null | undefined {
    const change = this.#changes.get(`k:${key}`);
    if (change?.kind === "set") return change.json;
    if (change?.kind === "delete") return null;
    for (const other of this.#changes.values()) {
      if (other.kind === "clear" && key.startsWith(other.prefix)) {
        // A write of the key after the clear would have been found above.
        return null;
      }
    }
    return undefined;
  }

  /**
   * The time of `tag`'s invalidation waiting to be re-sent, if any: a read
   * counts it as recorded (the store may not have it yet).
   */
  tagTime(tag: string): number | undefined {
    const change = this.#changes.get(`t:${tag}`);
    return change?.kind === "tag" ? change.at : undefined;
  }

  /** The key was changed in the store directly: its pending change is moot. */
  settle(key: string): void {
    const id = `k:${key}`;
    const change = this.#changes.get(id);
    if (change !== undefined) this.#remove(id, change);
  }

  /** The pending changes, oldest first (a copy). */
  snapshot(): JournalChange[] {
    return [...this.#changes.values()];
  }

  /**
   * Marks `change` as re-sent, unless a newer change of its key arrived
   * meanwhile (that one stays pending).
   */
  done(change: JournalChange): void {
    const id = idOf(change);
    if (this.#changes.get(id) === change) {
      this.#remove(id, change);
      this.#resent++;
    }
  }

  /** Forgets the overflow once every instance has been told to drop everything. */
  recovered(): void {
    this.#overflowed = false;
  }

  /** Forgets everything (the provider is disposed); counted as dropped. */
  discard(): void {
    this.#dropped += this.#changes.size;
    this.#changes.clear();
    this.#values = 0;
  }

  #remove(id: string, change: JournalChange): void {
    this.#changes.delete(id);
    if (change.kind === "set") this.#values--;
  }

  #bound(): void {
    // Writes beyond the limit give up their value, oldest first.
    if (this.#values > this.#limit) {
      for (const [id, change] of this.#changes) {
        if (this.#values <= this.#limit) break;
        if (change.kind !== "set") continue;
        this.#values--;
        this.#degraded++;
        // Same place in the order: replace in the map without moving it.
        this.#changes.set(id, {
          kind: "delete",
          key: change.key,
          at: change.storedAt,
        });
      }
    }
    const max = this.#limit * 4;
    if (this.#changes.size > max) {
      for (const [id, change] of this.#changes) {
        if (this.#changes.size <= max) break;
        this.#remove(id, change);
        this.#dropped++;
        this.#overflowed = true;
      }
    }
  }
}

// Re-sending is last-writer-wins by `storedAt`, decided inside Redis so that
// the read and the write cannot be split by another instance's command:
//
// - a write is re-sent only over an OLDER entry of its key. An absent key is
//   left absent: it may have been deleted by an instance that stayed
//   connected (Redis keeps no trace of a delete), and re-creating it would
//   bring back a value that instance removed. A miss is always safe; the
//   next getOrSet recomputes it.
// - a delete removes the key only when what it holds was stored at or before
//   the delete, so a value another instance wrote after it survives.
// - tag invalidations keep the later time (the tags script), so they can be
//   re-sent in any order; a clear is re-sent as it was (it can only cause
//   misses).
//
// `storedAt` is read with cjson, not a pattern: a value may itself contain a
// "storedAt" field. Something that is not an entry is overwritten / removed.

/** KEYS[1]; ARGV: entry JSON, its storedAt, expiry in ms. Answers 1 when written. */
export const RESEND_SET_SCRIPT = `
local v = redis.call("GET", KEYS[1])
if not v then return 0 end
local ok, e = pcall(cjson.decode, v)
if ok and type(e) == "table" and tonumber(e.storedAt) ~= nil and
  tonumber(e.storedAt) >= tonumber(ARGV[2]) then return 0 end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[3])
return 1`;

/** KEYS[1]; ARGV[1]: the time of the delete. Answers 1 when removed. */
export const RESEND_DELETE_SCRIPT = `
local v = redis.call("GET", KEYS[1])
if not v then return 0 end
local ok, e = pcall(cjson.decode, v)
if ok and type(e) == "table" and tonumber(e.storedAt) ~= nil and
  tonumber(e.storedAt) > tonumber(ARGV[1]) then return 0 end
redis.call("DEL", KEYS[1])
return 1`;

/** What {@linkcode resendJournal} needs from the Redis provider. */
export interface ResendTarget {
  /** The source of the recovery's messages (every instance applies them). */
  source: string;
  /**
   * Runs a command; `false` when the store did not answer (an error reply is
   * an answer: sending it again would not help).
   */
  run(args: string[], key?: string): Promise<boolean>;
  /** Clears a prefix; `false` when the store did not answer. */
  clear(prefix: string): Promise<boolean>;
  /** Publishes a message; `false` when it did not go out (then held back). */
  publish(message: CacheInvalidation): Promise<boolean>;
  /** The Redis key of a cache key. */
  fullKey(key: string): string;
  /** The Redis key of a tag. */
  tagKey(tag: string): string;
  /** How long a tag invalidation is remembered. */
  tagRetention: number;
}

async function resendOne(
  change: JournalChange,
  target: ResendTarget,
): Promise<boolean> {
  switch (change.kind) {
    case "set": {
      const fullKey = target.fullKey(change.key);
      const keep = change.keep - (Date.now() - change.recordedAt);
      return await target.run(
        keep >= 1
          ? [
            "EVAL",
            RESEND_SET_SCRIPT,
            "1",
            fullKey,
            change.json,
            String(change.storedAt),
            String(Math.ceil(keep)),
          ]
          // Expired meanwhile: only an older value must not stay.
          : [
            "EVAL",
            RESEND_DELETE_SCRIPT,
            "1",
            fullKey,
            String(change.storedAt),
          ],
        fullKey,
      );
    }
    case "delete": {
      const fullKey = target.fullKey(change.key);
      return await target.run(
        ["EVAL", RESEND_DELETE_SCRIPT, "1", fullKey, String(change.at)],
        fullKey,
      );
    }
    case "clear":
      return await target.clear(change.prefix);
    case "tag": {
      // The tag's key routes the script to its slot's primary on a cluster.
      const tagKey = target.tagKey(change.tag);
      return await target.run(
        [
          "EVAL",
          INVALIDATE_SCRIPT,
          "1",
          tagKey,
          String(change.at),
          String(target.tagRetention),
        ],
        tagKey,
      );
    }
    case "notify":
      return true;
  }
}

/**
 * Re-sends the pending changes, oldest first, one at a time. A change the
 * store does not take stays pending for the next recovery and the others go
 * on: on a cluster, the slots of another primary may still be down (and when
 * the whole store went away again, each of the rest answers at once). Then
 * tells every instance which keys, prefixes and tags changed, so that they
 * drop their memory copies; after a lost change, everything.
 *
 * @returns How many changes were re-sent.
 */
export async function resendJournal(
  journal: OutageJournal,
  target: ResendTarget,
): Promise<number> {
  const overflowed = journal.overflowed;
  const keys: string[] = [];
  const prefixes: string[] = [];
  const tags: string[] = [];
  let tagsAt = 0;
  let complete = true;
  let resent = 0;
  for (const change of journal.snapshot()) {
    if (!(await resendOne(change, target))) {
      complete = false;
      continue;
    }
    journal.done(change);
    resent++;
    if (change.kind === "clear") prefixes.push(change.prefix);
    else if (change.kind === "tag") {
      tags.push(change.tag);
      tagsAt = Math.max(tagsAt, change.at);
    } else keys.push(change.key);
  }
  const source = target.source;
  const messages: CacheInvalidation[] = [];
  if (overflowed) messages.push({ source, prefix: "" });
  else {
    for (let i = 0; i < keys.length; i += 500) {
      messages.push({ source, keys: keys.slice(i, i + 500) });
    }
    for (const prefix of prefixes) messages.push({ source, prefix });
    // One time for all the tags: invalidating a little more is safe.
    if (tags.length > 0) messages.push({ source, tags, at: tagsAt });
  }
  for (const message of messages) {
    if (!(await target.publish(message))) complete = false;
  }
  if (overflowed && complete) journal.recovered();
  return resent;
}
