import { unrefTimer } from "./_unref_timer.ts";

/**
 * Where Kit's time-driven parts read the time and schedule their waits: the
 * cache's ages and factory timeouts, the localization cache's expiry, the
 * batching intervals of analytics and remote logging, the HTTP client's waits
 * between attempts. Each takes one as its `clock` option; the default is
 * {@linkcode systemClock}. A test passes the test kit's `FakeClock` instead,
 * and moves time by hand.
 *
 * A clock of your own must keep `now()` and its timers in step: a timer set
 * for `ms` runs once `now()` has moved on by at least `ms`.
 *
 * @example A clock that reads the system time and logs each wait
 * ```ts
 * import { type Clock, systemClock } from "@vendor/kit/core";
 *
 * const clock: Clock = {
 *   now: () => systemClock.now(),
 *   setTimeout(callback, ms) {
 *     console.log(`waiting ${ms} ms`);
 *     return systemClock.setTimeout(callback, ms);
 *   },
 *   clearTimeout: (handle) => systemClock.clearTimeout(handle),
 * };
 * clock.clearTimeout(clock.setTimeout(() => {}, 1000));
 * ```
 */
export interface Clock {
  /**
   * The current time, in milliseconds since the epoch (as `Date.now()`).
   *
   * @returns The time.
   */
  now(): number;
  /**
   * Runs `callback` once, after `ms` milliseconds of this clock's time.
   *
   * @param callback What to run.
   * @param ms The delay; a negative or non-finite delay counts as 0.
   * @returns A handle for {@linkcode Clock.clearTimeout}.
   */
  setTimeout(callback: () => void, ms: number): unknown;
  /**
   * Cancels a timer of this clock; a handle that is not one of its pending
   * timers (or `undefined`) is ignored.
   *
   * @param handle What {@linkcode Clock.setTimeout} returned.
   */
  clearTimeout(handle: unknown): void;
}

// The longest delay setTimeout takes; Node.js runs a longer one at once.
const MAX_DELAY = 2_147_483_647;

/**
 * The real clock: `Date.now()` and the runtime's `setTimeout`, whose timers
 * are unref'd, so a pending wait never keeps a process alive on its own.
 * Delays longer than `setTimeout` accepts (about 24.8 days) are shortened
 * to that.
 *
 * @example Usage
 * ```ts
 * import { systemClock } from "@vendor/kit/core";
 *
 * const started = systemClock.now();
 * const timer = systemClock.setTimeout(() => {
 *   console.log(`${systemClock.now() - started} ms later`);
 * }, 10);
 * systemClock.clearTimeout(timer);
 * ```
 */
export const systemClock: Clock = Object.freeze({
  now: (): number => Date.now(),
  setTimeout: (callback: () => void, ms: number): unknown =>
    unrefTimer(
      setTimeout(callback, Number.isFinite(ms) ? Math.min(ms, MAX_DELAY) : 0),
    ),
  clearTimeout: (handle: unknown): void =>
    clearTimeout(handle as ReturnType<typeof setTimeout>),
});
