import { KitError } from "./kit_error.ts";
import type { TimerHandle } from "./_timer_handle.ts";
import { unrefTimer } from "./_unref_timer.ts";

/**
 * What every Kit `flush()` and `dispose()` that may wait on the network
 * accepts: an `AbortSignal`, a `timeout` in milliseconds, or both (whichever
 * fires first). When it fires, retries stop, what was not delivered is
 * counted as dropped and reported once, and the call resolves. The
 * application host passes the time left before its shutdown deadline.
 *
 * @example Usage
 * ```ts
 * import type { DisposeOptions } from "@vendor/kit/core";
 *
 * const options: DisposeOptions = { timeout: 2_000 };
 * ```
 */
export interface DisposeOptions {
  /** Stops waiting when it aborts. */
  signal?: AbortSignal;
  /** Stops waiting after this many milliseconds. */
  timeout?: number;
}

/**
 * Combines the `signal` and `timeout` of {@linkcode DisposeOptions} into one
 * `AbortSignal` (or `undefined` when neither is given). The timeout's timer
 * never keeps the process alive, and the signal's reason says which limit
 * fired.
 *
 * @param options The caller's options.
 * @returns One signal for both limits, or `undefined` for no limit.
 * @throws {RangeError} When `timeout` is negative or not a number.
 *
 * @example Usage
 * ```ts
 * import { deadlineSignal } from "@vendor/kit/core";
 *
 * const signal = deadlineSignal({ timeout: 50 });
 * // The deadline's timer never keeps the process alive, so the work it
 * // bounds must: here a slow step that the signal cuts short.
 * await new Promise<void>((resolve) => {
 *   const slow = setTimeout(resolve, 10_000);
 *   signal?.addEventListener("abort", () => {
 *     clearTimeout(slow);
 *     resolve();
 *   });
 * });
 * console.log(signal?.reason.message); // "Timed out after 50 ms"
 * ```
 */
export function deadlineSignal(
  options: DisposeOptions | undefined,
): AbortSignal | undefined {
  const signal = options?.signal;
  const timeout = options?.timeout;
  if (timeout === undefined) return signal;
  if (typeof timeout !== "number" || Number.isNaN(timeout) || timeout < 0) {
    throw new RangeError(
      `The timeout must be a number of milliseconds of 0 or more: ${timeout}`,
    );
  }
  const controller = new AbortController();
  let timer: TimerHandle | undefined;
  const onAbort = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    controller.abort(signal?.reason);
  };
  if (signal !== undefined) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      return controller.signal;
    }
    signal.addEventListener("abort", onAbort, { once: true });
  }
  if (Number.isFinite(timeout)) {
    timer = unrefTimer(setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      controller.abort(new DeadlineError(timeout));
    }, Math.min(timeout, 2_147_483_647)));
  }
  return controller.signal;
}

/**
 * The reason of a signal made by {@linkcode deadlineSignal} when its
 * `timeout` fired.
 *
 * @example Usage
 * ```ts
 * import { DeadlineError } from "@vendor/kit/core";
 *
 * const error = new DeadlineError(250);
 * console.log(error.message); // "Timed out after 250 ms"
 * ```
 */
export class DeadlineError extends KitError {
  /** What went wrong, as a stable string: `deadline`. */
  readonly code = "deadline";

  /** The timeout that fired, in milliseconds. */
  readonly timeout: number;

  /**
   * Creates the error.
   *
   * @param timeout The timeout that fired, in milliseconds.
   */
  constructor(timeout: number) {
    super(`Timed out after ${timeout} ms`);
    this.name = "DeadlineError";
    this.timeout = timeout;
  }
}
