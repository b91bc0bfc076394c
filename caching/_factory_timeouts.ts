// The two timeouts of a factory run: `softTimeout` (how long a caller served
// a stale value waits for the refresh before it gets the stale value) and
// `hardTimeout` (how long a run may take before it fails and its signal
// aborts). Both run on the manager's clock, so a FakeClock drives them.
import type { Clock } from "../core/mod.ts";
import { CacheFactoryError } from "./cache_factory_error.ts";

/**
 * The refresh's value if it comes within `ms`, else (or if it fails) the
 * stale value; the refresh goes on either way.
 */
export function softWait<T>(
  clock: Clock,
  refresh: Promise<unknown>,
  stale: T,
  ms: number,
): Promise<T> {
  return new Promise<T>((resolve) => {
    const timer = clock.setTimeout(() => resolve(stale), ms);
    refresh.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value as T);
      },
      () => {
        clock.clearTimeout(timer);
        resolve(stale);
      },
    );
  });
}

/**
 * Rejects with a timeout CacheFactoryError (and aborts the factory's signal
 * with it) when `run` takes more than `ms`; a late outcome of `run` is then
 * dropped, never an unhandled rejection.
 */
export function bounded<T>(
  clock: Clock,
  run: Promise<T>,
  key: string,
  ms: number,
  controller: AbortController,
  onTimeout: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(() => {
      const error = new CacheFactoryError(key, undefined, ms);
      controller.abort(error);
      reject(error);
      onTimeout();
    }, ms);
    run.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimeout(timer);
        reject(error);
      },
    );
  });
}
