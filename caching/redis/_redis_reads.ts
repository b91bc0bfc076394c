// How RemoteStoreCacheProvider reads an entry back: one GET (or, for a
// tagged entry on one server, one script that reads its tags' times too),
// and for getOrSet's `lock` one script that reads the entry or, when there
// is none, takes the store's lock in the same round trip. While changes of
// an outage are being re-sent, what this instance changed wins over what the
// store still holds.
import { TIMED_OUT } from "./_deadlines.ts";
import type { ErrorReporter } from "../_error_reporter.ts";
import type { OutageJournal } from "../outages/_outage_journal.ts";
import { decodeEntry } from "./_redis_entry.ts";
import type { RedisKeys } from "./_redis_keys.ts";
import { acquiredLock, lockToken, READ_OR_LOCK_SCRIPT } from "./_redis_lock.ts";
import type { RedisTagStore } from "./_redis_tag_store.ts";
import { invalidatedSince } from "./_redis_tags.ts";
import {
  type StoreConnectionState,
  UNANSWERED,
} from "../outages/_store_connection_state.ts";
import type {
  CacheEntry,
  CacheLockAttempt,
  CacheReadOrLock,
} from "../cache_provider.ts";

/** What the reads share with their provider. */
export interface RedisReadsOptions {
  link: StoreConnectionState;
  keys: RedisKeys;
  tags: RedisTagStore;
  journal: OutageJournal;
  cluster: boolean;
  reporter: ErrorReporter;
  /** The provider's tryLock, for a key whose change is being re-sent. */
  tryLock: (key: string, ttl: number) => Promise<CacheLockAttempt>;
}

/** The reads of one provider. */
export class RedisReads {
  readonly #link: StoreConnectionState;
  readonly #keys: RedisKeys;
  readonly #tags: RedisTagStore;
  readonly #journal: OutageJournal;
  readonly #cluster: boolean;
  readonly #reporter: ErrorReporter;
  readonly #tryLock: (key: string, ttl: number) => Promise<CacheLockAttempt>;

  constructor(options: RedisReadsOptions) {
    this.#link = options.link;
    this.#keys = options.keys;
    this.#tags = options.tags;
    this.#journal = options.journal;
    this.#cluster = options.cluster;
    this.#reporter = options.reporter;
    this.#tryLock = options.tryLock;
  }

  /** The entry of `key`, as RemoteStoreCacheProvider.get documents. */
  get(key: string, tagged?: boolean): Promise<CacheEntry | undefined> {
    const fullKey = this.#keys.full(key);
    // Down, or (on a cluster) the key's primary down: a miss at once.
    if (this.#link.offline || this.#link.isDown(fullKey)) {
      return Promise.resolve(undefined);
    }
    if (this.#journal.size > 0) {
      // Re-sending after an outage: what this instance changed meanwhile
      // wins over what the store still holds.
      const pending = this.#journal.lookup(key);
      if (pending !== undefined) {
        return Promise.resolve(
          pending === null
            ? undefined
            : this.#tags.check(this.#decode(fullKey, pending)),
        );
      }
    }
    const client = this.#link.readyClient;
    if (client === undefined) {
      return this.#link.whenReady(() => this.get(key, tagged), undefined);
    }
    if (tagged === true && !client.cluster) {
      return this.#tags.readTagged(client, fullKey, this.#decode);
    }
    return this.#link.race(client.send(["GET", fullKey], fullKey))
      .then(
        (value) =>
          value === TIMED_OUT
            ? this.#link.timedOut("GET", undefined, fullKey)
            : this.#tags.check(this.#decode(fullKey, value)),
        (error) => this.#link.failed("GET", fullKey, error, undefined),
      );
  }

  /** As RemoteStoreCacheProvider.readOrLock documents. */
  async readOrLock(key: string, ttl: number): Promise<CacheReadOrLock> {
    const fullKey = this.#keys.full(key);
    if (this.#journal.size > 0 && this.#journal.lookup(key) !== undefined) {
      // A change of this key is being re-sent after an outage: it wins over
      // what the store still holds, as for get().
      const entry = await this.get(key);
      return entry === undefined
        ? { entry, lock: await this.#tryLock(key, ttl) }
        : { entry };
    }
    const cluster = this.#cluster;
    const lockFullKey = this.#keys.lock(key, fullKey, cluster);
    const token = lockToken();
    const reply = await this.#link.send(
      [
        "EVAL",
        READ_OR_LOCK_SCRIPT,
        "2",
        fullKey,
        lockFullKey,
        // On a cluster the tag keys live in other slots: read apart.
        cluster ? "" : this.#keys.tagPrefix,
        token,
        String(Math.max(1, Math.ceil(ttl))),
      ],
      fullKey,
      UNANSWERED,
    );
    if (reply === UNANSWERED) {
      return { entry: undefined, lock: { acquired: false, held: false } };
    }
    if (!Array.isArray(reply)) return { entry: this.#decode(fullKey, reply) };
    const state = Number(reply[1]);
    if (state === 1) {
      return {
        entry: undefined,
        lock: acquiredLock(this.#link, lockFullKey, token),
      };
    }
    if (state === 0) {
      return { entry: undefined, lock: { acquired: false, held: true } };
    }
    const entry = this.#decode(fullKey, reply[0]);
    if (cluster) return { entry: await this.#tags.check(entry) };
    return {
      entry: entry !== undefined &&
          invalidatedSince(reply.slice(2), entry.storedAt)
        ? undefined
        : entry,
    };
  }

  /** An entry read back: a reply, so the store answers. */
  readonly #decode = (
    fullKey: string,
    reply: unknown,
  ): CacheEntry | undefined => {
    this.#link.answered();
    return decodeEntry(fullKey, reply, this.#reporter);
  };
}
