// Core's own copy of the timer handle type: core imports nothing else of
// Kit (internal/timer_handle.ts is the one the other modules share).
/**
 * A timer handle as returned by `setTimeout` or `setInterval` in any runtime:
 * a number in Deno and browsers, a `Timeout` object in Node.js and Bun.
 */
export type TimerHandle = ReturnType<typeof setTimeout>;
