import { deadlineSignal, type DisposeOptions } from "../core/mod.ts";
import { type HealthCheckResult, Signal } from "../platform/mod.ts";
import { ErrorReporter } from "./_error_reporter.ts";
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
import { CacheStoreError } from "./cache_store_error.ts";
import { CacheStoreRecovered } from "./cache_store_recovered.ts";
import { CacheStoreUnavailableError } from "./cache_store_unavailable_error.ts";

/** Options of {@linkcode TieredCacheProvider}. */
export interface TieredCacheProviderOptions {
  /**
   * Where invalidations travel between instances. Default: `l2` itself when
   * it is an {@linkcode ICacheInvalidationBus} (as
   * {@linkcode RemoteStoreCacheProvider} is); `null` turns invalidation off.
   */
  bus?: ICacheInvalidationBus | null;
  /** Receives the errors of both layers; default `console.warn` when nobody listens. */
  onError?: (error: CacheError) => void;
  /**
   * While `l2` is unreachable, how long an `l1` copy may still be served,
   * in milliseconds, counted from the later of the start of the outage and
   * the time the copy was stored (`storedAt`): changes made by other
   * instances cannot reach this one then, so this bounds how long it can
   * serve a value another instance replaced. Older copies are misses until
   * the store answers again. Default 10000; 0 serves no copy during an
   * outage; `Infinity` keeps serving them until they expire.
   */
  outageMemoryTtl?: number;
  /**
   * The clock `storedAt` is read on (the manager's `clock`). Default
   * `Date.now`.
   */
  clock?: () => number;
}

function isBus(value: unknown): value is ICacheInvalidationBus {
  return typeof value === "object" && value !== null &&
    typeof (value as ICacheInvalidationBus).publishInvalidation ===
      "function" &&
    typeof (value as ICacheInvalidationBus).subscribeInvalidations ===
      "function";
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === "object" && value !== null &&
    typeof (value as PromiseLike<T>).then === "function";
}

function newId(): string {
  const crypto = globalThis.crypto;
  return typeof crypto?.randomUUID === "function"
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Two cache layers, typically memory (`l1`) in front of Redis (`l2`), for
 * applications that run several instances:
 *
 * - a read tries `l1`, then `l2`; an `l2` hit fills `l1`;
 * - a write or delete goes to both layers, then publishes an invalidation
 *   on the bus so that every other instance drops its `l1` copy (as
 *   bentocache's bus does); `clear` does the same for a prefix;
 * - when the bus connection comes back after an outage (messages may have
 *   been missed), or `l2` reports a {@linkcode CacheStoreRecovered}, the
 *   whole `l1` is dropped; during an outage of `l2`, an `l1` copy is served
 *   for at most `outageMemoryTtl`. What `l2` could not take during the outage
 *   it re-sends on recovery and then tells every instance (see
 *   {@linkcode RemoteStoreCacheProvider}).
 *
 * An `l2` read that was under way when an invalidation arrived does not fill
 * `l1`, so an old value cannot slip back in.
 *
 * @example Usage
 * ```ts
 * import {
 *   CacheManager,
 *   MemoryCacheProvider,
 *   RemoteStoreCacheProvider,
 *   TieredCacheProvider,
 * } from "@vendor/kit/caching";
 *
 * const provider = new TieredCacheProvider(
 *   new MemoryCacheProvider({ maxSize: 1000 }),
 *   new RemoteStoreCacheProvider({ host: "localhost", port: 6379 }),
 * );
 * const cache = new CacheManager(provider);
 * await cache.set("config:flags", { beta: true }); // other instances drop their copy
 * await cache.dispose(); // disposes both layers
 * ```
 */
export class TieredCacheProvider implements ICacheProvider {
  /** This instance's identity on the bus. */
  readonly instanceId: string = newId();
  /**
   * Dispatched after an invalidation from another instance has been applied
   * to `l1`.
   */
  readonly invalidated: CacheListeners<CacheInvalidation>;
  readonly #invalidated: Signal<CacheInvalidation> = new Signal<
    CacheInvalidation
  >();
  readonly #l1: ICacheProvider;
  readonly #l2: ICacheProvider;
  readonly #bus: ICacheInvalidationBus | undefined;
  readonly #reporter: ErrorReporter;
  readonly #subscription: CacheInvalidationSubscription | undefined;
  readonly #detach: Array<() => void> = [];
  /** Bumped by every invalidation; an `l2` read that saw it change skips `l1`. */
  #generation = 0;
  readonly #outageMemoryTtl: number;
  readonly #clock: () => number;
  /** When `l2` was found unreachable (on `#clock`); 0 while it answers. */
  #outageSince = 0;
  /**
   * The addresses `l2` reported unreachable and not back yet: on a Redis
   * Cluster each primary's outage is reported apart.
   */
  readonly #unreachable = new Set<string>();
  #disposed = false;

  /**
   * Creates the provider and subscribes to the bus.
   *
   * @param l1 The near, fast layer (memory).
   * @param l2 The shared layer (Redis).
   * @param options The bus and the error hook.
   */
  constructor(
    l1: ICacheProvider,
    l2: ICacheProvider,
    options: TieredCacheProviderOptions = {},
  ) {
    this.invalidated = this.#invalidated;
    this.#l1 = l1;
    this.#l2 = l2;
    this.#reporter = new ErrorReporter("TieredCacheProvider", options.onError);
    const outageMemoryTtl = options.outageMemoryTtl ?? 10_000;
    if (typeof outageMemoryTtl !== "number" || !(outageMemoryTtl >= 0)) {
      throw new RangeError(
        `TieredCacheProvider outageMemoryTtl must be a number from 0 (Infinity allowed): ${outageMemoryTtl}`,
      );
    }
    this.#outageMemoryTtl = outageMemoryTtl;
    this.#clock = options.clock ?? Date.now;
    for (const layer of [l1, l2]) {
      const signal = layer.errorOccurred;
      if (signal !== undefined) {
        this.#detach.push(signal.add((error) => {
          if (layer === l2) this.#onStoreReport(error);
          this.#reporter.report(error);
        }));
      }
    }
    const bus = options.bus === undefined
      ? (isBus(l2) ? l2 : undefined)
      : options.bus;
    this.#bus = bus ?? undefined;
    this.#subscription = this.#bus?.subscribeInvalidations(
      (message) => this.#onInvalidation(message),
      () => this.#resync(),
    );
  }

  /** The near layer. */
  get l1(): ICacheProvider {
    return this.#l1;
  }

  /** The shared layer. */
  get l2(): ICacheProvider {
    return this.#l2;
  }

  /** Errors of both layers. */
  get errorOccurred(): CacheListeners<CacheError> {
    return this.#reporter.signal;
  }

  /**
   * Settles once the invalidation subscription is active.
   *
   * @returns `true` when subscribed (or there is no bus); `false` when the
   * first attempt failed (it keeps retrying). Never rejects.
   */
  async connect(): Promise<boolean> {
    return this.#subscription === undefined
      ? true
      : await this.#subscription.ready;
  }

  /**
   * Reads `l1`, then `l2`; an `l2` hit fills `l1`.
   *
   * @param key The key.
   * @param tagged Passed on to both layers (see {@linkcode ICacheProvider.get}).
   * @returns The entry or `undefined`.
   */
  get(
    key: string,
    tagged?: boolean,
  ): CacheEntry | undefined | Promise<CacheEntry | undefined> {
    const near = this.#l1.get(key, tagged);
    if (isThenable(near)) {
      return Promise.resolve(near).then((entry) =>
        entry !== undefined &&
          (this.#outageSince === 0 || this.#servable(entry))
          ? entry
          : this.#fromL2(key, tagged)
      );
    }
    return near !== undefined &&
        (this.#outageSince === 0 || this.#servable(near))
      ? near
      : this.#fromL2(key, tagged);
  }

  /**
   * Writes both layers, then tells the other instances.
   *
   * @param key The key.
   * @param entry The entry.
   * @param ttl How long the layers keep it.
   * @returns Settles when both layers are written and the message is sent.
   */
  async set(key: string, entry: CacheEntry, ttl?: number): Promise<void> {
    this.#generation++;
    await this.#l1.set(key, entry, ttl);
    await this.#l2.set(key, entry, ttl);
    await this.#publish({ source: this.instanceId, keys: [key] });
  }

  /**
   * Removes the key from both layers, then tells the other instances.
   *
   * @param key The key.
   * @returns Settles when both layers are done and the message is sent.
   */
  async delete(key: string): Promise<void> {
    this.#generation++;
    await this.#l1.delete(key);
    await this.#l2.delete(key);
    await this.#publish({ source: this.instanceId, keys: [key] });
  }

  /**
   * Tells whether either layer has the key.
   *
   * @param key The key.
   * @returns `true` when present.
   */
  async has(key: string): Promise<boolean> {
    return (await this.#l1.has(key)) || (await this.#l2.has(key));
  }

  /**
   * Clears both layers under `prefix`, then tells the other instances.
   *
   * @param prefix The key prefix; everything when omitted.
   * @returns Settles when both layers are cleared and the message is sent.
   */
  async clear(prefix?: string): Promise<void> {
    this.#generation++;
    await this.#l1.clear(prefix);
    await this.#l2.clear(prefix);
    await this.#publish({ source: this.instanceId, prefix: prefix ?? "" });
  }

  /**
   * Invalidates `tags` in both layers, then publishes it so that every
   * other instance's first layer does the same.
   *
   * @param tags The tags.
   * @param at The time of the invalidation, on the clock of `storedAt`.
   * @returns Settles when recorded and published.
   */
  async invalidateTags(tags: string[], at: number): Promise<void> {
    this.#generation++;
    const l1 = this.#l1;
    // A first layer without tags loses everything rather than serve an
    // invalidated entry.
    if (l1.invalidateTags !== undefined) await l1.invalidateTags(tags, at);
    else await l1.clear();
    await this.#l2.invalidateTags?.(tags, at);
    await this.#publish({ source: this.instanceId, tags, at });
  }

  /**
   * Takes the lock of `key` in the second layer (the shared store), when it
   * has locks; otherwise answers not acquired and not held, and the caller
   * goes on without a lock.
   *
   * @param key The cache key the lock is for.
   * @param ttl How long the lock lives, in milliseconds.
   * @returns The second layer's attempt. Never rejects.
   */
  async tryLock(key: string, ttl: number): Promise<CacheLockAttempt> {
    const l2 = this.#l2;
    if (l2.tryLock === undefined) return { acquired: false, held: false };
    try {
      return await l2.tryLock(key, ttl);
    } catch (error) {
      this.#reporter.report(new CacheStoreError("tryLock", key, error));
      return { acquired: false, held: false };
    }
  }

  /**
   * Reads `l1`; on a miss, reads `l2` and takes its lock in the same round
   * trip when `l2` can (else reads it and tries its lock). An `l2` entry
   * fills `l1`.
   *
   * @param key The key.
   * @param ttl How long the lock lives, in milliseconds.
   * @returns The entry, or no entry and the lock attempt. Never rejects.
   */
  async readOrLock(key: string, ttl: number): Promise<CacheReadOrLock> {
    let near: CacheEntry | undefined;
    try {
      near = await this.#l1.get(key);
    } catch (error) {
      this.#reportLayerFailure(error);
    }
    if (
      near !== undefined && (this.#outageSince === 0 || this.#servable(near))
    ) return { entry: near };
    const l2 = this.#l2;
    if (l2.readOrLock === undefined) {
      const entry = await this.#fromL2(key, undefined);
      return entry === undefined
        ? { entry, lock: await this.tryLock(key, ttl) }
        : { entry };
    }
    const generation = this.#generation;
    let read: CacheReadOrLock;
    try {
      read = await l2.readOrLock(key, ttl);
    } catch (error) {
      this.#reporter.report(new CacheStoreError("readOrLock", key, error));
      return { entry: undefined, lock: { acquired: false, held: false } };
    }
    if (read.entry !== undefined && generation === this.#generation) {
      this.#fill(key, read.entry);
    }
    return read;
  }

  /**
   * Tells whether both layers answer: the worse of the two states, with the
   * detail of each layer that is not healthy (`l1`, `l2`).
   *
   * @param signal Aborts the check.
   * @returns The state of the layers.
   */
  async checkHealth(signal?: AbortSignal): Promise<HealthCheckResult> {
    const [near, far] = await Promise.all(
      [this.#l1, this.#l2].map((layer) =>
        layer.checkHealth?.(signal) ?? { status: "healthy" as const }
      ),
    );
    const rank = { healthy: 0, degraded: 1, unhealthy: 2 } as const;
    const status = rank[near.status] >= rank[far.status]
      ? near.status
      : far.status;
    if (status === "healthy") return { status };
    const detail: Record<string, unknown> = {};
    if (near.status !== "healthy") detail.l1 = near.detail ?? near.status;
    if (far.status !== "healthy") detail.l2 = far.detail ?? far.status;
    return { status, detail };
  }

  /**
   * Unsubscribes and disposes both layers.
   *
   * @param options `signal` and/or `timeout` (milliseconds), passed on to
   * both layers as one deadline.
   * @returns Settles when both layers are released, or at the deadline.
   * @throws {RangeError} For a negative or non-numeric `timeout`.
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    if (this.#disposed) return;
    const signal = deadlineSignal(options);
    this.#disposed = true;
    this.#subscription?.unsubscribe();
    for (const detach of this.#detach) detach();
    this.#invalidated.clear();
    const layerOptions = signal === undefined ? undefined : { signal };
    await Promise.all([
      this.#l1.dispose?.(layerOptions),
      this.#l2.dispose?.(layerOptions),
    ]);
  }

  #fromL2(
    key: string,
    tagged: boolean | undefined,
  ): CacheEntry | undefined | Promise<CacheEntry | undefined> {
    const generation = this.#generation;
    const far = this.#l2.get(key, tagged);
    if (!isThenable(far)) {
      if (far !== undefined) this.#fill(key, far);
      return far;
    }
    return Promise.resolve(far).then((entry) => {
      if (entry !== undefined && generation === this.#generation) {
        this.#fill(key, entry);
      }
      return entry;
    });
  }

  #fill(key: string, entry: CacheEntry): void {
    // The manager judges freshness by storedAt; l1 only has to keep the
    // entry no longer than l2 does at most.
    const keep = entry.ttl === undefined
      ? undefined
      : entry.ttl + (entry.maxStale ?? 0);
    this.#settle(() => this.#l1.set(key, entry, keep));
  }

  async #publish(message: CacheInvalidation): Promise<void> {
    if (this.#bus !== undefined) await this.#bus.publishInvalidation(message);
  }

  #onInvalidation(message: CacheInvalidation): void {
    if (this.#disposed || message.source === this.instanceId) return;
    this.#generation++;
    if (message.keys !== undefined) {
      for (const key of message.keys) this.#settle(() => this.#l1.delete(key));
    }
    if (message.prefix !== undefined) {
      this.#settle(() => this.#l1.clear(message.prefix));
    }
    const { tags, at } = message;
    if (tags !== undefined && at !== undefined) {
      const l1 = this.#l1;
      if (l1.invalidateTags !== undefined) {
        this.#settle(() => l1.invalidateTags!(tags, at));
      } else {
        // A first layer without tags loses everything rather than serve an
        // invalidated entry.
        this.#settle(() => l1.clear());
      }
    }
    this.#invalidated.dispatch(message);
  }

  /**
   * During an outage of `l2`, other instances' changes cannot reach this
   * one: a copy is served only for `outageMemoryTtl` after the later of the
   * start of the outage and its own `storedAt`.
   */
  #servable(entry: CacheEntry): boolean {
    const since = Math.max(entry.storedAt, this.#outageSince);
    return this.#clock() - since < this.#outageMemoryTtl;
  }

  /**
   * The start and the end of an outage of `l2`. At its end this instance may
   * have missed messages from the others (and its `l2` re-sends what it
   * held back, then tells every instance which keys changed): the whole
   * `l1` is dropped, since any area may have been changed elsewhere. On a
   * cluster, the outage lasts until every primary reported unreachable is
   * back; each one's return drops `l1`.
   */
  #onStoreReport(report: CacheError): void {
    if (this.#disposed) return;
    if (report instanceof CacheStoreUnavailableError) {
      this.#unreachable.add(report.address);
      if (this.#outageSince === 0) this.#outageSince = this.#clock() || 1;
    } else if (report instanceof CacheStoreRecovered) {
      // A recovery of an address never reported ends them all.
      if (!this.#unreachable.delete(report.address)) this.#unreachable.clear();
      if (this.#unreachable.size === 0) this.#outageSince = 0;
      this.#resync();
    }
  }

  #resync(): void {
    if (this.#disposed) return;
    this.#generation++;
    this.#settle(() => this.#l1.clear());
  }

  /** Runs an l1 operation whose result nobody waits for; reports failures. */
  #settle(operation: () => void | Promise<void>): void {
    try {
      const result = operation();
      if (isThenable(result)) {
        Promise.resolve(result).catch((error) =>
          this.#reportLayerFailure(error)
        );
      }
    } catch (error) {
      this.#reportLayerFailure(error);
    }
  }

  #reportLayerFailure(error: unknown): void {
    this.#reporter.report(new CacheStoreError("l1", undefined, error));
  }
}
