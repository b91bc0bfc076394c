// The bounded, batching, retrying queue behind remote logging and the
// analytics providers. What is sent, how a failure reads and how it is
// reported stay in each module (the hooks); the queue owns the mechanism:
//
// - Items wait in a FIFO queue of at most `maxQueueSize`; beyond that the
//   newest (or, with `overflow: "drop-oldest"`, the oldest) is dropped and
//   counted, and `onOverflow` hears of it once per episode.
// - A batch leaves when `batchSize` items are waiting, when the interval
//   timer fires (armed while items wait; the system clock's timers are
//   unref'd), or when `flush()` asks for everything.
// - Up to `maxConcurrentRequests` batches are in flight. A batch that fails
//   in a way worth retrying is sent again after the backoff of
//   internal/delivery/backoff.ts (or the server's Retry-After), at most `maxRetries`
//   times; then it is dropped and reported.
// - internal/delivery/outage_tracker.ts keeps retry schedules from stacking up while
//   the endpoint is down: one lead retries, and once it gave up batches go
//   as probes of a single attempt.
// - Each item gets a sequence number. `flush()` resolves once every item
//   queued or in flight when it was called is delivered or dropped, and
//   says how many of each. When its signal fires first, what it waits for
//   is dropped at once (requests and retry waits aborted), reported in one
//   event, and it resolves.
import { deadlineSignal, type DisposeOptions } from "../../core/mod.ts";
import { backoffDelay, MAX_TIMER_MS, sleep } from "./backoff.ts";
import { OutageTracker } from "./outage_tracker.ts";
import type {
  DeliveryFailure,
  DeliveryQueueOptions,
  DeliveryState,
  FlushCounts,
} from "./delivery_queue_options.ts";

export type {
  DeliveryFailure,
  DeliveryOutcome,
  DeliveryQueueOptions,
  DeliveryState,
  FailedBatch,
  FlushCounts,
} from "./delivery_queue_options.ts";

interface Entry<T> {
  readonly seq: number;
  readonly value: T;
}

interface Delivery<T> {
  readonly entries: Entry<T>[];
  readonly values: T[];
  readonly controller: AbortController;
  attempts: number;
  /** Given up on from outside: already counted and reported. */
  abandoned: boolean;
}

interface Waiter {
  readonly target: number;
  remaining: number;
  delivered: number;
  dropped: number;
  readonly resolve: (result: FlushCounts) => void;
}

const same = <R>(fn: () => R): R => fn();

/**
 * A bounded queue that sends its items in batches, retries through the
 * backoff, counts what it drops, and flushes within a deadline.
 *
 * @typeParam T An item.
 *
 * @example Usage
 * ```ts
 * import { systemClock } from "../../core/mod.ts";
 * import { DeliveryQueue } from "./delivery_queue.ts";
 *
 * const sent: string[][] = [];
 * const queue = new DeliveryQueue<string>({
 *   batchSize: 100, flushInterval: 5_000, maxQueueSize: 10_000,
 *   maxRetries: 3, retryDelay: 1_000, maxRetryDelay: 30_000,
 *   clock: systemClock,
 *   // Here a POST to the collector; a failure throws.
 *   send: async (batch) => {
 *     sent.push([...batch]);
 *   },
 *   classify: (error) => ({ retriable: true, reason: String(error) }),
 * });
 * queue.enqueue("hello");
 * await queue.flush({ timeout: 2_000 }); // { delivered: 1, dropped: 0 }
 * ```
 */
export class DeliveryQueue<T> {
  readonly #o: DeliveryQueueOptions<T>;
  readonly #outage: OutageTracker<Delivery<T>>;
  readonly #detach: <R>(fn: () => R) => R;
  #queue: Entry<T>[] = [];
  #seq = 0;
  #drainUpTo = 0;
  #activeRequests = 0;
  #inFlightItems = 0;
  #deliveries = new Set<Delivery<T>>();
  #lastAttemptFailed = false;
  #failedAttempts = 0;
  #timer: unknown;
  #probeTimer: unknown;
  #waiters: Waiter[] = [];
  #closed = false;
  #delivered = 0;
  #dropped = 0;
  #overflowing = false;

  /**
   * Creates the queue; nothing is sent until items arrive.
   *
   * @param options The bounds, the retry policy and the module's hooks.
   * @throws {RangeError} When `minProbeInterval` is negative.
   */
  constructor(options: DeliveryQueueOptions<T>) {
    this.#o = options;
    this.#detach = options.detach ?? same;
    this.#outage = new OutageTracker({
      clock: options.clock,
      minProbeInterval: options.minProbeInterval,
    });
  }

  /** Items waiting. */
  get queued(): number {
    return this.#queue.length;
  }
  /** Items in batches being sent. */
  get inFlight(): number {
    return this.#inFlightItems;
  }
  /** The counts and the endpoint's state, as a snapshot. */
  get state(): DeliveryState {
    return {
      delivered: this.#delivered,
      dropped: this.#dropped,
      failedAttempts: this.#failedAttempts,
      failing: this.#lastAttemptFailed,
      outage: this.#outage.state,
      closed: this.#closed,
    };
  }

  /**
   * Adds an item (dropping one when the queue is full).
   *
   * @param value The item.
   * @returns `false` when `value` was dropped (queue full or closed); with
   * `overflow: "drop-oldest"`, `true`: the oldest went instead.
   */
  enqueue(value: T): boolean {
    if (this.#closed) {
      this.drop(1);
      return false;
    }
    if (this.#queue.length >= this.#o.maxQueueSize) {
      const evict = this.#o.overflow === "drop-oldest" &&
        this.#queue.length > 0;
      // The oldest is settled as dropped, not only counted: a flush may be
      // waiting for it.
      if (evict) this.#settle([this.#queue.shift()!], true, undefined);
      else this.drop(1);
      if (!this.#overflowing) {
        this.#overflowing = true;
        this.#o.onOverflow?.();
      }
      if (!evict) return false;
    }
    this.#queue.push({ seq: ++this.#seq, value });
    if (this.#queue.length >= this.#o.batchSize) this.#pump();
    else if (this.#timer === undefined) this.#arm();
    return true;
  }

  /**
   * Counts items as dropped without queueing them.
   *
   * @param items How many (default 1).
   */
  drop(items = 1): void {
    this.#dropped += items;
    this.#o.count?.("dropped", items);
  }

  /**
   * Sends everything queued now; resolves when all of it (and what was in
   * flight) is delivered or dropped, or when the options' signal or timeout
   * fires (then what it waits for is dropped and reported once).
   *
   * @param options `signal` and/or `timeout` (ms).
   * @returns What was delivered and dropped of what it waited for.
   * @throws {RangeError} When `timeout` is negative or no number (rejects).
   */
  flush(options?: DisposeOptions): Promise<FlushCounts> {
    let signal: AbortSignal | undefined;
    try {
      signal = deadlineSignal(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const outstanding = this.#queue.length + this.#inFlightItems;
    if (outstanding === 0 && !signal?.aborted) {
      return Promise.resolve({ delivered: 0, dropped: 0 });
    }
    return new Promise<FlushCounts>((resolve) => {
      // Someone is waiting: keep the process alive until the answer, though
      // the retry waits and the interval timer are unref'd.
      const keepAlive = setTimeout(() => {}, MAX_TIMER_MS);
      const target = this.#seq;
      const onAbort = (): void => this.#abandon(waiter, signal?.reason);
      const waiter: Waiter = {
        target,
        remaining: outstanding,
        delivered: 0,
        dropped: 0,
        resolve: (result) => {
          clearTimeout(keepAlive);
          signal?.removeEventListener("abort", onAbort);
          resolve(result);
        },
      };
      this.#waiters.push(waiter);
      this.#drainUpTo = target;
      if (signal?.aborted) {
        this.#abandon(waiter, signal.reason);
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pump();
    });
  }

  /**
   * Stops accepting items, then flushes (within the options' limits).
   *
   * @param options `signal` and/or `timeout` (ms).
   * @returns What the flush delivered and dropped.
   * @throws {RangeError} As {@linkcode DeliveryQueue.prototype.flush}.
   */
  async close(options?: DisposeOptions): Promise<FlushCounts> {
    this.#closed = true;
    try {
      return await this.flush(options);
    } finally {
      this.stop();
    }
  }

  /** Stops the interval timer (a later item arms it again). */
  stop(): void {
    this.#disarm();
  }

  /**
   * Forgets everything queued and in flight, uncounted and unreported (the
   * process is exiting; the caller tells what is lost).
   *
   * @returns How many items were forgotten.
   */
  discard(): number {
    let items = this.#queue.length;
    this.#queue = [];
    for (const delivery of this.#deliveries) {
      delivery.abandoned = true;
      items += delivery.entries.length;
    }
    this.#deliveries.clear();
    this.#activeRequests = 0;
    this.#inFlightItems = 0;
    this.#disarm();
    return items;
  }

  #pump(): void {
    const o = this.#o;
    const limit = this.#outage.allowed(o.maxConcurrentRequests ?? 1);
    while (this.#activeRequests < limit && this.#queue.length > 0) {
      const urgent = this.#queue[0].seq <= this.#drainUpTo;
      if (!urgent && this.#queue.length < o.batchSize) break;
      const entries = this.#take();
      const delivery: Delivery<T> = {
        entries,
        values: entries.map((entry) => entry.value),
        controller: new AbortController(),
        attempts: 0,
        abandoned: false,
      };
      this.#outage.probing();
      this.#deliveries.add(delivery);
      this.#activeRequests++;
      this.#inFlightItems += entries.length;
      // A batch holds the items of many callers, and its retries outlive
      // the one that filled it: no caller's context goes with it.
      void this.#detach(() => this.#deliver(delivery));
    }
    if (
      o.overflowEndsOn !== "delivery" && this.#queue.length < o.maxQueueSize
    ) {
      this.#overflowing = false;
    }
    if (this.#queue.length === 0) {
      this.#disarm();
      // The episode is over: the next batch gets its full retry schedule.
      if (this.#activeRequests === 0 && o.forgetOutageWhenIdle !== false) {
        this.#outage.up();
      }
    } else {
      if (this.#timer === undefined) this.#arm();
      this.#armProbe();
    }
  }

  // Down, items waiting and the probe rate holding the next probe back:
  // come back when it may go.
  #armProbe(): void {
    const delay = this.#outage.probeDelay();
    if (delay === 0 || this.#probeTimer !== undefined) return;
    if (this.#activeRequests > 0) return;
    this.#probeTimer = this.#detach(() =>
      this.#o.clock.setTimeout(() => {
        this.#probeTimer = undefined;
        this.#pump();
      }, Math.min(delay, MAX_TIMER_MS))
    );
  }

  #take(): Entry<T>[] {
    const { batchSize, batchKey } = this.#o;
    if (batchKey === undefined) return this.#queue.splice(0, batchSize);
    const key = batchKey(this.#queue[0].value);
    const taken: Entry<T>[] = [];
    const rest: Entry<T>[] = [];
    for (const entry of this.#queue) {
      if (taken.length < batchSize && batchKey(entry.value) === key) {
        taken.push(entry);
      } else {
        rest.push(entry);
      }
    }
    this.#queue = rest;
    return taken;
  }

  async #deliver(delivery: Delivery<T>): Promise<void> {
    const o = this.#o;
    const values = delivery.values;
    const signal = delivery.controller.signal;
    let rejected: ReadonlySet<number> | undefined;
    let failure: { info: DeliveryFailure; error: unknown } | undefined;
    let probe = false;
    let requeue = false;
    for (;;) {
      delivery.attempts++;
      try {
        rejected = (await o.send(values, signal, delivery.attempts)) ??
          undefined;
        failure = undefined;
        this.#lastAttemptFailed = false;
        this.#outage.answered(delivery);
        break;
      } catch (error) {
        if (delivery.abandoned) break;
        const info = o.classify(error);
        failure = { info, error };
        this.#failedAttempts++;
        if (!info.retriable) {
          // The endpoint answers: it is not down.
          this.#outage.answered(delivery);
          this.#lastAttemptFailed = true;
          break;
        }
        this.#lastAttemptFailed = true;
        const verdict = this.#outage.failed(
          delivery,
          delivery.attempts,
          o.maxRetries,
        );
        if (verdict === "probe-failed") {
          probe = true;
          break;
        }
        if (verdict === "wait") {
          requeue = true;
          o.count?.("retried", values.length);
          break;
        }
        if (verdict === "give-up") break;
        o.count?.("retried", values.length);
        await sleep(
          o.clock,
          info.retryAfterMs !== undefined
            ? Math.min(info.retryAfterMs, o.maxRetryDelay)
            : backoffDelay(delivery.attempts, {
              base: o.retryDelay,
              max: o.maxRetryDelay,
              jitter: o.jitter ?? 0,
            }),
          signal,
        );
        if (delivery.abandoned) break;
      }
    }
    // An abandoned batch was counted, settled and reported already.
    if (delivery.abandoned) return;
    this.#deliveries.delete(delivery);
    this.#activeRequests--;
    this.#inFlightItems -= delivery.entries.length;
    if (requeue) {
      this.#queue = [...delivery.entries, ...this.#queue].sort((a, b) =>
        a.seq - b.seq
      );
    } else if (failure !== undefined) {
      let dropped = delivery.entries;
      if (probe && o.afterFailedProbe === "drop-waiting") {
        // The endpoint is still down: what the flush waits for goes too,
        // at once, rather than each batch probing in turn.
        const waiting = this.#queue.filter((e) => e.seq <= this.#drainUpTo);
        this.#queue = this.#queue.filter((e) => e.seq > this.#drainUpTo);
        dropped = [...dropped, ...waiting];
      }
      this.#report(() =>
        o.onFailed?.({
          failure: failure.info,
          error: failure.error,
          attempts: delivery.attempts,
          items: dropped.length,
          probe,
        })
      );
      this.#settle(dropped, true, undefined);
    } else {
      if (o.overflowEndsOn === "delivery") this.#overflowing = false;
      this.#settle(delivery.entries, false, rejected);
    }
    this.#pump();
  }

  // A flush's signal fired: drop what it still waits for (or everything),
  // abort those requests and retry waits, report it once, resolve it.
  #abandon(waiter: Waiter, reason: unknown): void {
    if (!this.#waiters.includes(waiter)) return;
    const target = this.#o.abandon === "all" ? Infinity : waiter.target;
    let items = 0;
    const removed = this.#queue.filter((entry) => entry.seq <= target);
    this.#queue = this.#queue.filter((entry) => entry.seq > target);
    if (removed.length > 0) {
      items += removed.length;
      this.#settle(removed, true, undefined);
    }
    for (const delivery of [...this.#deliveries]) {
      if (!delivery.entries.some((entry) => entry.seq <= target)) continue;
      delivery.abandoned = true;
      delivery.controller.abort(reason);
      this.#deliveries.delete(delivery);
      this.#activeRequests--;
      this.#inFlightItems -= delivery.entries.length;
      this.#outage.released(delivery);
      items += delivery.entries.length;
      this.#settle(delivery.entries, true, undefined);
    }
    if (this.#waiters.includes(waiter)) {
      // Every item it waits for was settled above; never leave a caller
      // hanging regardless.
      this.#waiters = this.#waiters.filter((other) => other !== waiter);
      waiter.resolve({
        delivered: waiter.delivered,
        dropped: waiter.dropped + Math.max(0, waiter.remaining),
      });
    }
    if (items > 0) this.#report(() => this.#o.onAbandoned?.(items, reason));
    this.#pump();
  }

  #settle(
    batch: Entry<T>[],
    failed: boolean,
    rejected: ReadonlySet<number> | undefined,
  ): void {
    let dropped = 0;
    for (let i = 0; i < batch.length; i++) {
      if (failed || rejected?.has(i)) dropped++;
    }
    this.#dropped += dropped;
    this.#delivered += batch.length - dropped;
    if (dropped > 0) this.#o.count?.("dropped", dropped);
    if (batch.length > dropped) {
      this.#o.count?.("delivered", batch.length - dropped);
    }
    if (this.#waiters.length === 0) return;
    const done: Waiter[] = [];
    for (const waiter of this.#waiters) {
      for (let i = 0; i < batch.length; i++) {
        if (batch[i].seq > waiter.target) continue;
        waiter.remaining--;
        if (failed || rejected?.has(i)) waiter.dropped++;
        else waiter.delivered++;
      }
      if (waiter.remaining <= 0) done.push(waiter);
    }
    if (done.length === 0) return;
    this.#waiters = this.#waiters.filter((waiter) => !done.includes(waiter));
    for (const waiter of done) {
      waiter.resolve({ delivered: waiter.delivered, dropped: waiter.dropped });
    }
  }

  #arm(): void {
    if (this.#o.flushInterval <= 0 || this.#queue.length === 0) return;
    const clock = this.#o.clock;
    this.#timer = this.#detach(() =>
      clock.setTimeout(() => {
        this.#timer = undefined;
        this.#drainUpTo = this.#seq;
        this.#pump();
      }, this.#o.flushInterval)
    );
  }

  #disarm(): void {
    if (this.#timer !== undefined) {
      this.#o.clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#probeTimer !== undefined) {
      this.#o.clock.clearTimeout(this.#probeTimer);
      this.#probeTimer = undefined;
    }
  }

  #report(hook: () => void): void {
    try {
      hook();
    } catch {
      // A hook that throws must not break delivery.
    }
  }
}
