// Command deadlines for the Redis provider. node-redis's own `timeout` only
// covers the time a command waits to be written, not the wait for its reply,
// so a frozen server would hang callers. A command here races a deadline
// shared by every command started in the same time slot: one timer per slot
// instead of one per command.
import type { TimerHandle } from "../../internal/timer_handle.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";

/** What a race resolves to when the deadline comes first. */
export const TIMED_OUT: unique symbol = Symbol("timed out");

interface Slot {
  readonly promise: Promise<typeof TIMED_OUT>;
  readonly closesAt: number;
}

export class Deadlines {
  readonly timeout: number;
  readonly #width: number;
  readonly #timers = new Set<TimerHandle>();
  #slot: Slot | undefined;

  constructor(timeout: number) {
    this.timeout = timeout;
    this.#width = Math.max(1, Math.ceil(timeout / 4));
  }

  /**
   * Resolves like `promise`, or to TIMED_OUT once at least `timeout` (at most
   * `timeout` + a quarter of it) has passed.
   */
  race<T>(promise: Promise<T>): Promise<T | typeof TIMED_OUT> {
    const now = performance.now();
    let slot = this.#slot;
    if (slot === undefined || now >= slot.closesAt) {
      let fire!: (value: typeof TIMED_OUT) => void;
      const deadline = new Promise<typeof TIMED_OUT>((
        resolve,
      ) => (fire = resolve));
      const timer: TimerHandle = unrefTimer(setTimeout(() => {
        this.#timers.delete(timer);
        fire(TIMED_OUT);
      }, this.timeout + this.#width));
      this.#timers.add(timer);
      slot = { promise: deadline, closesAt: now + this.#width };
      this.#slot = slot;
    }
    return Promise.race([promise, slot.promise]);
  }

  dispose(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#slot = undefined;
  }
}

/**
 * The cause of an outage when Redis keeps the connection open but stops
 * answering: `<what> got no reply within <timeout> ms`.
 */
export class RedisTimeoutError extends Error {
  readonly timeout: number;

  constructor(what: string, timeout: number) {
    super(`${what} got no reply within ${timeout} ms`);
    this.name = "RedisTimeoutError";
    this.timeout = timeout;
  }
}

/**
 * Settles when `promise` settles, `ms` have passed (no limit when
 * `undefined`), or `signal` aborts, whichever comes first; never rejects. The timer never keeps a process
 * alive and is cleared on the way out.
 */
export async function settleWithin(
  promise: Promise<unknown>,
  ms: number | undefined,
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) return;
  let timer: TimerHandle | undefined;
  let onAbort: (() => void) | undefined;
  await Promise.race([
    promise.then(() => {}, () => {}),
    new Promise<void>((resolve) => {
      if (ms !== undefined) timer = unrefTimer(setTimeout(resolve, ms));
      if (signal !== undefined) {
        onAbort = () => resolve();
        signal.addEventListener("abort", onAbort, { once: true });
      }
    }),
  ]);
  clearTimeout(timer);
  if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
}
