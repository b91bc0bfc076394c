// getOrSet's `lock` across instances: a run starts once this instance holds
// the store's lock on the key; while another instance holds it, the caller
// looks for that instance's value now and then, and runs anyway when
// `lockTimeout` has passed, rather than fail.
import { unrefTimer } from "../internal/unref_timer.ts";
import type { CacheCore, MaybeEntry } from "./_cache_core.ts";
import type { CacheEntry, CacheLockAttempt } from "./cache_provider.ts";

// How often a caller waiting on another instance's lock looks for the value
// (on real time, whatever the manager's clock: that instance works in real
// time): quickly at first (a fast factory is done within a few
// milliseconds), then less often, so that many waiters do not flood the
// store.
const FIRST_POLL = 4;
const MAX_POLL = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => unrefTimer(setTimeout(resolve, ms)));
}

/**
 * Runs `run` once the store's lock on `fullKey` is this caller's; while
 * another instance holds it, looks for that instance's value with a
 * growing pause, until `lockTimeout` has passed (then runs `run` anyway,
 * rather than fail).
 */
export async function runUnderLock<T>(
  core: CacheCore,
  fullKey: string,
  run: () => T | Promise<T>,
  lockTimeout: number,
  signal: AbortSignal,
  first: CacheLockAttempt | undefined,
  locked: (release: () => Promise<void>) => void,
): Promise<
  { value: T; fromStore: boolean; release?: () => Promise<void> }
> {
  const provider = core.provider;
  const deadline = performance.now() + lockTimeout;
  // The other instance's value, when the store holds it fresh.
  const stored = async (): Promise<CacheEntry | undefined> => {
    let entry: MaybeEntry;
    try {
      entry = await provider.get(fullKey);
    } catch (error) {
      core.providerFailed("get", fullKey, error);
    }
    return entry !== undefined &&
        (entry.ttl === undefined ||
          core.clock.now() - entry.storedAt < entry.ttl)
      ? entry
      : undefined;
  };
  let attempt = first ?? await provider.tryLock!(fullKey, lockTimeout);
  let pause = FIRST_POLL;
  while (!attempt.acquired && attempt.held) {
    // Past the hardTimeout the run is given up: no factory to start.
    if (signal.aborted) throw signal.reason;
    const left = deadline - performance.now();
    if (left <= 0) break;
    await sleep(Math.min(pause, left));
    pause = Math.min(pause * 2, MAX_POLL);
    const entry = await stored();
    if (entry !== undefined) {
      return { value: entry.value as T, fromStore: true };
    }
    attempt = await provider.tryLock!(fullKey, lockTimeout);
    if (attempt.acquired) {
      // The holder may have stored its value and let go between the look
      // above and this lock (it stores before it lets go): look once more,
      // now that no other run can start, rather than run again.
      const after = await stored();
      if (after !== undefined) {
        void attempt.release();
        return { value: after.value as T, fromStore: true };
      }
    }
  }
  const release = attempt.acquired ? attempt.release : undefined;
  // The hardTimeout may have passed during the last pause or look-up: then
  // no factory starts, and a lock just taken is given back.
  if (signal.aborted) {
    void release?.();
    throw signal.reason;
  }
  if (release !== undefined) locked(release);
  try {
    return { value: await run(), fromStore: false, release };
  } catch (error) {
    void release?.();
    throw error;
  }
}
