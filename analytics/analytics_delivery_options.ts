import type { Clock } from "../core/mod.ts";

/**
 * Batching, queueing and retry settings shared by the HTTP providers
 * ({@linkcode CustomAnalyticsProvider} and {@linkcode ExternalAnalyticsProvider}).
 * All times are milliseconds.
 *
 * @example Usage
 * ```ts
 * import type { AnalyticsDeliveryOptions } from "@vendor/kit/analytics";
 *
 * const delivery: AnalyticsDeliveryOptions = {
 *   batchSize: 50,
 *   flushInterval: 30000,
 *   maxQueueSize: 10000,
 *   maxRetries: 5,
 *   onError: (error) => console.warn(error.message),
 * };
 * console.log(delivery.batchSize);
 * ```
 */
export interface AnalyticsDeliveryOptions {
  /**
   * Events per request; a request leaves as soon as this many are waiting.
   * Custom provider default 50; GA4 default and maximum 25.
   */
  batchSize?: number;
  /**
   * The longest an event waits before its batch is sent, even when the batch
   * is not full. 0 turns the timer off (only `batchSize` and `flush()` send).
   * Custom provider default 30000; GA4 default 5000. The timer is
   * unref'd: it never keeps a process alive.
   */
  flushInterval?: number;
  /**
   * Events waiting to be sent, at most (in-flight batches not counted).
   * Beyond it new events are dropped and counted in `droppedCount`.
   * Default 10000.
   */
  maxQueueSize?: number;
  /**
   * Retries of a batch after a network error, a timeout, 408, 429 or 5xx,
   * before it is dropped. Other statuses (400, 401, 403, 404, 413, …) are
   * never retried. Default 5.
   */
  maxRetries?: number;
  /**
   * Base of the exponential backoff: retry n waits between half and all of
   * `retryDelay * 2^(n-1)`. Default 1000.
   */
  retryDelay?: number;
  /**
   * Upper bound of one backoff wait, and of a server's `Retry-After` (which
   * otherwise replaces the backoff). Default 60000.
   */
  maxRetryDelay?: number;
  /** Abort a request that takes longer (then it is retried). Default 10000. */
  requestTimeout?: number;
  /** Batches in flight at once. Default 2. */
  maxConcurrentRequests?: number;
  /**
   * Receives delivery failures ({@linkcode AnalyticsDeliveryError}), queue
   * overflow ({@linkcode AnalyticsQueueFullError}) and configuration
   * warnings. Default: the `onError` of the {@linkcode AnalyticsManager}
   * the provider is added to, else `console.error`.
   */
  onError?: (error: Error) => void;
  /**
   * The clock the `flushInterval` timer and the waits between retries run
   * on. Default `systemClock` (real time, unref'd timers). A test gives the
   * test kit's `FakeClock` and moves time with `clock.advance(ms)`; the
   * `requestTimeout` of a request stays on real time, as the request does.
   */
  clock?: Clock;
}
