// The life cycle shared by the Cluster and Sentinel connections: lazy
// start, a first attempt bounded by connectTimeout (node-redis's discovery
// through a root node or a sentinel has no bound of its own: a node that
// accepts the connection and never answers would hold it), a new client
// after a failed attempt with backoff, and a dispose that leaves no timer.
// Inside one client, node-redis follows the topology itself (slots and
// MOVED for a cluster, +switch-master for Sentinel); what is left here is
// starting it, bounding it and telling the provider.
import type * as Redis from "redis";
import type { TimerHandle } from "../../internal/timer_handle.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { RequestContext } from "../../platform/mod.ts";
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

/** One node-redis topology client (a cluster or a sentinel client). */
export interface TopologyClient {
  /** Discovers the topology and connects; rejects when no node answers. */
  connect(): Promise<unknown>;
  /**
   * Closes every socket of the client at once. A promise, when the client
   * may still have work of its own under way (a sentinel client searching
   * for the primary again): it settles once that work has ended.
   */
  destroy(): void | Promise<void>;
  /** The commands, once connected. */
  readonly commands: RedisCommands;
  /** `true` while commands can be sent. */
  readonly isReady: boolean;
}

/** The error of a first attempt that found no node: names the addresses. */
export class RedisTopologyUnreachableError extends Error {
  /**
   * @param what `Redis Cluster` or `Redis Sentinel "<name>"`.
   * @param addresses The configured nodes.
   * @param cause node-redis's error.
   */
  constructor(what: string, addresses: string, cause: unknown) {
    super(
      `${what}: no node answered at ${addresses}: ${describeError(cause)}`,
      { cause },
    );
    this.name = "RedisTopologyUnreachableError";
  }
}

export abstract class TopologyConnection implements RedisLink {
  protected readonly options: RedisLinkOptions;
  protected readonly events: RedisLinkEvents;
  #client: TopologyClient | undefined;
  #ready = false;
  #started = false;
  #disposed = false;
  #failedSinceReady = false;
  #retries = 0;
  #firstAttempt: ((ready: boolean) => void) | undefined;
  #firstAttemptPromise: Promise<boolean> | undefined;
  #reopenTimer: TimerHandle | undefined;
  #connecting: Promise<unknown> | undefined;

  constructor(options: RedisLinkOptions, events: RedisLinkEvents) {
    this.options = options;
    this.events = events;
  }

  /** `Redis Cluster` or `Redis Sentinel "<name>"`, for messages. */
  protected abstract get what(): string;
  /** The configured addresses, comma-separated. */
  protected abstract get addresses(): string;
  /** Creates a node-redis client (not connected). */
  protected abstract create(redis: typeof Redis): TopologyClient;

  /**
   * How long dispose() waits at most for the work a destroyed client still
   * has under way (see {@linkcode TopologyClient.destroy}).
   */
  protected get destroyWithin(): number {
    return this.options.connectTimeout + 1000;
  }

  protected get disposed(): boolean {
    return this.#disposed;
  }

  /** The delay node-redis waits before reconnecting one node's socket. */
  protected reconnectStrategy(retries: number): number | false {
    if (this.#disposed) return false;
    return backoff(
      retries,
      this.options.reconnectDelay,
      this.options.maxReconnectDelay,
    );
  }

  get isReady(): boolean {
    return this.#ready && this.#client !== undefined && this.#client.isReady;
  }

  get readyClient(): RedisCommands | undefined {
    return this.isReady ? this.#client!.commands : undefined;
  }

  ensureReady(): boolean | Promise<boolean> {
    if (this.isReady) return true;
    if (this.#disposed) return false;
    if (!this.#started) RequestContext.detach(() => this.#start());
    return this.#firstAttemptPromise ?? false;
  }

  protected diagnose(message: string): void {
    const { diagnostics, name = "cache" } = this.options;
    if (diagnostics === undefined) return;
    let text = message;
    for (const secret of this.secrets()) {
      if (secret !== undefined && secret !== "") {
        text = text.split(secret).join("***");
      }
    }
    diagnostics(`${name}: ${text}`);
  }

  /** The passwords a diagnostic line must never show. */
  protected secrets(): Array<string | undefined> {
    return [this.options.password];
  }

  #start(): void {
    this.#started = true;
    this.#firstAttemptPromise = new Promise<boolean>((resolve) => {
      this.#firstAttempt = resolve;
    });
    loadRedisDriver().then(
      (redis) => this.#open(redis),
      (error: unknown) => this.#failed(error, undefined),
    );
  }

  #open(redis: typeof Redis): void {
    if (this.#disposed) return;
    this.diagnose(`connecting to ${this.what} at ${this.addresses}`);
    let client: TopologyClient;
    try {
      client = this.create(redis);
    } catch (error) {
      this.#failed(error, undefined);
      return;
    }
    this.#client = client;
    this.#ready = false;
    const { connectTimeout } = this.options;
    let timer: TimerHandle | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = unrefTimer(setTimeout(
        () =>
          reject(
            new RedisTimeoutError(
              `Connecting to ${this.what}`,
              connectTimeout,
            ),
          ),
        connectTimeout,
      ));
    });
    const connecting = client.connect();
    connecting.catch(() => {});
    this.#connecting = connecting;
    Promise.race([connecting, timedOut]).then(
      () => {
        clearTimeout(timer);
        if (client !== this.#client || this.#disposed) {
          client.destroy();
          return;
        }
        this.#connected(client);
      },
      (error: unknown) => {
        clearTimeout(timer);
        this.#failed(error, client);
      },
    ).finally(() => {
      if (this.#connecting === connecting) this.#connecting = undefined;
    });
  }

  #connected(client: TopologyClient): void {
    this.#ready = true;
    this.#retries = 0;
    this.diagnose(`connected to ${this.what}`);
    const afterOutage = this.#failedSinceReady;
    this.#failedSinceReady = false;
    this.#endFirstAttempt(true);
    this.events.onReady(client.commands, afterOutage);
  }

  /** A first connection (or a reopening) failed: report, retry later. */
  #failed(error: unknown, client: TopologyClient | undefined): void {
    if (client !== undefined) {
      if (client !== this.#client) return;
      this.#client = undefined;
      try {
        client.destroy();
      } catch {
        // Already closed.
      }
    }
    if (this.#disposed) return;
    const wrapped = error instanceof RedisTimeoutError
      ? error
      : new RedisTopologyUnreachableError(this.what, this.addresses, error);
    this.reportDown(wrapped);
    const delay = backoff(
      this.#retries++,
      this.options.reconnectDelay,
      this.options.maxReconnectDelay,
    );
    this.diagnose(`reconnecting to ${this.what} (next in ${delay} ms)`);
    clearTimeout(this.#reopenTimer);
    this.#reopenTimer = unrefTimer(
      RequestContext.detach(() =>
        setTimeout(() => {
          this.#reopenTimer = undefined;
          loadRedisDriver().then((redis) => this.#open(redis), () => {});
        }, delay)
      ),
    );
  }

  /** Tells the provider that the store is unreachable. */
  protected reportDown(error: unknown): void {
    if (this.#disposed) return;
    this.#endFirstAttempt(false);
    this.#failedSinceReady = true;
    this.diagnose(`${this.what} unreachable: ${describeError(error)}`);
    this.events.onDown(error);
  }

  /** Tells the provider that every node answers again after a failure. */
  protected reportBack(): void {
    const client = this.#client;
    if (this.#disposed || client === undefined || !this.#ready) return;
    if (!this.#failedSinceReady) return;
    this.#failedSinceReady = false;
    this.events.onReady(client.commands, true);
  }

  /** Marks that a node failed since the last ready report. */
  protected markFailed(): void {
    this.#failedSinceReady = true;
  }

  /** Gives the client up and opens a new one (same backoff as a failure). */
  recycle(error: unknown): void {
    const client = this.#client;
    if (this.#disposed || client === undefined || !this.#ready) return;
    this.#ready = false;
    this.#failed(error, client);
  }

  #endFirstAttempt(ready: boolean): void {
    const resolve = this.#firstAttempt;
    if (resolve === undefined) return;
    this.#firstAttempt = undefined;
    this.#firstAttemptPromise = undefined;
    resolve(ready);
  }

  async dispose(signal?: AbortSignal): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#endFirstAttempt(false);
    clearTimeout(this.#reopenTimer);
    this.#reopenTimer = undefined;
    const client = this.#client;
    this.#client = undefined;
    this.#ready = false;
    let destroyed: void | Promise<void> = undefined;
    try {
      destroyed = client?.destroy();
    } catch {
      // Already closed.
    }
    // Work the client still has under way (a search for the primary, which
    // prints each failed round and pauses a second between two) ends before
    // dispose() does: nothing of it may outlive the provider.
    if (destroyed !== undefined) {
      await settleWithin(destroyed, this.destroyWithin, signal);
    }
    // A discovery under way opens sockets of its own: let it end (it fails
    // fast once the client is destroyed, or within connectTimeout).
    const connecting = this.#connecting;
    if (connecting !== undefined) {
      await settleWithin(
        connecting.then(() => {}, () => {}),
        this.options.connectTimeout + 1000,
        signal,
      );
      try {
        client?.destroy();
      } catch {
        // Already closed.
      }
    }
  }
}
