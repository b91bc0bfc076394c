import type { IConfiguration } from "../config/mod.ts";
import { Deadlines, TIMED_OUT } from "./_deadlines.ts";
import { ErrorReporter } from "./_error_reporter.ts";
import {
  isErrorReply,
  RedisConnection,
  type RedisConnectionOptions,
} from "./_redis_connection.ts";
import type { CacheError } from "./cache_error.ts";
import type {
  CacheInvalidation,
  CacheInvalidationSubscription,
  ICacheInvalidationBus,
} from "./cache_invalidation.ts";
import type {
  CacheEntry,
  CacheListeners,
  ICacheProvider,
} from "./cache_provider.ts";
import { CacheSerializationError } from "./cache_serialization_error.ts";
import { CacheStoreError } from "./cache_store_error.ts";
import { CacheStoreUnavailableError } from "./cache_store_unavailable_error.ts";
import { CacheValueError } from "./cache_value_error.ts";

/** Options of {@linkcode RemoteStoreCacheProvider}; all times are milliseconds. */
export interface RemoteStoreCacheProviderOptions {
  /** Redis host. Default `"localhost"`. */
  host?: string;
  /** Redis port. Default 6379. */
  port?: number;
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
  /** Time allowed to open a connection. Default 5000. */
  connectTimeout?: number;
  /**
   * Time allowed for a reply before the command counts as failed (a miss or
   * a skipped write) and the store as unreachable: a server that keeps the
   * connection open but stopped answering. Default 0: no limit (a lost
   * connection is detected at once either way).
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
  /** Receives every reported error; default `console.warn` when nobody listens. */
  onError?: (error: CacheError) => void;
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

function isEntry(value: unknown): value is CacheEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return false;
  }
  const entry = value as Record<string, unknown>;
  return typeof entry.storedAt === "number" &&
    (entry.ttl === undefined || typeof entry.ttl === "number") &&
    (entry.maxStale === undefined || typeof entry.maxStale === "number");
}

function isInvalidation(value: unknown): value is CacheInvalidation {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  return typeof message.source === "string" &&
    (message.keys === undefined ||
      (Array.isArray(message.keys) &&
        message.keys.every((key) => typeof key === "string"))) &&
    (message.prefix === undefined || typeof message.prefix === "string");
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
 * - Faults never reach the caller: while Redis is unreachable, reads are
 *   misses and writes are skipped, and a single
 *   {@linkcode CacheStoreUnavailableError} is reported per outage. node-redis
 *   reconnects with exponential backoff and the provider resumes by itself.
 *   A value read back that is not a cache entry is a miss, reported as a
 *   {@linkcode CacheValueError}.
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
  readonly #connectionOptions: RedisConnectionOptions;
  readonly #reporter: ErrorReporter;
  readonly #connection: RedisConnection;
  readonly #deadlines: Deadlines | undefined;
  #subscriberConnection: RedisConnection | undefined;
  #subscribers = new Set<Subscriber>();
  #subscribed: Promise<boolean> | undefined;
  #outage = false;
  #disposed = false;

  /**
   * Creates the provider; no connection is opened before the first use.
   *
   * @param options Connection, key prefix, timing and error options.
   * @throws {RangeError} `RemoteStoreCacheProvider <option> must be an
   * integer from <min> to <max>: <value>` for a bad port, database or time.
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
    this.#address = `${host}:${port}`;
    this.#channel = options.invalidationChannel ??
      `kit:cache:invalidation:${database}:${this.#prefix}`;
    this.#reporter = new ErrorReporter(
      "RemoteStoreCacheProvider",
      options.onError,
    );
    this.#connectionOptions = {
      host,
      port,
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
    };
    const commandTimeout = checkNumber(
      "commandTimeout",
      options.commandTimeout ?? 0,
      0,
    );
    this.#deadlines = commandTimeout > 0
      ? new Deadlines(commandTimeout)
      : undefined;
    this.#connection = new RedisConnection(this.#connectionOptions, {
      onDown: (error) => this.#down(error),
      // node-redis declares a connection ready without a round trip when
      // there is no handshake (no password, database 0), even to a server
      // that is going down. The outage ends on a reply, not on "ready".
      onReady: (client) => {
        client.sendCommand(["PING"]).then(
          () => {
            this.#outage = false;
          },
          () => {},
        );
      },
    });
  }

  /**
   * Builds a provider from configuration keys `cache:redis:host`,
   * `cache:redis:port`, `cache:redis:password` (the `REDIS_HOST`,
   * `REDIS_PORT`, `REDIS_PASSWORD` variables) and, when present,
   * `cache:redis:database`, `cache:redis:keyPrefix`. Numbers may be given as
   * strings (as environment variables are).
   *
   * @param config Any configuration (a `ConfigurationManager`).
   * @param options Other options and defaults; a key present in the
   * configuration wins over the same option here.
   * @returns The provider (not yet connected).
   * @throws {RangeError} `cache:redis:<key> must be a number: <value>` for a
   * port or database that is not a number, or as the constructor.
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
    const fromConfig: RemoteStoreCacheProviderOptions = {
      host: text("host"),
      port: number("port"),
      password: text("password"),
      database: number("database"),
      keyPrefix: text("keyPrefix"),
    };
    const merged: RemoteStoreCacheProviderOptions = { ...options };
    for (const [name, value] of Object.entries(fromConfig)) {
      if (value !== undefined) {
        (merged as Record<string, unknown>)[name] = value;
      }
    }
    return new RemoteStoreCacheProvider(merged);
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

  /** `true` while the connection is up and commands are sent. */
  get isConnected(): boolean {
    return this.#connection.isReady;
  }

  /** Reported errors: unreachable store, error replies, bad values. */
  get errorOccurred(): CacheListeners<CacheError> {
    return this.#reporter.signal;
  }

  /**
   * Opens the connection now rather than on first use.
   *
   * @returns `true` once connected; `false` when the first attempt failed
   * (the failure is reported and node-redis keeps retrying). Never rejects.
   */
  async connect(): Promise<boolean> {
    return await this.#connection.ensureReady();
  }

  /**
   * Reads an entry with one `GET`.
   *
   * @param key The key, without the prefix.
   * @returns The entry; `undefined` when absent, expired, unreadable, or the
   * store is unreachable.
   */
  get(key: string): Promise<CacheEntry | undefined> {
    const fullKey = this.#prefix + key;
    const client = this.#connection.readyClient;
    if (client === undefined) {
      return this.#whenReady(() => this.get(key), undefined);
    }
    const reply = client.sendCommand(["GET", fullKey]);
    return (this.#deadlines === undefined ? reply : this.#deadlines.race(reply))
      .then(
        (value) =>
          value === TIMED_OUT
            ? this.#timedOut("GET", undefined)
            : this.#decode(fullKey, value),
        (error) => this.#failed("GET", fullKey, error, undefined),
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
    const fullKey = this.#prefix + key;
    let json: string;
    try {
      json = JSON.stringify(entry);
    } catch (error) {
      this.#reporter.report(new CacheSerializationError(fullKey, error));
      return Promise.resolve();
    }
    const keep = String(retention(entry, ttl, this.#defaultTtl));
    return this.#send(["SET", fullKey, json, "PX", keep], fullKey, undefined)
      .then(
        () => {},
      );
  }

  /**
   * Removes an entry.
   *
   * @param key The key, without the prefix.
   * @returns Settles when done, or skipped (never rejects).
   */
  async delete(key: string): Promise<void> {
    const fullKey = this.#prefix + key;
    await this.#send(["DEL", fullKey], fullKey, undefined);
  }

  /**
   * Tells whether the key exists (`EXISTS`).
   *
   * @param key The key, without the prefix.
   * @returns `true` when present; `false` also while unreachable.
   */
  async has(key: string): Promise<boolean> {
    const fullKey = this.#prefix + key;
    return (await this.#send(["EXISTS", fullKey], fullKey, 0)) === 1;
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
    const pattern = escapeGlob(this.#prefix + prefix) + "*";
    let cursor = "0";
    do {
      const reply = await this.#send(
        ["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"],
        undefined,
        undefined,
      );
      if (!Array.isArray(reply)) return;
      cursor = String(reply[0]);
      const keys = reply[1] as string[];
      if (keys.length > 0) {
        await this.#send(["UNLINK", ...keys], undefined, undefined);
      }
    } while (cursor !== "0");
  }

  /**
   * Publishes an invalidation on {@linkcode RemoteStoreCacheProvider.invalidationChannel}.
   *
   * @param message The message.
   * @returns Settles when sent, or skipped (never rejects).
   */
  async publishInvalidation(message: CacheInvalidation): Promise<void> {
    await this.#send(
      ["PUBLISH", this.#channel, JSON.stringify(message)],
      undefined,
      undefined,
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
      ready: this.#disposed ? Promise.resolve(false) : this.#subscribe(),
      unsubscribe: () => {
        this.#subscribers.delete(subscriber);
      },
    };
  }

  /**
   * Closes the connections (after any reconnect attempt under way ends).
   *
   * @returns Settles when no connection, socket or timer is left.
   */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#subscribers.clear();
    this.#deadlines?.dispose();
    await Promise.all([
      this.#connection.dispose(),
      this.#subscriberConnection?.dispose(),
    ]);
  }

  #subscribe(): Promise<boolean> {
    if (this.#subscribed !== undefined) return this.#subscribed;
    let subscribe!: (ok: boolean) => void;
    this.#subscribed = new Promise<boolean>((resolve) => (subscribe = resolve));
    let active = false;
    const connection = new RedisConnection(
      { ...this.#connectionOptions, offlineQueue: true },
      {
        onDown: (error) => this.#down(error),
        onReady: (client, afterOutage) => {
          if (!active) {
            active = true;
            client.subscribe(
              this.#channel,
              (text: string) => this.#onMessage(text),
            ).then(
              () => subscribe(true),
              (error: unknown) => {
                this.#down(error);
                subscribe(false);
              },
            );
          } else if (afterOutage) {
            for (const subscriber of [...this.#subscribers]) {
              subscriber.onResync?.();
            }
          }
        },
      },
    );
    this.#subscriberConnection = connection;
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

  #decode(fullKey: string, reply: unknown): CacheEntry | undefined {
    this.#outage = false;
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
    return parsed;
  }

  /** Runs a command; on any failure reports it and answers `fallback`. */
  #send<T>(
    args: string[],
    key: string | undefined,
    fallback: T,
  ): Promise<unknown> {
    const client = this.#connection.readyClient;
    if (client === undefined) {
      return this.#whenReady(() => this.#send(args, key, fallback), fallback);
    }
    const reply = client.sendCommand(args);
    return (this.#deadlines === undefined ? reply : this.#deadlines.race(reply))
      .then(
        (value) => {
          if (value === TIMED_OUT) return this.#timedOut(args[0], fallback);
          this.#outage = false;
          return value;
        },
        (error) => this.#failed(args[0], key, error, fallback),
      );
  }

  async #whenReady<T>(
    run: () => Promise<T>,
    fallback: T,
  ): Promise<T> {
    if (this.#disposed) return fallback;
    const ready = await this.#connection.ensureReady();
    return ready && this.#connection.isReady ? run() : fallback;
  }

  #failed<T>(
    command: string,
    key: string | undefined,
    error: unknown,
    fallback: T,
  ): T {
    if (this.#disposed) return fallback;
    if (isErrorReply(error)) {
      if (
        command === "GET" && key !== undefined &&
        /^WRONGTYPE/.test((error as Error).message)
      ) {
        this.#reporter.report(
          new CacheValueError(key, "not a string key", error),
        );
      } else {
        this.#reporter.report(new CacheStoreError(command, key, error));
      }
    } else {
      this.#down(error);
    }
    return fallback;
  }

  #timedOut<T>(command: string, fallback: T): T {
    const timeout = this.#deadlines?.timeout ?? 0;
    this.#down(new Error(`${command} got no reply within ${timeout}ms`));
    return fallback;
  }

  #down(error: unknown): void {
    if (this.#disposed || this.#outage) return;
    this.#outage = true;
    this.#reporter.report(new CacheStoreUnavailableError(this.#address, error));
  }
}
