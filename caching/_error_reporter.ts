import { hostLogger, Signal } from "../platform/mod.ts";
import type { CacheError } from "./cache_error.ts";
import { CacheStoreRecovered } from "./cache_store_recovered.ts";

/**
 * Delivers a provider's errors to its `onError` option and to the listeners
 * of its `errorOccurred` signal; when nobody listens, to the running
 * application's logging (`kit.cache`) or else the console, so a failure is
 * never silent.
 */
export class ErrorReporter {
  readonly signal: Signal<CacheError>;
  readonly #onError: ((error: CacheError) => void) | undefined;
  readonly #label: string;

  constructor(label: string, onError?: (error: CacheError) => void) {
    this.#label = label;
    this.#onError = onError;
    this.signal = new Signal<CacheError>({
      onError: (error) =>
        console.error(`${label}: an error listener threw:`, error),
    });
  }

  report(error: CacheError): void {
    if (this.#onError !== undefined) {
      try {
        this.#onError(error);
      } catch (hookError) {
        console.error(`${this.#label}: onError threw:`, hookError);
      }
    }
    if (this.signal.size > 0) this.signal.dispatch(error);
    else if (this.#onError === undefined) {
      reportCacheErrorByDefault(this.#label, error);
    }
  }
}

/**
 * Where a cache error goes when nobody asked for it: the running
 * application's logging under `kit.cache` (a recovery as info, the rest as
 * warnings: the cache keeps working on misses), else the console.
 */
export function reportCacheErrorByDefault(
  label: string,
  error: CacheError,
): void {
  const recovered = error instanceof CacheStoreRecovered;
  const logger = hostLogger("kit.cache");
  if (logger !== undefined) {
    if (recovered) logger.info(error.message, { source: label });
    else logger.warning(error.message, { source: label, error });
  } else if (recovered) console.info(`${label}: ${error.message}`);
  else console.warn(`${label}:`, error);
}
