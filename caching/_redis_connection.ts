// One node-redis connection with the life cycle the Redis provider needs:
// lazy connect, outage detection, reconnection with backoff, and a dispose
// that leaves no socket or timer behind even in the middle of a reconnect.
//
// node-redis (and through it node:net) is loaded with a dynamic import on
// the first connection, so that bundling caching/mod.ts for a browser never
// pulls it in statically.
import type * as Redis from "redis";
import { type TimerHandle, unrefTimer } from "../core/mod.ts";
import { loadDriver } from "./_redis_driver.ts";

export type RedisClient = ReturnType<typeof Redis.createClient>;

export interface RedisConnectionOptions {
  host: string;
  port: number;
  username?: string;
  password?: string;
  database: number;
  connectTimeout: number;
  reconnectDelay: number;
  maxReconnectDelay: number;
  /** Queue commands while disconnected (pub/sub connection) or fail fast. */
  offlineQueue: boolean;
}

export interface RedisConnectionEvents {
  /** A connection-level failure (refused, lost, auth, timeout). */
  onDown(error: unknown): void;
  /** The connection is ready; `afterOutage` when it had failed before. */
  onReady(client: RedisClient, afterOutage: boolean): void;
}

/** `true` for an error reply of the server (`ERR`, `WRONGTYPE`, `OOM`…). */
export function isErrorReply(error: unknown): boolean {
  let proto = typeof error === "object" && error !== null
    ? Object.getPrototypeOf(error)
    : null;
  while (proto !== null && proto !== Error.prototype) {
    if (proto.constructor?.name === "ErrorReply") return true;
    proto = Object.getPrototypeOf(proto);
  }
  return false;
}

export class RedisConnection {
  /** The node-redis client, once the first connection has started. */
  client: RedisClient | undefined;
  readonly #options: RedisConnectionOptions;
  readonly #events: RedisConnectionEvents;
  #started = false;
  #disposed = false;
  #failedSinceReady = false;
  #firstAttempt: ((ready: boolean) => void) | undefined;
  #firstAttemptPromise: Promise<boolean> | undefined;
  #settle: (() => void) | undefined;

  constructor(options: RedisConnectionOptions, events: RedisConnectionEvents) {
    this.#options = options;
    this.#events = events;
  }

  get isReady(): boolean {
    return this.client?.isReady ?? false;
  }

  /** The client when commands can be sent now, else `undefined`. */
  get readyClient(): RedisClient | undefined {
    const client = this.client;
    return client !== undefined && client.isReady ? client : undefined;
  }

  /**
   * `true` when commands can be sent now; otherwise starts the first
   * connection if needed and settles once its first attempt is over. While
   * an outage lasts (node-redis reconnecting) it answers `false` at once.
   */
  ensureReady(): boolean | Promise<boolean> {
    if (this.client?.isReady) return true;
    if (this.#disposed) return false;
    if (!this.#started) this.#start();
    return this.#firstAttemptPromise ?? false;
  }

  #start(): void {
    this.#started = true;
    this.#firstAttemptPromise = new Promise<boolean>((resolve) => {
      this.#firstAttempt = resolve;
    });
    loadDriver().then(
      (redis) => this.#open(redis),
      (error: unknown) => this.#onError(error),
    );
  }

  #open(redis: typeof Redis): void {
    if (this.#disposed) return;
    const options = this.#options;
    const client = redis.createClient({
      socket: {
        host: options.host,
        port: options.port,
        connectTimeout: options.connectTimeout,
        reconnectStrategy: (retries: number) => this.#retryDelay(retries),
      },
      username: options.username,
      password: options.password,
      database: options.database,
      disableOfflineQueue: !options.offlineQueue,
      disableClientInfo: true,
    });
    this.client = client;
    client.on("error", (error: unknown) => this.#onError(error));
    client.on("ready", () => this.#onReady(client));
    // Failures arrive through the "error" event; connect() itself only
    // rejects once the reconnect strategy gives up (on dispose).
    client.connect().catch(() => {});
  }

  #endFirstAttempt(ready: boolean): void {
    const resolve = this.#firstAttempt;
    if (resolve === undefined) return;
    this.#firstAttempt = undefined;
    this.#firstAttemptPromise = undefined;
    resolve(ready);
  }

  #retryDelay(retries: number): number | false {
    if (this.#disposed) {
      // Give up: node-redis closes the client and leaves no socket behind.
      queueMicrotask(() => this.#settle?.());
      return false;
    }
    const { reconnectDelay, maxReconnectDelay } = this.#options;
    const base = Math.min(
      reconnectDelay * 2 ** Math.min(retries, 30),
      maxReconnectDelay,
    );
    // "Equal jitter": half fixed, half random, so instances do not reconnect
    // in lockstep after a restart.
    return Math.round(base / 2 + Math.random() * (base / 2));
  }

  #onError(error: unknown): void {
    if (this.#disposed) return;
    this.#endFirstAttempt(false);
    this.#failedSinceReady = true;
    this.#events.onDown(error);
  }

  #onReady(client: RedisClient): void {
    if (this.#disposed) {
      // A reconnect finished after dispose() began: close it right away.
      this.#destroy();
      this.#settle?.();
      return;
    }
    const afterOutage = this.#failedSinceReady;
    this.#failedSinceReady = false;
    this.#endFirstAttempt(true);
    this.#events.onReady(client, afterOutage);
  }

  #destroy(): void {
    try {
      this.client?.destroy();
    } catch {
      // Already closed.
    }
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#endFirstAttempt(false);
    const client = this.client;
    if (client === undefined || !client.isOpen) return;
    if (client.isReady) {
      this.#destroy();
      return;
    }
    // node-redis is between reconnect attempts: its delay timer cannot be
    // cancelled, and a socket it is opening would outlive destroy(). Wait
    // for the attempt to end: it either connects (closed in #onReady) or
    // fails (the strategy then answers false and node-redis gives up).
    const { maxReconnectDelay, connectTimeout } = this.#options;
    let guard: TimerHandle | undefined;
    await new Promise<void>((resolve) => {
      this.#settle = resolve;
      guard = unrefTimer(
        setTimeout(resolve, maxReconnectDelay + connectTimeout + 1000),
      );
    });
    clearTimeout(guard);
    this.#settle = undefined;
  }
}
