// One node-redis connection with the life cycle the Redis provider needs:
// lazy connect, outage detection, reconnection with backoff, a bounded
// handshake, and a dispose that leaves no socket or timer behind even in the
// middle of a reconnect.
//
// node-redis (and through it node:net) is loaded with a dynamic import on
// the first connection, so that bundling caching/mod.ts for a browser never
// pulls it in statically.
import type * as Redis from "redis";
import type { TimerHandle } from "../../internal/timer_handle.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { RedisTimeoutError, settleWithin } from "./_deadlines.ts";
import { describeError } from "../_diagnostics.ts";
import { loadRedisDriver } from "#caching/redis/redis_driver";
import {
  backoff,
  type RedisCommands,
  type RedisLink,
  type RedisLinkEvents,
  type RedisLinkOptions,
} from "./_redis_link.ts";
import { RequestContext } from "../../platform/mod.ts";

export type RedisClient = ReturnType<typeof Redis.createClient>;

export interface RedisConnectionOptions extends RedisLinkOptions {
  host: string;
  port: number;
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

/** The commands of one node-redis client (one server, no routing). */
export function singleNodeCommands(
  client: RedisClient,
  address: string,
): RedisCommands {
  return {
    cluster: false,
    send: (args) => client.sendCommand(args),
    primaries: () =>
      Promise.resolve([{
        address,
        send: (args: string[]) => client.sendCommand(args),
      }]),
    subscribe: (channel, listener) => client.subscribe(channel, listener),
    ping: () => client.sendCommand(["PING"]),
    topology: () => ({ topology: "single", address }),
  };
}

export class RedisConnection implements RedisLink {
  /** The node-redis client of the current attempt, once started. */
  client: RedisClient | undefined;
  #commands: RedisCommands | undefined;
  readonly #options: RedisConnectionOptions;
  readonly #events: RedisLinkEvents;
  #redis: typeof Redis | undefined;
  #started = false;
  #disposed = false;
  #failedSinceReady = false;
  #firstAttempt: ((ready: boolean) => void) | undefined;
  #firstAttemptPromise: Promise<boolean> | undefined;
  #settle: (() => void) | undefined;
  /** When the current attempt (TCP connection + handshake) began. */
  #attemptStart = 0;
  /** Connected, handshake (AUTH, SELECT) under way. */
  #handshaking = false;
  #handshakeTimer: TimerHandle | undefined;
  #reopenTimer: TimerHandle | undefined;
  /** Clients given up on a silent handshake since the last ready. */
  #abandoned = 0;
  /** Ready since the last failure (for "lost" versus "failed" lines). */
  #up = false;
  /**
   * A ready connection was just lost: node-redis retries at once, without
   * the delay its reconnect strategy answers.
   */
  #lostNow = false;
  /** Reconnect attempts since the last ready (diagnostics only). */
  #attempts = 0;

  constructor(options: RedisConnectionOptions, events: RedisLinkEvents) {
    this.#options = options;
    this.#events = events;
  }

  get isReady(): boolean {
    return this.client?.isReady ?? false;
  }

  /** The client when commands can be sent now, else `undefined`. */
  get readyClient(): RedisCommands | undefined {
    const client = this.client;
    return client !== undefined && client.isReady ? this.#commands : undefined;
  }

  /**
   * `true` when commands can be sent now; otherwise starts the first
   * connection if needed and settles once its first attempt is over (within
   * `connectTimeout`). While an outage lasts (reconnecting) it answers
   * `false` at once.
   */
  ensureReady(): boolean | Promise<boolean> {
    if (this.client?.isReady) return true;
    if (this.#disposed) return false;
    // The connection outlives the request that opens it: its events, timers
    // and reports must not carry that request's id or span.
    if (!this.#started) RequestContext.detach(() => this.#start());
    return this.#firstAttemptPromise ?? false;
  }

  /** Writes a diagnostic line, the password masked, when enabled. */
  #diagnose(message: string): void {
    const { diagnostics, password, name = "cache" } = this.#options;
    if (diagnostics === undefined) return;
    const text = password !== undefined && password !== ""
      ? message.split(password).join("***")
      : message;
    diagnostics(`${name}: ${text}`);
  }

  get #address(): string {
    return `${this.#options.host}:${this.#options.port}`;
  }

  #start(): void {
    this.#started = true;
    this.#diagnose(`connecting to ${this.#address}`);
    this.#firstAttemptPromise = new Promise<boolean>((resolve) => {
      this.#firstAttempt = resolve;
    });
    loadRedisDriver().then(
      (redis) => {
        this.#redis = redis;
        this.#open(redis);
      },
      (error: unknown) => this.#onError(error),
    );
  }

  #open(redis: typeof Redis): void {
    if (this.#disposed) return;
    const options = this.#options;
    const client: RedisClient = redis.createClient({
      socket: {
        host: options.host,
        port: options.port,
        connectTimeout: options.connectTimeout,
        reconnectStrategy: (retries: number) =>
          this.#retryDelay(client, retries),
      },
      username: options.username,
      password: options.password,
      database: options.database,
      disableOfflineQueue: !options.offlineQueue,
      disableClientInfo: true,
    });
    this.client = client;
    this.#commands = singleNodeCommands(client, this.#address);
    this.#lostNow = false;
    this.#attemptStart = performance.now();
    // Events of a client given up on (silent handshake) are ignored.
    client.on("error", (error: unknown) => {
      if (client === this.client) this.#onError(error);
    });
    client.on("connect", () => {
      if (client === this.client) this.#onConnected(client);
    });
    client.on("reconnecting", () => {
      if (client === this.client) this.#attemptStart = performance.now();
    });
    client.on("ready", () => this.#onReady(client));
    // Failures arrive through the "error" event; connect() itself only
    // rejects once the reconnect strategy gives up (on dispose).
    client.connect().catch(() => {});
  }

  /**
   * The socket is connected and node-redis starts its handshake (AUTH,
   * SELECT), which node-redis does not time: a server that accepts the
   * connection and never answers (frozen, or not Redis) would hold it
   * forever. The attempt gets what is left of `connectTimeout`.
   */
  #onConnected(client: RedisClient): void {
    this.#handshaking = true;
    clearTimeout(this.#handshakeTimer);
    const left = this.#options.connectTimeout -
      (performance.now() - this.#attemptStart);
    this.#handshakeTimer = unrefTimer(
      setTimeout(() => this.#handshakeTimedOut(client), Math.max(1, left)),
    );
  }

  #handshakeTimedOut(client: RedisClient): void {
    this.#handshakeTimer = undefined;
    if (this.#disposed || client !== this.client || !this.#handshaking) return;
    this.#abandon(
      client,
      new RedisTimeoutError(
        "The connection handshake (AUTH, SELECT)",
        this.#options.connectTimeout,
      ),
    );
  }

  /**
   * Drops a connection that stopped answering (commands time out while the
   * socket stays open) and opens a new one after the usual backoff, so that
   * unanswered commands do not pile up on a dead socket.
   *
   * @param error Why (reported through `onDown`).
   */
  recycle(error: unknown): void {
    const client = this.client;
    if (this.#disposed || client === undefined) return;
    if (!client.isReady && !this.#handshaking) return; // reconnecting already
    this.#abandon(client, error);
  }

  #abandon(client: RedisClient, error: unknown): void {
    // Give this client up (destroy() closes its socket and fails its
    // commands or handshake; its reconnect strategy then answers false) and
    // open a new one after the usual backoff.
    this.#handshaking = false;
    this.client = undefined;
    this.#destroyClient(client);
    this.#onError(error);
    this.#lostNow = false;
    const delay = this.#backoff(this.#abandoned++);
    this.#diagnoseReconnect(delay);
    this.#reopenTimer = unrefTimer(
      RequestContext.detach(() =>
        setTimeout(() => {
          this.#reopenTimer = undefined;
          if (this.#redis !== undefined) this.#open(this.#redis);
        }, delay)
      ),
    );
  }

  #endFirstAttempt(ready: boolean): void {
    const resolve = this.#firstAttempt;
    if (resolve === undefined) return;
    this.#firstAttempt = undefined;
    this.#firstAttemptPromise = undefined;
    resolve(ready);
  }

  #retryDelay(client: RedisClient, retries: number): number | false {
    if (this.#disposed) {
      // Give up: node-redis closes the client and leaves no socket behind.
      queueMicrotask(() => this.#settle?.());
      return false;
    }
    if (client !== this.client) return false;
    const delay = this.#backoff(retries);
    // node-redis asks before reporting the failure of the attempt (and
    // after reporting a lost connection): the line waits for that report.
    const next = this.#lostNow ? 0 : delay;
    this.#lostNow = false;
    if (this.#options.diagnostics !== undefined) {
      queueMicrotask(() => this.#diagnoseReconnect(next));
    }
    return delay;
  }

  #diagnoseReconnect(delay: number): void {
    if (this.#disposed || this.#options.diagnostics === undefined) return;
    const attempt = ++this.#attempts;
    this.#diagnose(
      `reconnecting to ${this.#address} (attempt ${attempt}, next in ${delay} ms)`,
    );
  }

  #backoff(retries: number): number {
    const { reconnectDelay, maxReconnectDelay } = this.#options;
    return backoff(retries, reconnectDelay, maxReconnectDelay);
  }

  #onError(error: unknown): void {
    if (this.#disposed) return;
    this.#handshaking = false;
    clearTimeout(this.#handshakeTimer);
    this.#handshakeTimer = undefined;
    this.#endFirstAttempt(false);
    this.#failedSinceReady = true;
    this.#diagnose(
      `connection to ${this.#address} ${this.#up ? "lost" : "failed"}: ${
        describeError(error)
      }`,
    );
    this.#lostNow = this.#up;
    this.#up = false;
    this.#events.onDown(error);
  }

  #onReady(client: RedisClient): void {
    if (client !== this.client) {
      this.#destroyClient(client);
      return;
    }
    this.#handshaking = false;
    clearTimeout(this.#handshakeTimer);
    this.#handshakeTimer = undefined;
    if (this.#disposed) {
      // A reconnect finished after dispose() began: close it right away.
      this.#destroyClient(client);
      this.#settle?.();
      return;
    }
    this.#abandoned = 0;
    this.#attempts = 0;
    this.#up = true;
    this.#diagnose(`connected to ${this.#address}`);
    const afterOutage = this.#failedSinceReady;
    this.#failedSinceReady = false;
    this.#endFirstAttempt(true);
    this.#events.onReady(this.#commands!, afterOutage);
  }

  #destroyClient(client: RedisClient | undefined): void {
    try {
      client?.destroy();
    } catch {
      // Already closed.
    }
  }

  /**
   * Closes the connection. Commands still waiting are failed at once (the
   * provider waits for them, within its own bound, before calling this).
   *
   * @param signal Stops waiting for a reconnect attempt under way; the
   * attempt then closes itself when it ends.
   */
  async dispose(signal?: AbortSignal): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#endFirstAttempt(false);
    clearTimeout(this.#handshakeTimer);
    clearTimeout(this.#reopenTimer);
    this.#handshakeTimer = undefined;
    this.#reopenTimer = undefined;
    const client = this.client;
    if (client === undefined || !client.isOpen) return;
    if (client.isReady || this.#handshaking) {
      // The socket exists: destroy() closes it (and fails a handshake).
      this.#destroyClient(client);
      return;
    }
    // node-redis is between reconnect attempts, or opening a socket: its
    // delay timer cannot be cancelled, and a socket it is opening would
    // outlive destroy(). Wait for the attempt to end: it either connects
    // (closed in #onReady) or fails (the strategy then answers false and
    // node-redis gives up). A deadline cuts the wait short; the attempt
    // still closes itself when it ends.
    const { maxReconnectDelay, connectTimeout } = this.#options;
    await settleWithin(
      new Promise<void>((resolve) => (this.#settle = resolve)),
      maxReconnectDelay + connectTimeout + 1000,
      signal,
    );
    this.#settle = undefined;
  }
}
