import { unref } from "#core/unref";
import type { TimerHandle } from "./_timer_handle.ts";

/**
 * Lets the process exit while a timer of core (the system clock's waits,
 * the deadline of `deadlineSignal`) is still pending. Core imports nothing
 * else of Kit, so it keeps this copy of the helper the other modules take
 * from `internal/unref_timer.ts`.
 *
 * @param handle What `setTimeout` or `setInterval` returned.
 * @returns The same handle, for chaining.
 *
 * @example Usage
 * ```ts
 * import { unrefTimer } from "./_unref_timer.ts";
 *
 * const timer = unrefTimer(setInterval(() => {}, 60_000));
 * clearInterval(timer);
 * ```
 */
export function unrefTimer(handle: TimerHandle): TimerHandle {
  unref(handle);
  return handle;
}
