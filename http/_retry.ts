// Retry policy helpers of HttpClient: which methods and statuses are retried,
// the backoff delay and an abortable sleep (Retry-After is read by
// parseRetryAfter of kit-core).
import type { Clock } from "../core/mod.ts";

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
export function backoffDelay(
  retry: number,
  retryDelay: number,
  maxDelay: number,
  jitter: number,
): number {
  const nominal = Math.min(maxDelay, retryDelay * 2 ** (retry - 1));
  return jitter > 0 ? nominal * (1 - jitter * Math.random()) : nominal;
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
export function sleep(
  clock: Clock,
  ms: number,
  first: AbortSignal | undefined,
  second: AbortSignal | undefined,
): Promise<void> {
  first?.throwIfAborted();
  second?.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (event: Event): void => {
      clock.clearTimeout(timer);
      first?.removeEventListener("abort", onAbort);
      second?.removeEventListener("abort", onAbort);
      reject((event.target as AbortSignal).reason);
    };
    const timer = clock.setTimeout(() => {
      first?.removeEventListener("abort", onAbort);
      second?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    first?.addEventListener("abort", onAbort);
    second?.addEventListener("abort", onAbort);
  });
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
