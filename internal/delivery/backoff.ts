// The one backoff rule of Kit's retrying parts: the HTTP client, remote log
// delivery and analytics delivery wait by it between attempts. Each keeps
// its own jitter fraction (how much of the delay chance may take off), so
// the rule is one formula with one knob rather than three formulas.
import type { Clock } from "../../core/mod.ts";
import { parseRetryAfter } from "./retry_after.ts";

/**
 * The longest delay `setTimeout` accepts; a longer one fires at once in
 * Node.js, so every wait here is clamped to it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** How the delays grow. */
export interface BackoffOptions {
  /** The delay before the first retry, in milliseconds. */
  readonly base: number;
  /** The longest delay, in milliseconds (Retry-After included). */
  readonly max: number;
  /**
   * The fraction of the delay that chance may take off, from 0 (none: the
   * nominal delay every time) to 1 (full jitter: anywhere from nothing to
   * the nominal delay). Default 1.
   */
  readonly jitter?: number;
  /** A number in [0, 1); `Math.random` by default. */
  readonly random?: () => number;
}

/**
 * The delay before retry `attempt` (1 for the first retry): `base` doubled
 * each attempt and capped at `max`, then shortened by a random part of at
 * most `jitter` of it, so that clients which failed together do not all
 * come back together.
 *
 * @param attempt The retry's number, from 1.
 * @param options The growth, the cap and the jitter.
 * @returns The delay in milliseconds.
 * @throws {RangeError} When `attempt` is below 1 or `jitter` outside 0..1.
 *
 * @example Usage
 * ```ts
 * import { backoffDelay } from "./backoff.ts";
 *
 * backoffDelay(3, { base: 100, max: 10_000, jitter: 0 }); // 400
 * ```
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const { base, max, jitter = 1, random = Math.random } = options;
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(
      `attempt must be a whole number from 1, got ${attempt}`,
    );
  }
  if (!(jitter >= 0 && jitter <= 1)) {
    throw new RangeError(`jitter must be between 0 and 1, got ${jitter}`);
  }
  const nominal = Math.min(max, base * 2 ** (attempt - 1));
  return jitter > 0 ? nominal * (1 - jitter * random()) : nominal;
}

/**
 * The wait before retry `attempt`: what the server asked for in its
 * `Retry-After` header (seconds or an HTTP date, read against `clock`) when
 * it is readable, else {@linkcode backoffDelay}; never more than
 * `options.max`.
 *
 * @param attempt The retry's number, from 1.
 * @param options The growth, the cap and the jitter.
 * @param retryAfter The `Retry-After` header's value, if any.
 * @param clock Where "now" comes from for an HTTP date.
 * @returns The delay in milliseconds.
 * @throws {RangeError} As {@linkcode backoffDelay}.
 *
 * @example Usage
 * ```ts
 * import { retryDelay } from "./backoff.ts";
 *
 * retryDelay(1, { base: 100, max: 5_000 }, "2"); // 2000
 * ```
 */
export function retryDelay(
  attempt: number,
  options: BackoffOptions,
  retryAfter?: string | null,
  clock?: Pick<Clock, "now">,
): number {
  const asked = parseRetryAfter(retryAfter ?? null, clock?.now());
  return asked === undefined
    ? backoffDelay(attempt, options)
    : Math.min(options.max, asked);
}

/**
 * Waits `ms` milliseconds on `clock` (clamped to {@linkcode MAX_TIMER_MS});
 * ends early when one of `signals` aborts. It never rejects: whether the
 * wait ran out is the answer. Whether the timer keeps a process alive is
 * the clock's choice (the system clock's timers do not).
 *
 * @param clock The clock whose timer runs the wait.
 * @param ms How long to wait.
 * @param signals Signals that end the wait early.
 * @returns `true` when the time ran out, `false` when a signal aborted.
 *
 * @example Usage
 * ```ts
 * import { systemClock } from "../../core/mod.ts";
 * import { sleep } from "./backoff.ts";
 *
 * await sleep(systemClock, 10, AbortSignal.timeout(1_000)); // true
 * ```
 */
export function sleep(
  clock: Clock,
  ms: number,
  ...signals: (AbortSignal | undefined)[]
): Promise<boolean> {
  const live = signals.filter((signal) => signal !== undefined);
  if (live.some((signal) => signal.aborted)) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const finish = (elapsed: boolean): void => {
      for (const signal of live) signal.removeEventListener("abort", onAbort);
      resolve(elapsed);
    };
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      finish(false);
    };
    const timer = clock.setTimeout(
      () => finish(true),
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    );
    for (const signal of live) {
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
}
