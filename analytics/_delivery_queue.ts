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
// - Each event gets a sequence number. `flush()` resolves once every event
//   that was queued or in flight when it was called has been delivered or
//   dropped, and reports how many of each.
import type { AnalyticsFlushResult } from "./analytics_provider.ts";
import {
  AnalyticsDeliveryError,
  AnalyticsQueueFullError,
} from "./analytics_errors.ts";
import { SendFailure, type SendFailureInfo } from "./_http.ts";
import { type TimerHandle, unrefTimer } from "../core/mod.ts";

/**
 * Sends one batch. Throws SendFailure (or anything, treated as not
 * retriable) when the batch failed as a whole; may return the indices of
 * single events it had to drop (for example because they cannot be
 * serialized) while sending the rest.
 */
export type SendBatch<T> = (
  batch: readonly T[],
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
}

interface Entry<T> {
  readonly seq: number;
  readonly value: T;
}

interface Waiter {
  readonly target: number;
  remaining: number;
  delivered: number;
  dropped: number;
  readonly resolve: (result: AnalyticsFlushResult) => void;
}

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
  #timer: TimerHandle | undefined;
  #waiters: Waiter[] = [];
  #closed = false;
  #delivered = 0;
  #dropped = 0;
  #overflowReported = false;

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

  /** Adds an event. Returns false when it was dropped (queue full or closed). */
  enqueue(value: T): boolean {
    if (this.#closed) {
      this.#dropped++;
      return false;
    }
    if (this.#queue.length >= this.#o.maxQueueSize) {
      this.#dropped++;
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
  }

  /**
   * Sends everything queued now, and resolves when all of it (and whatever
   * was already in flight) is delivered or dropped.
   */
  flush(): Promise<AnalyticsFlushResult> {
    const outstanding = this.#queue.length + this.#inFlightEvents;
    if (outstanding === 0) {
      return Promise.resolve({ delivered: 0, dropped: 0 });
    }
    return new Promise<AnalyticsFlushResult>((resolve) => {
      // Someone is waiting: keep the process alive until the answer, even
      // though retry sleeps and the interval timer are unref'd.
      const keepAlive = setTimeout(() => {}, KEEP_ALIVE_MS);
      this.#waiters.push({
        target: this.#seq,
        remaining: outstanding,
        delivered: 0,
        dropped: 0,
        resolve: (result) => {
          clearTimeout(keepAlive);
          resolve(result);
        },
      });
      this.#drainUpTo = this.#seq;
      this.#pump();
    });
  }

  /** Stops accepting events, then flushes. */
  async close(): Promise<AnalyticsFlushResult> {
    this.#closed = true;
    const result = await this.flush();
    this.#disarm();
    return result;
  }

  #pump(): void {
    const o = this.#o;
    while (
      this.#activeRequests < o.maxConcurrentRequests && this.#queue.length > 0
    ) {
      const urgent = this.#queue[0].seq <= this.#drainUpTo;
      if (!urgent && this.#queue.length < o.batchSize) break;
      const batch = this.#take();
      this.#activeRequests++;
      this.#inFlightEvents += batch.length;
      void this.#deliver(batch);
    }
    if (this.#queue.length < o.maxQueueSize) this.#overflowReported = false;
    if (this.#queue.length === 0) this.#disarm();
    else if (this.#timer === undefined) this.#arm();
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

  async #deliver(batch: Entry<T>[]): Promise<void> {
    const values = batch.map((entry) => entry.value);
    let attempts = 0;
    let rejected: ReadonlySet<number> | undefined;
    let failed = false;
    for (;;) {
      attempts++;
      try {
        rejected = (await this.#o.send(values)) ?? undefined;
        break;
      } catch (error) {
        const info: SendFailureInfo = error instanceof SendFailure
          ? error.info
          : { retriable: false, reason: messageOf(error), cause: error };
        if (!info.retriable || attempts > this.#o.maxRetries) {
          failed = true;
          this.#report(
            new AnalyticsDeliveryError({
              endpoint: this.#o.endpoint,
              attempts,
              events: batch.length,
              status: info.status,
              reason: info.reason,
              cause: info.cause ?? error,
            }),
          );
          break;
        }
        await sleep(this.#delay(attempts, info.retryAfterMs));
      }
    }
    this.#activeRequests--;
    this.#inFlightEvents -= batch.length;
    this.#settle(batch, failed, rejected);
    this.#pump();
  }

  #delay(attempt: number, retryAfterMs: number | undefined): number {
    const { retryDelay, maxRetryDelay } = this.#o;
    if (retryAfterMs !== undefined) {
      return Math.min(retryAfterMs, maxRetryDelay);
    }
    const base = Math.min(retryDelay * 2 ** (attempt - 1), maxRetryDelay);
    // "Equal jitter": between half and all of the exponential delay.
    return base / 2 + Math.random() * (base / 2);
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
    this.#timer = unrefTimer(setTimeout(() => {
      this.#timer = undefined;
      this.#drainUpTo = this.#seq;
      this.#pump();
    }, this.#o.flushInterval));
  }

  #disarm(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => unrefTimer(setTimeout(resolve, ms)));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
