// Whether an endpoint is reachable, as the delivery queue of remote logging
// and of analytics sees it, so that retry schedules never stack up while
// the endpoint is down:
//
// - "up": batches go out as the queue allows.
// - "retrying": the first batch that failed in a way worth retrying is the
//   lead; it runs its retry schedule alone, and other batches wait.
// - "down": the lead used up its retries. Batches then go one at a time, as
//   probes of a single attempt, at most one per `minProbeInterval`, until
//   one gets through.
//
// Any answer that is not a retriable failure brings the endpoint back up.
import type { Clock } from "../../core/mod.ts";

/** Where the tracker stands. */
export type OutageState = "up" | "retrying" | "down";

/** What a failed attempt should lead to. */
export type OutageVerdict =
  /** Wait (the backoff) and send the same batch again. */
  | "retry"
  /** Another batch is retrying: go back and wait for its outcome. */
  | "wait"
  /** The lead used up its retries: the endpoint is down now. */
  | "give-up"
  /** A probe failed: the endpoint is still down. */
  | "probe-failed";

/** How an {@linkcode OutageTracker} is set up. */
export interface OutageTrackerOptions {
  /** Where "now" comes from for the probe rate. Default `Date`. */
  readonly clock?: Pick<Clock, "now">;
  /**
   * The least time between the starts of two probes while the endpoint is
   * down, in milliseconds. Default 0 (one probe at a time, no pause).
   */
  readonly minProbeInterval?: number;
}

/**
 * Tracks an endpoint's outages for senders that retry: one lead retries
 * while the others wait, and once it gave up only probes go out, one at a
 * time and at a bounded rate.
 *
 * @typeParam T What identifies an attempt's owner (a batch).
 *
 * @example Usage
 * ```ts
 * import { OutageTracker } from "./outage_tracker.ts";
 *
 * const tracker = new OutageTracker<string>({ minProbeInterval: 1_000 });
 * tracker.failed("batch 1", 1, 0); // "give-up"
 * tracker.state; // "down"
 * tracker.allowed(4); // 1 (a probe), then 0 until a second has passed
 * ```
 */
export class OutageTracker<T> {
  readonly #now: () => number;
  readonly #minProbeInterval: number;
  #state: OutageState = "up";
  #lead: T | undefined;
  #lastProbe = -Infinity;

  /**
   * Creates a tracker, with the endpoint up.
   *
   * @param options The clock and the probe rate.
   * @throws {RangeError} When `minProbeInterval` is negative or no number.
   */
  constructor(options: OutageTrackerOptions = {}) {
    const clock = options.clock;
    this.#now = clock === undefined ? Date.now : () => clock.now();
    const interval = options.minProbeInterval ?? 0;
    if (!(interval >= 0)) {
      throw new RangeError(
        `minProbeInterval must be a number of milliseconds from 0, got ${interval}`,
      );
    }
    this.#minProbeInterval = interval;
  }

  /** Where the tracker stands. */
  get state(): OutageState {
    return this.#state;
  }

  /** The batch running its retry schedule, if any. */
  get lead(): T | undefined {
    return this.#lead;
  }

  /**
   * How many attempts may be in flight now: `concurrency` while up, none
   * while a lead retries, and while down one probe when the probe rate
   * allows it (else none: see {@linkcode OutageTracker.prototype.probeDelay}).
   *
   * @param concurrency How many the sender runs at once while up.
   * @returns The limit.
   */
  allowed(concurrency: number): number {
    if (this.#state === "up") return concurrency;
    if (this.#state === "retrying") return 0;
    return this.probeDelay() === 0 ? 1 : 0;
  }

  /**
   * How long until the next probe may start: 0 unless the endpoint is down
   * and the last probe started less than `minProbeInterval` ago.
   *
   * @returns Milliseconds.
   */
  probeDelay(): number {
    if (this.#state !== "down") return 0;
    return Math.max(0, this.#lastProbe + this.#minProbeInterval - this.#now());
  }

  /** Notes that a probe starts now (only while down). */
  probing(): void {
    if (this.#state === "down") this.#lastProbe = this.#now();
  }

  /**
   * An attempt failed in a way worth retrying.
   *
   * @param owner The batch whose attempt failed.
   * @param attempts Its attempts so far, this one included.
   * @param maxRetries How many retries a batch gets.
   * @returns What the sender should do with the batch.
   */
  failed(owner: T, attempts: number, maxRetries: number): OutageVerdict {
    if (this.#state === "down") return "probe-failed";
    if (this.#lead === undefined) {
      this.#lead = owner;
      this.#state = "retrying";
    } else if (this.#lead !== owner) {
      return "wait";
    }
    if (attempts > maxRetries) {
      this.#lead = undefined;
      this.#state = "down";
      // The lead's last attempt counts as the first probe.
      this.#lastProbe = this.#now();
      return "give-up";
    }
    return "retry";
  }

  /**
   * The endpoint answered (delivered, or refused in a way not worth a
   * retry): it is up again, unless another batch leads a retry schedule.
   *
   * @param owner The batch that got the answer.
   */
  answered(owner: T): void {
    if (this.#lead === undefined || this.#lead === owner) this.up();
  }

  /**
   * A batch was given up on from outside (a flush deadline): when it led,
   * nobody retries any more.
   *
   * @param owner The batch.
   */
  released(owner: T): void {
    if (this.#lead === owner) this.up();
  }

  /** Back to up: nothing is retrying and probes are over. */
  up(): void {
    this.#lead = undefined;
    this.#state = "up";
  }
}
