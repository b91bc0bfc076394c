/**
 * A timer handle as returned by `setTimeout` or `setInterval` in any runtime:
 * a number in Deno and browsers, a `Timeout` object in Node.js and Bun.
 */
export type TimerHandle = ReturnType<typeof setTimeout>;
