// Internal: the bounded, batching, retrying queue behind the HTTP providers.
//
// - Events wait in a FIFO queue of at most `maxQueueSize`; beyond that new
//   events are dropped and counted (one AnalyticsQueueFullError per episode).
// - A batch leaves when `batchSize` events are waiting, when the interval
//   timer fires (it is armed while the queue is not empty and is unref'd), or
//   when `flush()` asks for everything.
// - Up to `maxConcurrentRequests` batches are in flight. A failed batch is
//   retried on retriable failures (network, 408, 429, 5xx) with exponential
//   backoff and jitter, or after the server's Retry-After, at most
//   `maxRetries` times; then it is dropped and reported.
// - Circuit breaker, so that retry schedules never stack up while the
//   endpoint is down: the first batch that fails retriably becomes the lead
//   and runs its retry schedule alone ("retrying": no other batch starts, a
//   batch already in flight that fails goes back to the queue). If the lead
//   uses up its retries the breaker opens: batches then go one at a time, as
//   probes of a single attempt (a failed probe is dropped and reported), until
//   one gets through. The breaker closes on any answer that is not a
//   retriable failure, and when nothing is queued or in flight.
// - Each event gets a sequence number. `flush()` resolves once every event
//   that was queued or in flight when it was called has been delivered or
//   dropped, and reports how many of each. When its signal fires first, the
//   events it waits for that are still queued or in flight are dropped (their
//   requests and retry waits aborted), reported in one error, and it resolves.
import type { AnalyticsFlushResult } from "./analytics_provider.ts";
import {
  AnalyticsDeliveryAbortedError,
  AnalyticsDeliveryError,
  AnalyticsQueueFullError,
} from "./analytics_errors.ts";
import { SendFailure, type SendFailureInfo } from "./_http.ts";
import { countEvents, inDeliverySpan } from "./_telemetry.ts";
import { type HealthCheckResult, RequestContext } from "../platform/mod.ts";
import {
  type Clock,
  deadlineSignal,
  type DisposeOptions,
} from "../core/mod.ts";
import { backoffDelay, sleep } from "../internal/backoff.ts";

/**
 * Sends one batch. Throws SendFailure (or anything, treated as not
 * retriable) when the batch failed as a whole; may return the indices of
 * single events it had to drop (for example because they cannot be
 * serialized) while sending the rest. `signal` aborts when the queue gives
 * up on the batch (a flush deadline).
 */
export type SendBatch<T> = (
  batch: readonly T[],
  signal: AbortSignal,
) => Promise<ReadonlySet<number> | void>;

export interface DeliveryQueueOptions<T> {
  name: string;
  endpoint: string;
  batchSize: number;
  flushInterval: number;
  maxQueueSize: number;
  maxRetries: number;
  retryDelay: number;
  maxRetryDelay: number;
  maxConcurrentRequests: number;
  send: SendBatch<T>;
  /** When set, a batch only holds events with the same key as its first one. */
  batchKey?: (value: T) => string;
  onError: (error: Error) => void;
  /**
   * Runs the interval timer and the retry waits (the system clock's timers
   * are unref'd).
   */
  clock: Clock;
}

interface Entry<T> {
  readonly seq: number;
  readonly value: T;
}

interface Delivery<T> {
  readonly entries: Entry<T>[];
  readonly controller: AbortController;
  attempts: number;
  /** Given up on by a flush deadline: already counted and reported. */
  abandoned: boolean;
}

interface Waiter {
  readonly target: number;
  remaining: number;
  delivered: number;
  dropped: number;
  readonly resolve: (result: AnalyticsFlushResult) => void;
}

/** Where the circuit breaker stands (see the top of the file). */
export type BreakerState = "closed" | "retrying" | "open";

// Longest delay setTimeout accepts; used for a ref'd keep-alive while a flush
// is being awaited (retry sleeps are unref'd).
const KEEP_ALIVE_MS = 2_147_483_647;

export class DeliveryQueue<T> {
  readonly #o: DeliveryQueueOptions<T>;
  #queue: Entry<T>[] = [];
  #seq = 0;
  #drainUpTo = 0;
  #activeRequests = 0;
  #inFlightEvents = 0;
  #deliveries = new Set<Delivery<T>>();
  #breaker: BreakerState = "closed";
  #lead: Delivery<T> | undefined;
  #lastAttemptFailed = false;
  #timer: unknown;
  #waiters: Waiter[] = [];
  #closed = false;
  #delivered = 0;
  #dropped = 0;
  #overflowReported = false;
  #droppedAtLastCheck = 0;

  constructor(options: DeliveryQueueOptions<T>) {
    this.#o = options;
  }

  get queued(): number {
    return this.#queue.length;
  }
  get inFlight(): number {
    return this.#inFlightEvents;
  }
  get delivered(): number {
    return this.#delivered;
  }
  get dropped(): number {
    return this.#dropped;
  }
  get closed(): boolean {
    return this.#closed;
  }
  get breaker(): BreakerState {
    return this.#breaker;
  }
  /** Whether the last request failed (until one succeeds). */
  get failing(): boolean {
    return this.#lastAttemptFailed;
  }

  /**
   * The queue's health: degraded while the last request failed, while the
   * breaker is not closed, or when events were dropped since the previous
   * call (which this call then resets). Counts only, never an address.
   */
  health(extraDegraded?: string): HealthCheckResult {
    const droppedSinceLastCheck = this.#dropped - this.#droppedAtLastCheck;
    this.#droppedAtLastCheck = this.#dropped;
    const failing = this.#lastAttemptFailed || this.#breaker !== "closed";
    const reasons: string[] = [];
    if (extraDegraded !== undefined) reasons.push(extraDegraded);
    if (failing) reasons.push("deliveries are failing");
    if (droppedSinceLastCheck > 0) {
      reasons.push(
        `${droppedSinceLastCheck} event(s) dropped since the last check`,
      );
    }
    const detail = {
      pending: this.#queue.length + this.#inFlightEvents,
      delivered: this.#delivered,
      dropped: this.#dropped,
      droppedSinceLastCheck,
      failing,
      breaker: this.#breaker,
    };
    return reasons.length === 0 ? { status: "healthy", detail } : {
      status: "degraded",
      detail: { ...detail, reason: reasons.join("; ") },
    };
  }

  /** Adds an event. Returns false when it was dropped (queue full or closed). */
  enqueue(value: T): boolean {
    if (this.#closed) {
      this.#dropped++;
      countEvents(this.#o.name, "dropped", 1);
      return false;
    }
    if (this.#queue.length >= this.#o.maxQueueSize) {
      this.#dropped++;
      countEvents(this.#o.name, "dropped", 1);
      if (!this.#overflowReported) {
        this.#overflowReported = true;
        this.#report(
          new AnalyticsQueueFullError(this.#o.name, this.#o.maxQueueSize),
        );
      }
      return false;
    }
    this.#queue.push({ seq: ++this.#seq, value });
    if (this.#queue.length >= this.#o.batchSize) {
      this.#pump();
    } else if (this.#timer === undefined) {
      this.#arm();
    }
    return true;
  }

  /** Counts an event as dropped without queueing it. */
  drop(): void {
    this.#dropped++;
    countEvents(this.#o.name, "dropped", 1);
  }

  /**
   * Sends everything queued now, and resolves when all of it (and whatever
   * was already in flight) is delivered or dropped, or when the options'
   * signal or timeout fires (then what is left is dropped and reported once).
   * Rejects only for an invalid timeout.
   */
  flush(options?: DisposeOptions): Promise<AnalyticsFlushResult> {
    let signal: AbortSignal | undefined;
    try {
      signal = deadlineSignal(options);
    } catch (error) {
      return Promise.reject(error);
    }
    const outstanding = this.#queue.length + this.#inFlightEvents;
    if (outstanding === 0) {
      return Promise.resolve({ delivered: 0, dropped: 0 });
    }
    return new Promise<AnalyticsFlushResult>((resolve) => {
      // Someone is waiting: keep the process alive until the answer, even
      // though retry sleeps and the interval timer are unref'd.
      const keepAlive = setTimeout(() => {}, KEEP_ALIVE_MS);
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

  /** Stops accepting events, then flushes (within the options' limits). */
  async close(options?: DisposeOptions): Promise<AnalyticsFlushResult> {
    this.#closed = true;
    try {
      return await this.flush(options);
    } finally {
      this.#disarm();
    }
  }

  #pump(): void {
    const o = this.#o;
    // Retrying: the lead batch alone. Open: one probe at a time.
    const limit = this.#breaker === "closed"
      ? o.maxConcurrentRequests
      : this.#breaker === "open"
      ? 1
      : 0;
    while (this.#activeRequests < limit && this.#queue.length > 0) {
      const urgent = this.#queue[0].seq <= this.#drainUpTo;
      if (!urgent && this.#queue.length < o.batchSize) break;
      const delivery: Delivery<T> = {
        entries: this.#take(),
        controller: new AbortController(),
        attempts: 0,
        abandoned: false,
      };
      this.#deliveries.add(delivery);
      this.#activeRequests++;
      this.#inFlightEvents += delivery.entries.length;
      // A batch holds the events of many requests, and its retries outlive
      // the one that filled it: no request's id or span goes with it.
      void RequestContext.detach(() => this.#deliver(delivery));
    }
    if (this.#queue.length < o.maxQueueSize) this.#overflowReported = false;
    if (this.#queue.length === 0) {
      this.#disarm();
      // The episode is over: the next batch gets its full retry schedule.
      if (this.#activeRequests === 0) this.#breaker = "closed";
    } else if (this.#timer === undefined) this.#arm();
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
    const values = delivery.entries.map((entry) => entry.value);
    const signal = delivery.controller.signal;
    let rejected: ReadonlySet<number> | undefined;
    let failure: { info: SendFailureInfo; error: unknown } | undefined;
    let probe = false;
    let requeue = false;
    for (;;) {
      delivery.attempts++;
      try {
        rejected = (await inDeliverySpan(
          this.#o.name,
          this.#o.endpoint,
          values.length,
          delivery.attempts,
          () => this.#o.send(values, signal),
        )) ?? undefined;
        failure = undefined;
        this.#answered(delivery);
        break;
      } catch (error) {
        if (delivery.abandoned) break;
        const info: SendFailureInfo = error instanceof SendFailure
          ? error.info
          : { retriable: false, reason: messageOf(error), cause: error };
        failure = { info, error };
        this.#lastAttemptFailed = true;
        if (!info.retriable) {
          // The endpoint answers: the breaker has no reason to stay open.
          this.#answered(delivery);
          this.#lastAttemptFailed = true;
          break;
        }
        if (this.#breaker === "open") {
          // A probe failed: the endpoint is still down; no retries.
          probe = true;
          break;
        }
        if (this.#lead === undefined) {
          this.#lead = delivery;
          this.#breaker = "retrying";
        } else if (this.#lead !== delivery) {
          // Another batch is retrying: wait in the queue for its outcome.
          requeue = true;
          countEvents(this.#o.name, "retried", values.length);
          break;
        }
        if (delivery.attempts > this.#o.maxRetries) {
          this.#lead = undefined;
          this.#breaker = "open";
          break;
        }
        countEvents(this.#o.name, "retried", values.length);
        await sleep(
          this.#o.clock,
          this.#delay(delivery.attempts, info.retryAfterMs),
          signal,
        );
        if (delivery.abandoned) break;
      }
    }
    // An abandoned batch was counted, settled and reported by #abandon.
    if (delivery.abandoned) return;
    this.#deliveries.delete(delivery);
    this.#activeRequests--;
    this.#inFlightEvents -= delivery.entries.length;
    if (requeue) {
      this.#queue = [...delivery.entries, ...this.#queue].sort((a, b) =>
        a.seq - b.seq
      );
    } else {
      if (failure !== undefined) {
        const { info, error } = failure;
        this.#report(
          new AnalyticsDeliveryError({
            endpoint: this.#o.endpoint,
            attempts: delivery.attempts,
            events: delivery.entries.length,
            status: info.status,
            reason: probe
              ? `${info.reason} (not retried: an earlier batch used up its retries)`
              : info.reason,
            cause: info.cause ?? error,
          }),
        );
      }
      this.#settle(delivery.entries, failure !== undefined, rejected);
    }
    this.#pump();
  }

  // The endpoint gave an answer other than a retriable failure.
  #answered(delivery: Delivery<T>): void {
    this.#lastAttemptFailed = false;
    if (this.#lead === delivery) {
      this.#lead = undefined;
      this.#breaker = "closed";
    } else if (this.#lead === undefined) {
      this.#breaker = "closed";
    }
  }

  #delay(attempt: number, retryAfterMs: number | undefined): number {
    const { retryDelay, maxRetryDelay } = this.#o;
    if (retryAfterMs !== undefined) {
      return Math.min(retryAfterMs, maxRetryDelay);
    }
    // Half jitter: between half and all of the exponential delay.
    return backoffDelay(attempt, {
      base: retryDelay,
      max: maxRetryDelay,
      jitter: 0.5,
    });
  }

  // A flush's signal fired: drop what it still waits for (queued entries and
  // the batches in flight that hold any of them), abort their requests and
  // retry waits, report it once, and let the flush resolve.
  #abandon(waiter: Waiter, reason: unknown): void {
    if (!this.#waiters.includes(waiter)) return;
    const target = waiter.target;
    let events = 0;
    const removed: Entry<T>[] = [];
    const kept: Entry<T>[] = [];
    for (const entry of this.#queue) {
      (entry.seq <= target ? removed : kept).push(entry);
    }
    this.#queue = kept;
    if (removed.length > 0) {
      events += removed.length;
      this.#settle(removed, true, undefined);
    }
    for (const delivery of [...this.#deliveries]) {
      if (!delivery.entries.some((entry) => entry.seq <= target)) continue;
      delivery.abandoned = true;
      delivery.controller.abort(reason);
      this.#deliveries.delete(delivery);
      this.#activeRequests--;
      this.#inFlightEvents -= delivery.entries.length;
      if (this.#lead === delivery) {
        this.#lead = undefined;
        this.#breaker = "closed";
      }
      events += delivery.entries.length;
      this.#settle(delivery.entries, true, undefined);
    }
    if (this.#waiters.includes(waiter)) {
      // Cannot happen (every event it waits for was settled above); never
      // leave a caller hanging regardless.
      this.#waiters = this.#waiters.filter((other) => other !== waiter);
      waiter.resolve({
        delivered: waiter.delivered,
        dropped: waiter.dropped + Math.max(0, waiter.remaining),
      });
    }
    if (events > 0) {
      this.#report(
        new AnalyticsDeliveryAbortedError({
          provider: this.#o.name,
          endpoint: this.#o.endpoint,
          events,
          cause: reason,
        }),
      );
    }
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
    countEvents(this.#o.name, "dropped", dropped);
    countEvents(this.#o.name, "delivered", batch.length - dropped);
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
    this.#timer = RequestContext.detach(() =>
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
  }

  #report(error: Error): void {
    try {
      this.#o.onError(error);
    } catch {
      // An error hook that throws must not break delivery.
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
