// Longer than the other files on purpose: this is one public class, the
// cache's commands on Redis (read, write, lock, clear, tags, pub/sub), and a
// third of it is the JSDoc of its options and methods. Whether the store
// answers lives in _store_connection_state.ts, what happens to the changes
// of an outage in _outage_recovery.ts and _outage_journal.ts.

import {
  type IConfiguration,
  kitConfigurationSections,
} from "../config/mod.ts";
import {
  type Clock,
  deadlineSignal,
  type DisposeOptions,
  systemClock,
} from "../core/mod.ts";
import { clockOption } from "./_clock.ts";
import type { HealthCheckResult } from "../platform/mod.ts";
import { TIMED_OUT } from "./_deadlines.ts";
import { diagnosticsFromEnv } from "./_diagnostics.ts";
import { ErrorReporter } from "./_error_reporter.ts";
import type { RedisLinkOptions } from "./_redis_link.ts";
import { keySlot, slotTag } from "./_redis_slots.ts";
import {
  checkTopology,
  createLink,
  describeTopology,
  type RedisTopology,
} from "./_redis_topology.ts";
import type { CacheError } from "./cache_error.ts";
import type {
  CacheInvalidation,
  CacheInvalidationSubscription,
  ICacheInvalidationBus,
} from "./cache_invalidation.ts";
import type {
  CacheEntry,
  CacheListeners,
  CacheLockAttempt,
  CacheReadOrLock,
  ICacheProvider,
} from "./cache_provider.ts";
import {
  lockKey,
  lockToken,
  READ_OR_LOCK_SCRIPT,
  RELEASE_SCRIPT,
} from "./_redis_lock.ts";
import {
  decodeTag,
  encodeTag,
  INVALIDATE_SCRIPT,
  invalidatedSince,
  READ_SCRIPT,
  tagKeyPrefix,
} from "./_redis_tags.ts";
import { CacheSerializationError } from "./cache_serialization_error.ts";
import { CacheStoreUnavailableError } from "./cache_store_unavailable_error.ts";
import { CacheValueError } from "./cache_value_error.ts";
import { OutageJournal } from "./_outage_journal.ts";
import { OutageRecovery } from "./_outage_recovery.ts";
import { StoreConnectionState } from "./_store_connection_state.ts";

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

function checkNumber(
  name: string,
  value: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  integer = true,
): number {
  if (
    typeof value !== "number" || !(value >= min) || !(value <= max) ||
    (integer && !Number.isInteger(value))
  ) {
    throw new RangeError(
      `RemoteStoreCacheProvider ${name} must be ${
        integer ? "an integer" : "a number"
      } from ${min} to ${max}: ${value}`,
    );
  }
  return value;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

/** What a command answers when the store did not. */
const UNANSWERED: unique symbol = Symbol("unanswered");

function isEntry(value: unknown): value is CacheEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return false;
  }
  const entry = value as Record<string, unknown>;
  return typeof entry.storedAt === "number" &&
    (entry.ttl === undefined || typeof entry.ttl === "number") &&
    (entry.maxStale === undefined || typeof entry.maxStale === "number") &&
    (entry.tags === undefined ||
      (Array.isArray(entry.tags) &&
        entry.tags.every((tag) => typeof tag === "string")));
}

function isInvalidation(value: unknown): value is CacheInvalidation {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  return typeof message.source === "string" &&
    (message.keys === undefined ||
      (Array.isArray(message.keys) &&
        message.keys.every((key) => typeof key === "string"))) &&
    (message.prefix === undefined || typeof message.prefix === "string") &&
    (message.tags === undefined ||
      (Array.isArray(message.tags) &&
        message.tags.every((tag) => typeof tag === "string"))) &&
    (message.at === undefined || typeof message.at === "number");
}

function retention(
  entry: CacheEntry,
  ttl: number | undefined,
  fallback: number,
): number {
  const keep = ttl ??
    (entry.ttl === undefined ? fallback : entry.ttl + (entry.maxStale ?? 0));
  return keep >= 1 ? Math.ceil(keep) : 1;
}

interface Subscriber {
  onMessage(message: CacheInvalidation): void;
  onResync?: () => void;
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
 *   its first reply reports a {@linkcode CacheStoreRecovered}. A value read
 *   back that is not a cache entry is a miss, reported as a
 *   {@linkcode CacheValueError}.
 * - Writes, deletes, clears, tag invalidations and messages skipped during an
 *   outage are kept in a bounded journal (`outageJournalSize`) and re-sent
 *   after the recovery, a write only over an older entry of its key (last
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
  readonly #prefix: string;
  readonly #defaultTtl: number;
  readonly #channel: string;
  readonly #address: string;
  readonly #topology: RedisTopology;
  readonly #hashTag: boolean;
  readonly #connectionOptions: RedisLinkOptions;
  readonly #reporter: ErrorReporter;
  readonly #required: boolean;
  readonly #tagRetention: number;
  readonly #journal: OutageJournal;
  /** Now, on the clock of the entries' `storedAt`. */
  readonly #now: () => number;
  /** Holds back the changes of an outage and re-sends them after it. */
  readonly #recovery: OutageRecovery;
  #subscribers = new Set<Subscriber>();
  #subscribed: Promise<boolean> | undefined;
  /** Whether the store answers, and the sending of commands. */
  readonly #link: StoreConnectionState;

  /**
   * Creates the provider; no connection is opened before the first use.
   *
   * @param options Connection, key prefix, timing and error options.
   * @throws {RangeError} `RemoteStoreCacheProvider <option> must be an
   * integer from <min> to <max>: <value>` for a bad port, database or time;
   * for a malformed `cluster.nodes` or `sentinel.nodes` (naming the entry),
   * an empty `sentinel.name`, both `cluster` and `sentinel`, or, on a
   * cluster, a database other than 0 or a key prefix with an unclosed `{`.
   */
  constructor(options: RemoteStoreCacheProviderOptions = {}) {
    const host = options.host ?? "localhost";
    const port = checkNumber("port", options.port ?? 6379, 1, 65535);
    const database = checkNumber("database", options.database ?? 0, 0);
    this.#prefix = options.keyPrefix ?? "kit:cache:";
    this.#defaultTtl = checkNumber(
      "defaultTtl",
      options.defaultTtl ?? 300_000,
      1,
      Number.MAX_SAFE_INTEGER,
      false,
    );
    this.#topology = checkTopology({
      host,
      port,
      database,
      keyPrefix: this.#prefix,
      cluster: options.cluster,
      sentinel: options.sentinel,
    });
    this.#address = describeTopology(this.#topology);
    const hashTag = options.hashTag ?? false;
    if (typeof hashTag !== "boolean") {
      throw new RangeError(
        `RemoteStoreCacheProvider hashTag must be a boolean: ${hashTag}`,
      );
    }
    this.#hashTag = hashTag;
    this.#tagRetention = checkNumber(
      "tagRetention",
      options.tagRetention ?? 604_800_000,
      1,
    );
    const required = options.required ?? false;
    if (typeof required !== "boolean") {
      throw new RangeError(
        `RemoteStoreCacheProvider required must be a boolean: ${required}`,
      );
    }
    this.#required = required;
    const journalSize = checkNumber(
      "outageJournalSize",
      options.outageJournalSize ?? 1000,
      0,
    );
    this.#journal = new OutageJournal(journalSize);
    const clock = clockOption("RemoteStoreCacheProvider", options.clock) ??
      systemClock;
    this.#now = () => clock.now();
    this.#channel = options.invalidationChannel ??
      `kit:cache:invalidation:${database}:${this.#prefix}`;
    this.#reporter = new ErrorReporter(
      "RemoteStoreCacheProvider",
      options.onError,
    );
    this.#connectionOptions = {
      username: options.username,
      password: options.password,
      database,
      connectTimeout: checkNumber(
        "connectTimeout",
        options.connectTimeout ?? 5000,
        1,
      ),
      reconnectDelay: checkNumber(
        "reconnectDelay",
        options.reconnectDelay ?? 100,
        1,
      ),
      maxReconnectDelay: checkNumber(
        "maxReconnectDelay",
        options.maxReconnectDelay ?? 2000,
        1,
      ),
      offlineQueue: false,
      // Read once here, never per command.
      diagnostics: diagnosticsFromEnv(),
      name: "cache",
    };
    this.#link = new StoreConnectionState({
      topology: this.#topology,
      address: this.#address,
      connectionOptions: this.#connectionOptions,
      reporter: this.#reporter,
      commandTimeout: checkNumber(
        "commandTimeout",
        options.commandTimeout ?? 1000,
        1,
      ),
      onUp: () => this.#recovery.recovered(),
    });
    this.#recovery = new OutageRecovery({
      now: this.#now,
      journal: this.#journal,
      journalSize,
      link: this.#link,
      reporter: this.#reporter,
      address: this.#address,
      diagnostics: this.#connectionOptions.diagnostics,
      send: async (args, key) =>
        (await this.#link.send(args, key, UNANSWERED)) !== UNANSWERED,
      clear: (prefix) => this.#clear(prefix),
      publish: async (message) => (await this.#publish(message)) !== UNANSWERED,
      fullKey: (key) => this.#fullKey(key),
      tagKey: (tag) => tagKeyPrefix(this.#prefix) + encodeTag(tag),
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
   * @throws {RangeError} `cache:redis:<key> must be a number: <value>` for a
   * port or database that is not a number, `cache:redis:required must be
   * true or false: <value>`, a sentinel name without nodes (or the
   * reverse), or as the constructor.
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
    const read = (name: string): unknown => {
      const key = `cache:redis:${name}`;
      return config.hasValue(key) ? config.getValue<unknown>(key) : undefined;
    };
    const text = (name: string): string | undefined => {
      const value = read(name);
      return value === undefined || value === null || value === ""
        ? undefined
        : String(value);
    };
    const number = (name: string): number | undefined => {
      const value = text(name);
      if (value === undefined) return undefined;
      const parsed = Number(value);
      if (value.trim() === "" || !Number.isFinite(parsed)) {
        throw new RangeError(`cache:redis:${name} must be a number: ${value}`);
      }
      return parsed;
    };
    const flag = (name: string): boolean | undefined => {
      const value = read(name);
      if (value === undefined || value === null || value === "") {
        return undefined;
      }
      if (typeof value === "boolean") return value;
      const word = String(value).trim().toLowerCase();
      if (word === "true") return true;
      if (word === "false") return false;
      throw new RangeError(
        `cache:redis:${name} must be true or false: ${String(value)}`,
      );
    };
    // The keys read and their types are the configuration's declaration of
    // the `cache:redis` section, the one appConfigSchema checks by.
    const fromConfig: Record<string, unknown> = {};
    for (
      const [name, declared] of Object.entries(
        kitConfigurationSections.cache.redis,
      )
    ) {
      if (!("type" in declared)) continue; // cluster, sentinel: below
      fromConfig[name] = declared.type === "integer"
        ? number(name)
        : declared.type === "boolean"
        ? flag(name)
        : text(name);
    }
    // A node list given as an array (a JSON file) or comma-separated (a
    // variable).
    const nodes = (name: string): unknown => {
      const value = read(name);
      if (Array.isArray(value)) return value.map(String);
      return text(name);
    };
    const clusterNodes = nodes("cluster:nodes");
    if (clusterNodes !== undefined) {
      fromConfig.cluster = { nodes: clusterNodes };
    }
    const sentinelNodes = nodes("sentinel:nodes");
    const sentinelName = text("sentinel:name");
    if (sentinelNodes !== undefined || sentinelName !== undefined) {
      if (sentinelNodes === undefined || sentinelName === undefined) {
        throw new RangeError(
          `cache:redis:sentinel:name and cache:redis:sentinel:nodes go together (REDIS_SENTINEL_NAME, REDIS_SENTINELS): only ${
            sentinelName === undefined ? "the nodes are" : "the name is"
          } set`,
        );
      }
      fromConfig.sentinel = {
        name: sentinelName,
        nodes: sentinelNodes,
        password: text("sentinel:password"),
      };
    }
    if (options.cluster !== undefined || options.sentinel !== undefined) {
      // A topology given in code wins whole.
      delete fromConfig.cluster;
      delete fromConfig.sentinel;
    }
    const merged: Record<string, unknown> = { ...options };
    for (const [name, value] of Object.entries(fromConfig)) {
      if (merged[name] === undefined && value !== undefined) {
        merged[name] = value;
      }
    }
    return new RemoteStoreCacheProvider(
      merged as RemoteStoreCacheProviderOptions,
    );
  }

  /** The prefix prepended to every key. */
  get keyPrefix(): string {
    return this.#prefix;
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
   * are sent; `false` before the first reply and during an outage.
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
   * reason and what to do in `detail` (never the password).
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
    const fullKey = this.#fullKey(key);
    if (this.#link.offline) {
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
            : this.#checkTags(this.#decode(fullKey, pending)),
        );
      }
    }
    const client = this.#link.readyClient;
    if (client === undefined) {
      return this.#link.whenReady(() => this.get(key, tagged), undefined);
    }
    if (tagged === true && !client.cluster) {
      const command = [
        "EVAL",
        READ_SCRIPT,
        "1",
        fullKey,
        tagKeyPrefix(this.#prefix),
      ];
      return this.#link.race(client.send(command, fullKey))
        .then(
          (reply) => {
            if (reply === TIMED_OUT) {
              return this.#link.timedOut("EVAL", undefined);
            }
            if (!Array.isArray(reply)) return this.#decode(fullKey, reply);
            const entry = this.#decode(fullKey, reply[0]);
            return entry !== undefined &&
                invalidatedSince(reply.slice(1), entry.storedAt)
              ? undefined
              : entry;
          },
          (error) => this.#link.failed("EVAL", fullKey, error, undefined),
        );
    }
    return this.#link.race(client.send(["GET", fullKey], fullKey))
      .then(
        (value) =>
          value === TIMED_OUT
            ? this.#link.timedOut("GET", undefined)
            : this.#checkTags(this.#decode(fullKey, value)),
        (error) => this.#link.failed("GET", fullKey, error, undefined),
      );
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
    const fullKey = this.#fullKey(key);
    let json: string;
    try {
      // Tags first and encoded: the read script finds them by position.
      if (entry.tags === undefined) json = JSON.stringify(entry);
      else {
        const { tags, ...rest } = entry;
        json = JSON.stringify({ tags: tags.map(encodeTag), ...rest });
      }
    } catch (error) {
      this.#reporter.report(new CacheSerializationError(fullKey, error));
      return Promise.resolve();
    }
    let kept = retention(entry, ttl, this.#defaultTtl);
    if (entry.tags !== undefined && kept > this.#tagRetention) {
      kept = this.#tagRetention;
    }
    const keep = String(kept);
    return this.#link.send(
      ["SET", fullKey, json, "PX", keep],
      fullKey,
      UNANSWERED,
    )
      .then((reply) => {
        if (reply !== UNANSWERED) {
          if (this.#journal.size > 0) this.#journal.settle(key);
        } else if (this.#recovery.missed()) {
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
    const fullKey = this.#fullKey(key);
    const at = this.#now();
    const reply = await this.#link.send(["DEL", fullKey], fullKey, UNANSWERED);
    if (reply !== UNANSWERED) {
      if (this.#journal.size > 0) this.#journal.settle(key);
    } else if (this.#recovery.missed()) {
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
    const fullKey = this.#fullKey(key);
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
    if (!(await this.#clear(prefix)) && this.#recovery.missed()) {
      this.#journal.record({ kind: "clear", prefix, at });
    }
  }

  /** Answers `false` when the store could not finish it. */
  async #clear(prefix: string): Promise<boolean> {
    const client = await this.#link.commands();
    if (client === undefined) return false;
    let primaries: Array<(args: string[]) => Promise<unknown>>;
    try {
      // Bounded like a command: a cluster node being reached may never answer.
      const listed = await this.#link.race(client.primaries());
      if (listed === TIMED_OUT) return this.#link.timedOut("SCAN", false);
      primaries = listed;
    } catch (error) {
      this.#link.failed("SCAN", undefined, error, undefined);
      return false;
    }
    // On a cluster every primary holds its own share of the keys.
    const done = await Promise.all(
      primaries.map((primary) =>
        Promise.all(
          this.#clearPatterns(prefix).map((pattern) =>
            this.#clearOn(primary, pattern, client.cluster)
          ),
        )
      ),
    );
    return done.every((each) => each.every(Boolean));
  }

  /** The SCAN patterns of the keys under `keyPrefix + prefix`. */
  #clearPatterns(prefix: string): string[] {
    if (!this.#hashTag || prefix === "") {
      return [escapeGlob(this.#fullKey(prefix)) + "*"];
    }
    if (prefix.includes(":")) return [escapeGlob(this.#fullKey(prefix)) + "*"];
    // Without ":" the prefix may start a root key or an area's name.
    return [
      escapeGlob(this.#prefix + prefix) + "*",
      escapeGlob(this.#prefix + "{" + prefix) + "*",
    ];
  }

  /** Answers `false` when the node could not finish it. */
  async #clearOn(
    primary: (args: string[]) => Promise<unknown>,
    pattern: string,
    cluster: boolean,
  ): Promise<boolean> {
    let cursor = "0";
    do {
      const reply = await this.#link.sendVia(
        primary,
        ["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"],
        UNANSWERED,
      );
      if (reply === UNANSWERED) return false;
      if (!Array.isArray(reply)) return true;
      cursor = String(reply[0]);
      const keys = reply[1] as string[];
      if (keys.length === 0) continue;
      if (!cluster) {
        const removed = await this.#link.sendVia(
          primary,
          ["UNLINK", ...keys],
          UNANSWERED,
        );
        if (removed === UNANSWERED) return false;
        continue;
      }
      // A cluster node refuses a command whose keys span slots.
      const bySlot = new Map<number, string[]>();
      for (const key of keys) {
        const slot = keySlot(key);
        const group = bySlot.get(slot);
        if (group === undefined) bySlot.set(slot, [key]);
        else group.push(key);
      }
      const removed = await Promise.all(
        [...bySlot.values()].map((group) =>
          this.#link.sendVia(primary, ["UNLINK", ...group], UNANSWERED)
        ),
      );
      if (removed.includes(UNANSWERED)) return false;
    } while (cursor !== "0");
    return true;
  }

  /**
   * The Redis key of a cache key: under the prefix and, with `hashTag`, the
   * area name (the text before the first `:`) as a hash tag.
   */
  #fullKey(key: string): string {
    if (!this.#hashTag) return this.#prefix + key;
    const colon = key.indexOf(":");
    return colon <= 0
      ? this.#prefix + key
      : `${this.#prefix}{${key.slice(0, colon)}}${key.slice(colon)}`;
  }

  /**
   * The lock key of a cache key. On a cluster it carries a hash tag of the
   * entry's slot, so that one script can read the entry and take the lock.
   */
  #lockKey(key: string, fullKey: string, cluster: boolean): string {
    if (!cluster) return lockKey(this.#prefix, key);
    return lockKey(this.#prefix, `{${slotTag(keySlot(fullKey))}}${key}`);
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
    const fullKey = this.#lockKey(
      key,
      this.#fullKey(key),
      this.#topology.kind === "cluster",
    );
    const token = lockToken();
    const reply = await this.#link.send(
      ["SET", fullKey, token, "NX", "PX", String(Math.max(1, Math.ceil(ttl)))],
      fullKey,
      UNANSWERED,
    );
    if (reply === UNANSWERED) return { acquired: false, held: false };
    if (reply !== "OK") return { acquired: false, held: true };
    return this.#acquired(fullKey, token);
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
    const fullKey = this.#fullKey(key);
    if (this.#journal.size > 0 && this.#journal.lookup(key) !== undefined) {
      // A change of this key is being re-sent after an outage: it wins over
      // what the store still holds, as for get().
      const entry = await this.get(key);
      return entry === undefined
        ? { entry, lock: await this.tryLock(key, ttl) }
        : { entry };
    }
    const cluster = this.#topology.kind === "cluster";
    const lockFullKey = this.#lockKey(key, fullKey, cluster);
    const token = lockToken();
    const reply = await this.#link.send(
      [
        "EVAL",
        READ_OR_LOCK_SCRIPT,
        "2",
        fullKey,
        lockFullKey,
        // On a cluster the tag keys live in other slots: read apart.
        cluster ? "" : tagKeyPrefix(this.#prefix),
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
      return { entry: undefined, lock: this.#acquired(lockFullKey, token) };
    }
    if (state === 0) {
      return { entry: undefined, lock: { acquired: false, held: true } };
    }
    const entry = this.#decode(fullKey, reply[0]);
    if (cluster) return { entry: await this.#checkTags(entry) };
    return {
      entry: entry !== undefined &&
          invalidatedSince(reply.slice(2), entry.storedAt)
        ? undefined
        : entry,
    };
  }

  #acquired(lockFullKey: string, token: string): CacheLockAttempt {
    return {
      acquired: true,
      release: async () => {
        await this.#link.send(
          ["EVAL", RELEASE_SCRIPT, "1", lockFullKey, token],
          lockFullKey,
          undefined,
        );
      },
    };
  }

  /**
   * Publishes an invalidation on {@linkcode RemoteStoreCacheProvider.invalidationChannel}.
   *
   * @param message The message.
   * @returns Settles when sent, or skipped (never rejects).
   */
  async publishInvalidation(message: CacheInvalidation): Promise<void> {
    const reply = await this.#publish(message);
    if (reply === UNANSWERED && this.#recovery.missed()) {
      this.#recovery.holdMessage(message);
    }
  }

  /** Publishes on the channel; answers `UNANSWERED` when it did not go out. */
  async #publish(message: CacheInvalidation): Promise<unknown> {
    const client = await this.#link.commands();
    if (client === undefined) return UNANSWERED;
    // Through the client's own publish: a cluster routes it to a node itself.
    return await this.#link.sendVia(
      (args) => client.publish(args[1], args[2]),
      ["PUBLISH", this.#channel, JSON.stringify(message)],
      UNANSWERED,
    );
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
    const subscriber: Subscriber = { onMessage, onResync };
    this.#subscribers.add(subscriber);
    return {
      ready: this.#link.disposed ? Promise.resolve(false) : this.#subscribe(),
      unsubscribe: () => {
        this.#subscribers.delete(subscriber);
      },
    };
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
    this.#subscribers.clear();
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

  #subscribe(): Promise<boolean> {
    if (this.#subscribed !== undefined) return this.#subscribed;
    let subscribe!: (ok: boolean) => void;
    this.#subscribed = new Promise<boolean>((resolve) => (subscribe = resolve));
    // node-redis resubscribes by itself when it reconnects a client; a new
    // client (after a silent handshake was given up) must subscribe anew.
    let subscribedClient: unknown;
    const connection = createLink(
      this.#topology,
      { ...this.#connectionOptions, offlineQueue: true, name: "cache pub/sub" },
      {
        onDown: (error) => this.#link.down(error),
        onReady: (client, afterOutage) => {
          if (client !== subscribedClient) {
            subscribedClient = client;
            // Bounded like any command: a silent server must not leave
            // connect() of the tiered provider pending.
            this.#link.deadlines.race(client.subscribe(
              this.#channel,
              (text: string) => this.#onMessage(text),
            )).then(
              (value) => {
                if (value === TIMED_OUT) {
                  this.#link.timedOut("SUBSCRIBE", false);
                }
                subscribe(value !== TIMED_OUT);
              },
              (error: unknown) => {
                this.#link.down(error);
                subscribe(false);
              },
            );
          }
          if (afterOutage) {
            for (const subscriber of [...this.#subscribers]) {
              subscriber.onResync?.();
            }
          }
          if (this.#link.state === "down") void this.#link.probe();
        },
      },
    );
    this.#link.attachSubscriber(connection);
    const first = connection.ensureReady();
    if (first !== true) {
      Promise.resolve(first).then((ok) => {
        if (!ok) subscribe(false);
      });
    }
    return this.#subscribed;
  }

  #onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // Not ours: ignore.
    }
    if (!isInvalidation(message)) return;
    for (const subscriber of [...this.#subscribers]) {
      try {
        subscriber.onMessage(message);
      } catch (error) {
        console.error(
          "RemoteStoreCacheProvider: an invalidation handler threw:",
          error,
        );
      }
    }
  }

  /**
   * A tagged entry is a miss when one of its tags was invalidated at or
   * after it was stored (one MGET of the tags' times); the times cannot be
   * read, it is a miss too.
   */
  #checkTags(
    entry: CacheEntry | undefined,
  ): CacheEntry | undefined | Promise<CacheEntry | undefined> {
    if (entry === undefined || entry.tags === undefined) return entry;
    if (entry.tags.length === 0) return entry;
    const prefix = tagKeyPrefix(this.#prefix);
    const keys = entry.tags.map((tag) => prefix + encodeTag(tag));
    // On a cluster each tag key is in its own slot: one GET each, at once.
    const times = this.#topology.kind === "cluster"
      ? Promise.all(
        keys.map((key) => this.#link.send(["GET", key], key, UNANSWERED)),
      ).then((replies) => replies.includes(UNANSWERED) ? UNANSWERED : replies)
      : this.#link.send(["MGET", ...keys], undefined, UNANSWERED);
    return times.then(
      (times) =>
        !Array.isArray(times) || invalidatedSince(times, entry.storedAt)
          ? undefined
          : entry,
    );
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
    const prefix = tagKeyPrefix(this.#prefix);
    const keys = tags.map((tag) => prefix + encodeTag(tag));
    // On a cluster one script per slot (in parallel: still one round trip).
    const groups = new Map<number, string[]>();
    for (const key of keys) {
      const slot = this.#topology.kind === "cluster" ? keySlot(key) : 0;
      const group = groups.get(slot);
      if (group === undefined) groups.set(slot, [key]);
      else group.push(key);
    }
    const replies = await Promise.all(
      [...groups.values()].map((group) =>
        this.#link.send(
          [
            "EVAL",
            INVALIDATE_SCRIPT,
            String(group.length),
            ...group,
            String(at),
            String(this.#tagRetention),
          ],
          group[0],
          UNANSWERED,
        )
      ),
    );
    if (replies.includes(UNANSWERED) && this.#recovery.missed()) {
      for (const tag of tags) this.#journal.record({ kind: "tag", tag, at });
    }
  }

  #decode(fullKey: string, reply: unknown): CacheEntry | undefined {
    this.#link.answered();
    if (reply === null || reply === undefined) return undefined;
    if (typeof reply !== "string") {
      this.#reporter.report(new CacheValueError(fullKey, "not a string"));
      return undefined;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply);
    } catch (error) {
      this.#reporter.report(new CacheValueError(fullKey, "not JSON", error));
      return undefined;
    }
    if (!isEntry(parsed)) {
      this.#reporter.report(new CacheValueError(fullKey, "not a cache entry"));
      return undefined;
    }
    if (parsed.tags !== undefined) parsed.tags = parsed.tags.map(decodeTag);
    return parsed;
  }
}
