// The public face of the cache on Redis: each method says what it does to
// the store and hands the work to one concept's file. Whether the store
// answers lives in _store_connection_state.ts, the changes of an outage in
// _outage_recovery.ts and _outage_journal.ts, the options' checks in
// _remote_store_settings.ts (their reading from configuration in
// _remote_store_configuration.ts), key names in _redis_keys.ts, the stored
// form of an entry in _redis_entry.ts, reads in _redis_reads.ts, clear() in
// _redis_clear.ts, tags in _redis_tag_store.ts, pub/sub in
// _redis_invalidation_bus.ts and the store's lock in _redis_lock.ts.
//
// Over the ~600 lines a file is meant to stay under, on purpose: of its 724
// lines, 392 are JSDoc (of the public class, of its options and of its 22
// public members) and the options interface stays beside the class so that
// the package's generated documentation does not change; the code is about
// 280 lines, 36 of them imports, the rest delegation to the files above.

import type { IConfiguration } from "../../config/mod.ts";
import {
  type Clock,
  deadlineSignal,
  type DisposeOptions,
} from "../../core/mod.ts";
import type { HealthCheckResult } from "../../platform/mod.ts";
import { ErrorReporter } from "../_error_reporter.ts";
import { clearKeys } from "./_redis_clear.ts";
import { encodeEntry, retention } from "./_redis_entry.ts";
import { RedisInvalidationBus } from "./_redis_invalidation_bus.ts";
import { RedisKeys } from "./_redis_keys.ts";
import { acquiredLock, lockToken } from "./_redis_lock.ts";
import { RedisReads } from "./_redis_reads.ts";
import { RedisTagStore } from "./_redis_tag_store.ts";
import { remoteStoreOptionsFromConfiguration } from "./_remote_store_configuration.ts";
import { remoteStoreSettings } from "./_remote_store_settings.ts";
import { OutageJournal } from "../outages/_outage_journal.ts";
import { OutageRecovery } from "../outages/_outage_recovery.ts";
import {
  StoreConnectionState,
  UNANSWERED,
} from "../outages/_store_connection_state.ts";
import type { CacheError } from "../cache_error.ts";
import type {
  CacheInvalidation,
  CacheInvalidationSubscription,
  ICacheInvalidationBus,
} from "../cache_invalidation.ts";
import type {
  CacheEntry,
  CacheListeners,
  CacheLockAttempt,
  CacheReadOrLock,
  ICacheProvider,
} from "../cache_provider.ts";
import { CacheSerializationError } from "../cache_serialization_error.ts";
import { CacheStoreUnavailableError } from "../cache_store_unavailable_error.ts";

/** Options of {@linkcode RemoteStoreCacheProvider}; all times are milliseconds. */
export interface RemoteStoreCacheProviderOptions {
  /** Redis host. Default `"localhost"`. */
  host?: string;
  /** Redis port. Default 6379. */
  port?: number;
  /**
   * A Redis Cluster instead of one server: `nodes` lists some of its nodes
   * (`"host:port"`, an array or comma-separated; three or more is wise),
   * from which node-redis learns the others and the slots. `host`/`port`
   * are then ignored; the database must be 0.
   */
  cluster?: { nodes: string | readonly string[] };
  /**
   * The primary that Redis Sentinel names, followed through failovers:
   * `name` is the name the sentinels monitor it under, `nodes` some
   * sentinels (`"host:port"`, an array or comma-separated), `password` the
   * sentinels' own password when they have one (`password` above is the
   * data nodes'). `host`/`port` are then ignored.
   */
  sentinel?: {
    name: string;
    nodes: string | readonly string[];
    password?: string;
  };
  /**
   * On a Redis Cluster, keeps each area's keys in one slot: the area name
   * (the text of a key before its first `:`) becomes a hash tag
   * (`kit:cache:{products}:42`). Default `false`: keys are spread over the
   * slots (and so over the primaries) one by one.
   */
  hashTag?: boolean;
  /** ACL user name; omit for the `requirepass` password alone. */
  username?: string;
  /** Password (`requirepass` or the ACL user's). */
  password?: string;
  /** Database number (`SELECT`). Default 0. */
  database?: number;
  /**
   * Prepended to every key; `clear()` removes only keys under it. Default
   * `"kit:cache:"`.
   */
  keyPrefix?: string;
  /**
   * How long an entry is kept when `set` gives no ttl and the entry has no
   * ttl of its own. Default 300000 (5 minutes).
   */
  defaultTtl?: number;
  /**
   * How long the invalidation of a tag is remembered, in milliseconds; a
   * tagged entry is kept at most as long (its Redis expiry is capped), so
   * that no entry outlives the memory of its tags. Default 604800000 (7
   * days).
   */
  tagRetention?: number;
  /**
   * Time allowed for one connection attempt, handshake included (TCP
   * connection, `AUTH`, `SELECT`): a server that accepts the connection and
   * never answers counts as unreachable after it. Default 5000.
   */
  connectTimeout?: number;
  /**
   * Time allowed for a reply before the command counts as failed (a miss or
   * a skipped write) and the store as unreachable: a server that keeps the
   * connection open but stopped answering. Default 1000; at least 1 (every
   * command is bounded).
   */
  commandTimeout?: number;
  /** First delay before reconnecting; doubles each attempt. Default 100. */
  reconnectDelay?: number;
  /** Longest delay between reconnect attempts. Default 2000. */
  maxReconnectDelay?: number;
  /**
   * Pub/sub channel of the invalidation messages. Default
   * `kit:cache:invalidation:<database>:<keyPrefix>` (channels are shared by
   * all databases of a server, hence the database number).
   */
  invalidationChannel?: string;
  /**
   * Receives every reported error (and the {@linkcode CacheStoreRecovered}
   * that ends an outage); default `console.warn` (`console.info` for the
   * recovery) when nobody listens.
   */
  onError?: (error: CacheError) => void;
  /**
   * Whether the service cannot start without the store. `true`:
   * {@linkcode RemoteStoreCacheProvider.connect} rejects with the
   * {@linkcode CacheStoreUnavailableError} (naming the address) when the
   * store does not answer, and the provider is disposed; an eager service
   * that awaits `connect()` then fails the application's start-up. Default
   * `false`: `connect()` answers `false`, the outage is reported as a
   * warning and the cache runs on misses until the store answers. Only
   * `connect()` is concerned: a later outage is always survived.
   */
  required?: boolean;
  /**
   * How many writes made during an outage are kept, with their value, to be
   * re-sent when the store answers again (deletes, clears and tag
   * invalidations are kept too, up to four times as many). Beyond it the
   * oldest write gives up its value and its key is removed instead; beyond
   * that, changes are lost and counted (see
   * {@linkcode RemoteStoreCacheProvider.recoveryStats}). Default 1000; 0
   * keeps nothing.
   */
  outageJournalSize?: number;
  /**
   * The clock the entries' `storedAt` is read on: give the manager's
   * `clock` here too when it has one (a `FakeClock` in tests). Deletes and
   * clears held back during an outage are stamped on it, so that when they
   * are re-sent they are compared with stored entries on one clock. Redis's
   * own expiry stays on real time. Default {@linkcode systemClock}.
   */
  clock?: Clock | (() => number);
}

/**
 * A cache provider on Redis, through node-redis (the `redis` package).
 *
 * - Each entry is stored as JSON (value and metadata) under
 *   `keyPrefix + key`, with a Redis expiry (`PX`) of the ttl it is given,
 *   which {@linkcode CacheManager} sets to `ttl + maxStale`: a stale value is
 *   still there to serve during its window.
 * - A read is one `GET`. `clear()` walks this prefix with `SCAN` and
 *   `UNLINK`s what it finds; it never uses `KEYS` or `FLUSHDB`.
 * - One server (`host`, `port`), a Redis Cluster (`cluster`) or the primary
 *   Redis Sentinel names (`sentinel`), through node-redis's own clients; on
 *   a cluster `clear()` scans every primary and a failed primary's slots
 *   are looked up again until its replica answers for them.
 * - Faults never reach the caller. Redis is down when a connection is
 *   refused or lost, the password is missing or refused, a connection
 *   attempt (handshake included) gets no answer within `connectTimeout`, or
 *   a command none within `commandTimeout`. A single
 *   {@linkcode CacheStoreUnavailableError} is reported per outage; while it
 *   lasts commands are not sent (reads are misses, writes are skipped, calls
 *   answer at once), a `PING` probe retries with the reconnect backoff, and
 *   its first reply reports a {@linkcode CacheStoreRecovered}. On a Redis
 *   Cluster, a primary that fails takes down its own slots only: the keys of
 *   the other primaries are served, the outage (and its end) is reported
 *   with the failed primary's address and slots, and a probe of those slots
 *   ends it once that primary or its replica answers for them. A value read
 *   back that is not a cache entry is a miss, reported as a
 *   {@linkcode CacheValueError}.
 * - Writes, deletes, clears, tag invalidations and messages skipped during an
 *   outage are kept in a bounded journal (`outageJournalSize`) and re-sent
 *   after the recovery (on a cluster, each time a failed primary's slots
 *   answer again), a write only over an older entry of its key (last
 *   writer wins by `storedAt`); then the keys concerned are published so
 *   that every instance drops its memory copies.
 * - It connects on first use (or {@linkcode RemoteStoreCacheProvider.connect});
 *   {@linkcode RemoteStoreCacheProvider.dispose} closes every connection.
 * - It is also an {@linkcode ICacheInvalidationBus} on Redis pub/sub, used by
 *   {@linkcode TieredCacheProvider}.
 *
 * @example Usage
 * ```ts
 * import { CacheManager, RemoteStoreCacheProvider } from "@vendor/kit/caching";
 *
 * const provider = new RemoteStoreCacheProvider({
 *   host: "localhost",
 *   port: 6379,
 *   password: "<PASSWORD>",
 *   database: 0,
 *   keyPrefix: "shop:",
 * });
 * const cache = new CacheManager(provider, { onError: (e) => console.warn(e.message) });
 * const user = await cache.getOrSet("users:1", () => ({ id: 1, name: "Ada" }));
 * console.log(user.name);
 * await cache.dispose(); // closes the connections
 * ```
 */
export class RemoteStoreCacheProvider
  implements ICacheProvider, ICacheInvalidationBus {
  readonly #keys: RedisKeys;
  readonly #defaultTtl: number;
  readonly #address: string;
  readonly #cluster: boolean;
  readonly #reporter: ErrorReporter;
  readonly #required: boolean;
  readonly #tagRetention: number;
  readonly #journal: OutageJournal;
  /** Now, on the clock of the entries' `storedAt`. */
  readonly #now: () => number;
  /** Holds back the changes of an outage and re-sends them after it. */
  readonly #recovery: OutageRecovery;
  /** Whether the store answers, and the sending of commands. */
  readonly #link: StoreConnectionState;
  readonly #tags: RedisTagStore;
  readonly #bus: RedisInvalidationBus;
  readonly #channel: string;
  readonly #reads: RedisReads;

  /**
   * Creates the provider; no connection is opened before the first use.
   *
   * @param options Connection, key prefix, timing and error options.
   * @throws {CacheSettingError} `RemoteStoreCacheProvider <option> must be
   * an integer from <min> to <max>: <value>` for a bad port, database or
   * time (a `RangeError`, naming the key and the variable when
   * `fromConfiguration` read the value).
   * @throws {RangeError} For a malformed `cluster.nodes` or `sentinel.nodes` (naming the entry),
   * an empty `sentinel.name`, both `cluster` and `sentinel`, or, on a
   * cluster, a database other than 0 or a key prefix with an unclosed `{`.
   */
  constructor(options: RemoteStoreCacheProviderOptions = {}) {
    const settings = remoteStoreSettings(options);
    const keys = new RedisKeys(settings.keyPrefix, settings.hashTag);
    this.#keys = keys;
    this.#defaultTtl = settings.defaultTtl;
    this.#address = settings.address;
    this.#cluster = settings.topology.kind === "cluster";
    this.#required = settings.required;
    this.#tagRetention = settings.tagRetention;
    this.#journal = new OutageJournal(settings.outageJournalSize);
    const clock = settings.clock;
    this.#now = () => clock.now();
    this.#channel = settings.invalidationChannel;
    this.#reporter = new ErrorReporter(
      "RemoteStoreCacheProvider",
      options.onError,
    );
    const link = new StoreConnectionState({
      topology: settings.topology,
      address: this.#address,
      connectionOptions: settings.connectionOptions,
      reporter: this.#reporter,
      commandTimeout: settings.commandTimeout,
      onUp: () => this.#recovery.recovered(),
      probeKey: (slot) => keys.probe(slot),
    });
    this.#link = link;
    this.#tags = new RedisTagStore(
      link,
      keys,
      this.#cluster,
      this.#tagRetention,
      this.#journal,
    );
    this.#bus = new RedisInvalidationBus(
      settings.topology,
      settings.connectionOptions,
      link,
      this.#channel,
    );
    this.#reads = new RedisReads({
      link,
      keys,
      tags: this.#tags,
      journal: this.#journal,
      cluster: this.#cluster,
      reporter: this.#reporter,
      tryLock: (key, ttl) => this.tryLock(key, ttl),
    });
    this.#recovery = new OutageRecovery({
      now: this.#now,
      journal: this.#journal,
      journalSize: settings.outageJournalSize,
      link,
      reporter: this.#reporter,
      address: this.#address,
      diagnostics: settings.connectionOptions.diagnostics,
      send: async (args, key) =>
        (await link.send(args, key, UNANSWERED)) !== UNANSWERED,
      clear: (prefix) => clearKeys(link, keys.clearPatterns(prefix)),
      publish: (message) => this.#bus.publish(message),
      fullKey: (key) => keys.full(key),
      tagKey: (tag) => keys.tag(tag),
      tagRetention: this.#tagRetention,
    });
  }

  /**
   * Builds a provider from configuration keys `cache:redis:host`,
   * `cache:redis:port`, `cache:redis:password` (the `REDIS_HOST`,
   * `REDIS_PORT`, `REDIS_PASSWORD` variables) and, when present,
   * `cache:redis:database`, `cache:redis:keyPrefix`, `cache:redis:required`
   * (`true` or `false`, any case), `cache:redis:hashTag`. Numbers and
   * booleans may be given as strings (as environment variables are).
   *
   * A Redis Cluster comes from `cache:redis:cluster:nodes`
   * (`REDIS_CLUSTER_NODES`, `host:port` comma-separated); a primary named
   * by Sentinel from `cache:redis:sentinel:name` (`REDIS_SENTINEL_NAME`),
   * `cache:redis:sentinel:nodes` (`REDIS_SENTINELS`) and, when the
   * sentinels have one, `cache:redis:sentinel:password`
   * (`REDIS_SENTINEL_PASSWORD`).
   *
   * An option given in code wins: the configuration fills only the options
   * `options` leaves unset (absent or `undefined`), so a test or a tool can
   * point at another server whatever the environment says.
   *
   * @param config Any configuration (a `ConfigurationManager`).
   * @param options Options; each one set here wins over its configuration
   * key.
   * @returns The provider (not yet connected).
   * @throws {CacheSettingError} `cache:redis:<key> must be a number:
   * <value>` for a port or database that is not a number,
   * `cache:redis:required must be true or false: <value>`, a sentinel name
   * without nodes (or the reverse): a `RangeError` carrying the key and the
   * source (the variable), the value masked and bounded.
   * @throws {RangeError} As the constructor.
   *
   * @example Usage
   * ```ts
   * import type { IConfiguration } from "@vendor/kit/config";
   * import { CacheManager, RemoteStoreCacheProvider } from "@vendor/kit/caching";
   *
   * function createCache(config: IConfiguration): CacheManager {
   *   return new CacheManager(RemoteStoreCacheProvider.fromConfiguration(config));
   * }
   * ```
   */
  static fromConfiguration(
    config: IConfiguration,
    options: RemoteStoreCacheProviderOptions = {},
  ): RemoteStoreCacheProvider {
    return new RemoteStoreCacheProvider(
      remoteStoreOptionsFromConfiguration(config, options),
    );
  }

  /** The prefix prepended to every key. */
  get keyPrefix(): string {
    return this.#keys.prefix;
  }

  /** `host:port` of the store. */
  get address(): string {
    return this.#address;
  }

  /** The pub/sub channel of invalidation messages. */
  get invalidationChannel(): string {
    return this.#channel;
  }

  /**
   * `true` while the connection is up, the store has answered, and commands
   * are sent; `false` before the first reply and during an outage. On a
   * cluster it stays `true` while some primaries' slots answer.
   */
  get isConnected(): boolean {
    return this.#link.isConnected;
  }

  /**
   * The changes held back during outages: `pending` (waiting for the store),
   * `resent` (re-sent after an outage), `degraded` (writes re-sent as a
   * delete of their key because the journal was full) and `dropped` (lost:
   * the journal was full even for keys alone, or the provider was disposed
   * with changes pending). Counted since the provider was created.
   *
   * @example Usage
   * ```ts
   * import { RemoteStoreCacheProvider } from "@vendor/kit/caching";
   *
   * const provider = new RemoteStoreCacheProvider({ outageJournalSize: 5000 });
   * console.log(provider.recoveryStats.pending); // 0
   * await provider.dispose();
   * ```
   */
  get recoveryStats(): Readonly<{
    pending: number;
    resent: number;
    degraded: number;
    dropped: number;
  }> {
    return this.#journal.stats;
  }

  /** Reported errors: unreachable store, error replies, bad values. */
  get errorOccurred(): CacheListeners<CacheError> {
    return this.#reporter.signal;
  }

  /**
   * Opens the connection now rather than on first use, and checks that the
   * store answers (`PING`).
   *
   * @returns `true` once connected and answered; `false` when the attempt
   * failed or got no reply within `connectTimeout` (then `commandTimeout`
   * for the `PING`), or during an outage (the failure is reported once and
   * the provider keeps retrying); `false` once disposed.
   * @throws {CacheStoreUnavailableError} With `required: true`, instead of
   * answering `false` (as a rejection, after disposing the provider, so
   * that a failed start-up leaves no connection or timer behind). Its
   * message names the address and, when known, what to do.
   *
   * @example Usage
   * ```ts ignore
   * // Not run here: with required: true it rejects unless a Redis answers on
   * // 127.0.0.1:6379.
   * import { CacheManager, RemoteStoreCacheProvider } from "@vendor/kit/caching";
   *
   * const provider = new RemoteStoreCacheProvider({ host: "127.0.0.1", required: true });
   * await provider.connect(); // rejects when Redis does not answer
   * const cache = new CacheManager(provider);
   * await cache.dispose();
   * ```
   */
  async connect(): Promise<boolean> {
    if (this.#link.disposed) return false;
    const ok = await this.#link.connect();
    if (ok || !this.#required || this.#link.disposed) return ok;
    const error = this.#link.downReport ??
      new CacheStoreUnavailableError(this.#address);
    await this.dispose();
    throw error;
  }

  /**
   * Tells whether the store answers: `healthy` after a `PING` reply,
   * `degraded` during an outage (the cache then runs on misses), with the
   * reason and what to do in `detail` (never the password). On a cluster
   * whose other primaries answer, `degraded` with `detail.unreachable`
   * listing each failed primary, its slots, since when and why.
   *
   * @param signal Aborts the check; it then answers `degraded`.
   * @returns The state of the store.
   */
  async checkHealth(signal?: AbortSignal): Promise<HealthCheckResult> {
    return await this.#link.checkHealth(signal);
  }

  /**
   * Reads an entry with one `GET`. A tagged entry is a miss when one of its
   * tags was invalidated since it was stored: with `tagged`, the entry and
   * its tags' times are read together by one script (one round trip);
   * without, a tagged entry found costs an `MGET` of its tags' times.
   *
   * @param key The key, without the prefix.
   * @param tagged The caller expects a tagged entry.
   * @returns The entry; `undefined` when absent, expired, invalidated,
   * unreadable, or the store is unreachable.
   */
  get(key: string, tagged?: boolean): Promise<CacheEntry | undefined> {
    return this.#reads.get(key, tagged);
  }

  /**
   * Stores an entry as JSON with `SET … PX`.
   *
   * @param key The key, without the prefix.
   * @param entry The entry.
   * @param ttl How long Redis keeps it, in milliseconds; default the entry's
   * `ttl + maxStale`, else `defaultTtl`.
   * @returns Settles when written, or skipped (never rejects).
   */
  set(key: string, entry: CacheEntry, ttl?: number): Promise<void> {
    const fullKey = this.#keys.full(key);
    let json: string;
    try {
      json = encodeEntry(entry);
    } catch (error) {
      this.#reporter.report(new CacheSerializationError(fullKey, error));
      return Promise.resolve();
    }
    const kept = retention(entry, ttl, this.#defaultTtl, this.#tagRetention);
    const skipped = this.#link.skips(fullKey);
    return this.#link.send(
      ["SET", fullKey, json, "PX", String(kept)],
      fullKey,
      UNANSWERED,
    )
      .then((reply) => {
        if (reply !== UNANSWERED) {
          if (this.#journal.size > 0) this.#journal.settle(key);
        } else if (this.#recovery.missed(fullKey, skipped)) {
          this.#journal.record({
            kind: "set",
            key,
            json,
            storedAt: entry.storedAt,
            keep: kept,
            recordedAt: Date.now(),
          });
        }
      });
  }

  /**
   * Removes an entry.
   *
   * @param key The key, without the prefix.
   * @returns Settles when done, or skipped (never rejects).
   */
  async delete(key: string): Promise<void> {
    const fullKey = this.#keys.full(key);
    const at = this.#now();
    const skipped = this.#link.skips(fullKey);
    const reply = await this.#link.send(["DEL", fullKey], fullKey, UNANSWERED);
    if (reply !== UNANSWERED) {
      if (this.#journal.size > 0) this.#journal.settle(key);
    } else if (this.#recovery.missed(fullKey, skipped)) {
      this.#journal.record({ kind: "delete", key, at });
    }
  }

  /**
   * Tells whether the key exists (`EXISTS`).
   *
   * @param key The key, without the prefix.
   * @returns `true` when present; `false` also while unreachable.
   */
  async has(key: string): Promise<boolean> {
    const fullKey = this.#keys.full(key);
    return (await this.#link.send(["EXISTS", fullKey], fullKey, 0)) === 1;
  }

  /**
   * Removes every key under `keyPrefix + prefix`, walking them with `SCAN`
   * and removing each batch with `UNLINK`. Keys outside this provider's
   * prefix, and other databases, are never touched.
   *
   * @param prefix A prefix inside this provider's prefix; all of its keys
   * when omitted.
   * @returns Settles when done, or skipped (never rejects).
   */
  async clear(prefix = ""): Promise<void> {
    const at = this.#now();
    const skipped = this.#link.skips();
    const done = await clearKeys(this.#link, this.#keys.clearPatterns(prefix));
    if (!done && this.#recovery.missed(undefined, skipped)) {
      this.#journal.record({ kind: "clear", prefix, at });
    }
  }

  /**
   * Takes the lock of `key` for `ttl` milliseconds: one `SET <lock key>
   * <token> NX PX <ttl>`, the lock key being under `keyPrefix`. `release()`
   * removes it only while it is still this owner's (a compare-and-delete
   * script); otherwise it expires by itself.
   *
   * @param key The cache key the lock is for.
   * @param ttl How long the lock lives, in milliseconds.
   * @returns The attempt: acquired (with `release`), held by another owner,
   * or neither when the store did not answer. Never rejects.
   *
   * @example Usage
   * ```ts
   * import { RemoteStoreCacheProvider } from "@vendor/kit/caching";
   *
   * const provider = new RemoteStoreCacheProvider({ host: "127.0.0.1" });
   * const attempt = await provider.tryLock("report", 5_000);
   * if (attempt.acquired) await attempt.release();
   * await provider.dispose();
   * ```
   */
  async tryLock(key: string, ttl: number): Promise<CacheLockAttempt> {
    const fullKey = this.#keys.lock(key, this.#keys.full(key), this.#cluster);
    const token = lockToken();
    const reply = await this.#link.send(
      ["SET", fullKey, token, "NX", "PX", String(Math.max(1, Math.ceil(ttl)))],
      fullKey,
      UNANSWERED,
    );
    if (reply === UNANSWERED) return { acquired: false, held: false };
    if (reply !== "OK") return { acquired: false, held: true };
    return acquiredLock(this.#link, fullKey, token);
  }

  /**
   * Reads an entry and, when there is none, takes the lock of `key` in the
   * same round trip (one script): what `getOrSet` with `lock` does first,
   * so that a miss costs no more round trips than without the lock. A
   * tagged entry comes with its tags' times, as with `get(key, true)`.
   *
   * @param key The key, without the prefix.
   * @param ttl How long the lock lives, in milliseconds.
   * @returns The entry (no `lock`), or no entry and the lock attempt.
   * Never rejects.
   *
   * @example Usage
   * ```ts
   * import { RemoteStoreCacheProvider } from "@vendor/kit/caching";
   *
   * const provider = new RemoteStoreCacheProvider({ host: "127.0.0.1" });
   * const { entry, lock } = await provider.readOrLock("report", 5_000);
   * if (lock?.acquired) await lock.release();
   * console.log(entry?.value);
   * await provider.dispose();
   * ```
   */
  async readOrLock(key: string, ttl: number): Promise<CacheReadOrLock> {
    return await this.#reads.readOrLock(key, ttl);
  }

  /**
   * Publishes an invalidation on {@linkcode RemoteStoreCacheProvider.invalidationChannel}.
   *
   * @param message The message.
   * @returns Settles when sent, or skipped (never rejects).
   */
  async publishInvalidation(message: CacheInvalidation): Promise<void> {
    const skipped = this.#link.skips();
    if (
      !(await this.#bus.publish(message)) &&
      this.#recovery.missed(undefined, skipped)
    ) this.#recovery.holdMessage(message);
  }

  /**
   * Subscribes to invalidation messages over a second, dedicated connection
   * (opened on the first subscription; node-redis resubscribes after a
   * reconnect).
   *
   * @param onMessage Called for each well-formed message.
   * @param onResync Called when the subscription is back after an outage.
   * @returns The subscription.
   */
  subscribeInvalidations(
    onMessage: (message: CacheInvalidation) => void,
    onResync?: () => void,
  ): CacheInvalidationSubscription {
    return this.#bus.subscribe(onMessage, onResync);
  }

  /**
   * Closes the connections: commands under way get their replies first
   * (each within `commandTimeout`), then the sockets are destroyed; a
   * reconnect attempt under way is waited for (at most
   * `maxReconnectDelay + connectTimeout`) so that no socket outlives it.
   * `options` bounds all of it: at the deadline the connections are
   * destroyed, commands still waiting are dropped (a cache can lose them),
   * and a reconnect attempt under way closes itself when it ends.
   *
   * @param options `signal` and/or `timeout` (milliseconds) bounding the
   * wait.
   * @returns Settles when no connection is left, or at the deadline; never
   * rejects because of it.
   * @throws {RangeError} For a negative or non-numeric `timeout`.
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    if (this.#link.disposed) return;
    const signal = deadlineSignal(options);
    this.#bus.clear();
    this.#journal.discard();
    await this.#link.dispose(signal);
  }

  /**
   * Same as {@linkcode RemoteStoreCacheProvider.dispose}, for `await using`.
   *
   * @returns Settles when no connection is left.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  /**
   * Records that the entries carrying one of `tags`, stored at or before
   * `at`, are misses from now on: one script that sets each tag's time
   * (keeping a later one), remembered for `tagRetention`.
   *
   * @param tags The tags.
   * @param at The time of the invalidation, on the clock of `storedAt`.
   * @returns Settles when recorded, or skipped during an outage (never
   * rejects).
   *
   * @example Usage
   * ```ts
   * import { RemoteStoreCacheProvider } from "@vendor/kit/caching";
   *
   * const provider = new RemoteStoreCacheProvider({ host: "127.0.0.1" });
   * await provider.invalidateTags(["products"], Date.now());
   * await provider.dispose();
   * ```
   */
  async invalidateTags(tags: string[], at: number): Promise<void> {
    if (tags.length === 0) return;
    const skipped = this.#link.skips();
    for (const tag of await this.#tags.invalidate(tags, at)) {
      if (this.#recovery.missed(this.#keys.tag(tag), skipped)) {
        this.#journal.record({ kind: "tag", tag, at });
      }
    }
  }
}
