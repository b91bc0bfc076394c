import { unref } from "#internal/unref";

/**
 * A timer handle as returned by `setTimeout` or `setInterval` in any runtime
 * (timer_handle.ts's `TimerHandle`, spelled out here so that this file
 * imports nothing but its runtime flavour).
 */
type TimerHandle = ReturnType<typeof setTimeout>;

/**
 * Lets the process exit while the timer is still pending, so background work
 * (flush timers, cache clean-up) never keeps a server or CLI alive on its own.
 * Works in Deno (`Deno.unrefTimer`), Node.js and Bun (`timeout.unref()`); in
 * browsers, where there is no process to keep alive, it does nothing.
 *
 * @param handle What `setTimeout` or `setInterval` returned.
 * @returns The same handle, for chaining.
 *
 * @example Usage
 * ```ts
 * import { unrefTimer } from "./unref_timer.ts";
 *
 * const timer = unrefTimer(setInterval(() => {}, 60_000));
 * clearInterval(timer);
 * ```
 */
export function unrefTimer(handle: TimerHandle): TimerHandle {
  unref(handle);
  return handle;
}
