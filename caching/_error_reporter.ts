import { Signal } from "../platform/mod.ts";
import type { CacheError } from "./cache_error.ts";
import { CacheStoreRecovered } from "./cache_store_recovered.ts";

/**
 * Delivers a provider's errors to its `onError` option and to the listeners
 * of its `errorOccurred` signal; when nobody listens, to `console.warn`, so a
 * failure is never silent.
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
      if (error instanceof CacheStoreRecovered) {
        console.info(`${this.#label}: ${error.message}`);
      } else console.warn(`${this.#label}:`, error);
    }
  }
}
