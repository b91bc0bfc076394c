// Internal: the analytics providers' side of the shared delivery queue
// (internal/delivery/delivery_queue.ts, which owns batching, bounds, retries through
// the backoff, the outage breaker and flush deadlines). Here is what is
// analytics' own: its error classes, the kit.analytics.events counts, the
// delivery span, and the health shape.
//
// The analytics settings of the queue: up to `maxConcurrentRequests` batches
// in flight, half jitter on the backoff, a full queue drops the newest
// event, a failed probe drops its own batch only, and an idle queue forgets
// an outage (the next batch gets its full retry schedule).
import {
  AnalyticsDeliveryAbortedError,
  AnalyticsDeliveryError,
  AnalyticsQueueFullError,
} from "./analytics_errors.ts";
import { SendFailure } from "./_http.ts";
import { countEvents, inDeliverySpan } from "./_telemetry.ts";
import { type HealthCheckResult, RequestContext } from "../platform/mod.ts";
import type { ResolvedDeliveryOptions } from "./_options.ts";
import {
  type DeliveryFailure,
  DeliveryQueue as SharedQueue,
} from "../internal/delivery/delivery_queue.ts";

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

/** The providers' delivery options (the clock runs the timer and waits). */
export interface AnalyticsDeliveryQueueOptions<T> extends
  Pick<
    ResolvedDeliveryOptions,
    | "batchSize"
    | "flushInterval"
    | "maxQueueSize"
    | "maxRetries"
    | "retryDelay"
    | "maxRetryDelay"
    | "maxConcurrentRequests"
    | "onError"
    | "clock"
  > {
  name: string;
  endpoint: string;
  send: SendBatch<T>;
  /** When set, a batch only holds events with the same key as its first one. */
  batchKey?: (value: T) => string;
}

/** Where the circuit breaker stands, in the words of the health detail. */
export type BreakerState = "closed" | "retrying" | "open";

const BREAKER = { up: "closed", retrying: "retrying", down: "open" } as const;

export class AnalyticsDeliveryQueue<T> extends SharedQueue<T> {
  #droppedAtLastCheck = 0;

  constructor(o: AnalyticsDeliveryQueueOptions<T>) {
    const report = (error: Error): void => {
      try {
        o.onError(error);
      } catch {
        // An error hook that throws must not break delivery.
      }
    };
    super({
      batchSize: o.batchSize,
      flushInterval: o.flushInterval,
      maxQueueSize: o.maxQueueSize,
      maxRetries: o.maxRetries,
      retryDelay: o.retryDelay,
      maxRetryDelay: o.maxRetryDelay,
      maxConcurrentRequests: o.maxConcurrentRequests,
      // Half jitter: between half and all of the exponential delay.
      jitter: 0.5,
      clock: o.clock,
      batchKey: o.batchKey,
      detach: RequestContext.detach,
      send: (batch, signal, attempt) =>
        inDeliverySpan(
          o.name,
          o.endpoint,
          batch.length,
          attempt,
          () => o.send(batch, signal),
        ),
      classify: (error): DeliveryFailure =>
        error instanceof SendFailure
          ? error.info
          : { retriable: false, reason: messageOf(error), cause: error },
      count: (outcome, events) => countEvents(o.name, outcome, events),
      onOverflow: () =>
        report(new AnalyticsQueueFullError(o.name, o.maxQueueSize)),
      onFailed: ({ failure, error, attempts, items, probe }) =>
        report(
          new AnalyticsDeliveryError({
            endpoint: o.endpoint,
            attempts,
            events: items,
            status: failure.status,
            reason: probe
              ? `${failure.reason} (not retried: an earlier batch used up its retries)`
              : failure.reason,
            cause: failure.cause ?? error,
          }),
        ),
      onAbandoned: (events, reason) =>
        report(
          new AnalyticsDeliveryAbortedError({
            provider: o.name,
            endpoint: o.endpoint,
            events,
            cause: reason,
          }),
        ),
    });
  }

  /**
   * The queue's health: degraded while the last request failed, while the
   * breaker is not closed, or when events were dropped since the previous
   * call (which this call then resets). Counts only, never an address.
   */
  health(extraDegraded?: string): HealthCheckResult {
    const { dropped, delivered, outage, failing: lastFailed } = this.state;
    const droppedSinceLastCheck = dropped - this.#droppedAtLastCheck;
    this.#droppedAtLastCheck = dropped;
    const breaker = BREAKER[outage];
    const failing = lastFailed || breaker !== "closed";
    const reasons: string[] = [];
    if (extraDegraded !== undefined) reasons.push(extraDegraded);
    if (failing) reasons.push("deliveries are failing");
    if (droppedSinceLastCheck > 0) {
      reasons.push(
        `${droppedSinceLastCheck} event(s) dropped since the last check`,
      );
    }
    const detail = {
      pending: this.queued + this.inFlight,
      delivered,
      dropped,
      droppedSinceLastCheck,
      failing,
      breaker,
    };
    return reasons.length === 0 ? { status: "healthy", detail } : {
      status: "degraded",
      detail: { ...detail, reason: reasons.join("; ") },
    };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
