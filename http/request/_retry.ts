// Retry policy helpers of HttpClient: which methods and statuses are retried,
// the backoff delay and an abortable sleep. The delay and the wait are Kit's
// one backoff rule (internal/delivery/backoff.ts); the client's jitter fraction is
// its `retryJitter` option.
import type { Clock } from "../../core/mod.ts";
import { backoffDelay, sleep } from "../../internal/delivery/backoff.ts";

/** Methods that are safe to send twice (RFC 9110 §9.2.2 minus TRACE). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "PUT",
  "DELETE",
  "OPTIONS",
]);

/** Statuses that are retried when retries remain. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([
  408,
  429,
  500,
  502,
  503,
  504,
]);

/**
 * Delay before retry number `retry` (1 for the first retry):
 * `retryDelay * 2^(retry-1)`, capped at `maxDelay`, then reduced by a random
 * fraction of at most `jitter` so that clients which failed together do not
 * retry together.
 */
export function retryBackoff(
  retry: number,
  retryDelay: number,
  maxDelay: number,
  jitter: number,
): number {
  return backoffDelay(retry, { base: retryDelay, max: maxDelay, jitter });
}

/**
 * The client's clock when none is given: the system time, with timers that
 * keep the process alive, since a caller is awaiting the call that waits.
 */
export const CALLER_CLOCK: Clock = Object.freeze({
  now: (): number => Date.now(),
  setTimeout: (callback: () => void, ms: number): unknown =>
    setTimeout(callback, ms),
  clearTimeout: (handle: unknown): void =>
    clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/**
 * Waits `ms` milliseconds on `clock`; rejects with the signal's reason as
 * soon as one of the signals aborts.
 */
export async function sleepOrThrow(
  clock: Clock,
  ms: number,
  first: AbortSignal | undefined,
  second: AbortSignal | undefined,
): Promise<void> {
  first?.throwIfAborted();
  second?.throwIfAborted();
  if (await sleep(clock, ms, first, second)) return;
  first?.throwIfAborted();
  second?.throwIfAborted();
}

/** Releases a response body that nobody will read, ignoring failures. */
export async function discard(response: Response): Promise<void> {
  if (response.body === null || response.bodyUsed) return;
  try {
    await response.body.cancel();
  } catch {
    // Already locked or errored: nothing left to release.
  }
}
