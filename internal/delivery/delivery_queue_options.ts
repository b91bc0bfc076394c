// The options of the shared delivery queue (internal/delivery/delivery_queue.ts),
// what its hooks are given, and what it reports: the bounds and the retry
// policy are numbers; the module's part (sending a batch, reading a
// failure, reporting drops and counts) is hooks.
import type { Clock } from "../../core/mod.ts";
import type { OutageState } from "./outage_tracker.ts";

/** Why a batch failed, and whether trying again can help. */
export interface DeliveryFailure {
  /** Whether a retry can help (network errors, timeouts, 408, 429, 5xx). */
  readonly retriable: boolean;
  /** The answer's status, when there was one. */
  readonly status?: number;
  /** The delay the server asked for (Retry-After), in milliseconds. */
  readonly retryAfterMs?: number;
  /** The failure in words. */
  readonly reason: string;
  /** The error underneath. */
  readonly cause?: unknown;
}

/** How many items met an outcome, for counters. */
export type DeliveryOutcome = "delivered" | "dropped" | "retried";

/** A batch the queue gave up on, for the module's report. */
export interface FailedBatch {
  /** The last attempt's failure. */
  readonly failure: DeliveryFailure;
  /** What the last attempt threw. */
  readonly error: unknown;
  /** Attempts made. */
  readonly attempts: number;
  /** Items dropped with it (with `afterFailedProbe: "drop-waiting"`, the waiting ones too). */
  readonly items: number;
  /** Whether it was a probe while the endpoint was down. */
  readonly probe: boolean;
}

/** How a {@linkcode DeliveryQueue} is set up; the hooks are the module's part. */
export interface DeliveryQueueOptions<T> {
  /** Items per batch at most. */
  readonly batchSize: number;
  /** Milliseconds after which waiting items go out; 0 or less: never. */
  readonly flushInterval: number;
  /** Items waiting at most. */
  readonly maxQueueSize: number;
  /** Retries of a batch after its first attempt. */
  readonly maxRetries: number;
  /** The backoff's first delay, in milliseconds. */
  readonly retryDelay: number;
  /** The backoff's longest delay (Retry-After included). */
  readonly maxRetryDelay: number;
  /** Batches in flight at most. Default 1. */
  readonly maxConcurrentRequests?: number;
  /** The backoff's jitter fraction (see internal/delivery/backoff.ts). Default 0. */
  readonly jitter?: number;
  /** The least time between two probes while the endpoint is down. Default 0. */
  readonly minProbeInterval?: number;
  /** Runs the interval timer and the retry waits. */
  readonly clock: Clock;
  /**
   * One attempt at a batch (the same array on every attempt). Throws when
   * the batch failed as a whole; may return the indices of items it had to
   * drop while the rest went through. `signal` aborts when the queue gives
   * up on the batch.
   */
  readonly send: (
    batch: readonly T[],
    signal: AbortSignal,
    attempt: number,
  ) => Promise<ReadonlySet<number> | void>;
  /** What a thrown error means for the retries. */
  readonly classify: (error: unknown) => DeliveryFailure;
  /** When set, a batch only holds items with the key of its first one. */
  readonly batchKey?: (item: T) => string;
  /** Which item a full queue drops. Default `"drop-newest"`. */
  readonly overflow?: "drop-newest" | "drop-oldest";
  /**
   * When an overflow episode ends (the next overflow is reported again):
   * once there is room, or once a batch was delivered. Default `"room"`.
   */
  readonly overflowEndsOn?: "room" | "delivery";
  /**
   * What a failed probe drops: its batch, or with it every item a flush
   * waits for (reported together). Default `"drop-batch"`.
   */
  readonly afterFailedProbe?: "drop-batch" | "drop-waiting";
  /**
   * What a flush whose signal fired drops: what it waits for, or
   * everything queued and in flight. Default `"waited"`.
   */
  readonly abandon?: "waited" | "all";
  /** Whether an idle queue forgets an outage. Default `true`. */
  readonly forgetOutageWhenIdle?: boolean;
  /** Runs a batch's delivery and the timer outside the caller's context. */
  readonly detach?: <R>(fn: () => R) => R;
  /** Counts items by outcome. */
  readonly count?: (outcome: DeliveryOutcome, items: number) => void;
  /** The queue was full and an item was dropped (once per episode). */
  readonly onOverflow?: () => void;
  /** A batch was given up on after its attempts. */
  readonly onFailed?: (batch: FailedBatch) => void;
  /** A flush's signal fired and `items` were dropped. */
  readonly onAbandoned?: (items: number, reason: unknown) => void;
}

/** What a flush delivered and dropped. */
export interface FlushCounts {
  /** Items delivered. */
  readonly delivered: number;
  /** Items dropped. */
  readonly dropped: number;
}

/** A {@linkcode DeliveryQueue}'s counts and state. */
export interface DeliveryState {
  /** Items delivered so far. */
  readonly delivered: number;
  /** Items dropped so far. */
  readonly dropped: number;
  /** Attempts that failed so far. */
  readonly failedAttempts: number;
  /** Whether the last attempt failed (until one gets an answer). */
  readonly failing: boolean;
  /** Where the endpoint stands. */
  readonly outage: OutageState;
  /** Whether `close()` was called. */
  readonly closed: boolean;
}
