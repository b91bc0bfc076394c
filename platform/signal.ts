import { isPromiseLike } from "../core/mod.ts";

/**
 * A handler of a {@linkcode Signal}. A returned promise is not awaited, but a
 * rejection is reported like a thrown error.
 *
 * @typeParam T The value the signal carries.
 */
export type SignalHandler<T> = (value: T) => void | Promise<void>;

/** Options of a {@linkcode Signal}. */
export interface SignalOptions {
  /**
   * Receives what a handler threw (or its promise rejected with). Defaults to
   * `console.error`. Other handlers run regardless.
   */
  onError?: (error: unknown) => void;
}

interface Slot<T> {
  readonly handler: SignalHandler<T>;
  active: boolean;
}

/**
 * A typed, single-event notification: the `cultureChanged` of the
 * localization package is one (`cultureChanged.add(handler)`).
 *
 * Handlers run in the order they were added. A handler removed while a
 * dispatch is running is not called by it if it has not run yet; one added
 * during a dispatch first hears the next one. A throwing handler does not stop
 * the others; its error goes to `onError`.
 *
 * @typeParam T The value handed to handlers.
 *
 * @example Usage
 * ```ts
 * import { Signal } from "@vendor/kit/platform";
 *
 * const cultureChanged = new Signal<string>();
 * const remove = cultureChanged.add((culture) => console.log(culture));
 * cultureChanged.dispatch("fr-FR"); // logs "fr-FR"
 * remove();
 * ```
 */
export class Signal<T = void> {
  #slots: Slot<T>[] = [];
  #onError: (error: unknown) => void;

  /**
   * Creates a signal.
   *
   * @param options Where handler errors go.
   */
  constructor(options: SignalOptions = {}) {
    this.#onError = options.onError ??
      ((error) => console.error("Signal: a handler threw:", error));
  }

  /** How many handlers are attached. */
  get size(): number {
    return this.#slots.length;
  }

  /**
   * Attaches a handler. Adding the same function twice attaches it once.
   *
   * @param handler Called with each dispatched value.
   * @returns A function that removes the handler; calling it again is
   * harmless.
   *
   * @example Usage
   * ```ts
   * import { Signal } from "@vendor/kit/platform";
   *
   * const signal = new Signal<number>();
   * const remove = signal.add((n) => console.log(n));
   * remove();
   * remove(); // no effect
   * ```
   */
  add(handler: SignalHandler<T>): () => void {
    if (typeof handler !== "function") {
      throw new TypeError("Signal.add: the handler must be a function");
    }
    if (!this.#slots.some((slot) => slot.handler === handler)) {
      this.#slots = [...this.#slots, { handler, active: true }];
    }
    return () => {
      this.remove(handler);
    };
  }

  /**
   * Detaches a handler.
   *
   * @param handler The function given to {@linkcode Signal.prototype.add}.
   * @returns `true` when it was attached.
   *
   * @example Usage
   * ```ts
   * import { Signal } from "@vendor/kit/platform";
   *
   * const signal = new Signal();
   * const handler = () => {};
   * signal.add(handler);
   * signal.remove(handler); // true
   * ```
   */
  remove(handler: SignalHandler<T>): boolean {
    const slot = this.#slots.find((candidate) => candidate.handler === handler);
    if (slot === undefined) return false;
    slot.active = false;
    this.#slots = this.#slots.filter((candidate) => candidate !== slot);
    return true;
  }

  /**
   * Calls every attached handler with `value`, in the order they were added.
   *
   * @param value What the handlers receive.
   *
   * @example Usage
   * ```ts
   * import { Signal } from "@vendor/kit/platform";
   *
   * const signal = new Signal<string>();
   * signal.add((v) => console.log(v));
   * signal.dispatch("hello");
   * ```
   */
  dispatch(value: T): void {
    const slots = this.#slots;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      if (!slot.active) continue;
      try {
        const result = slot.handler(value);
        if (result !== undefined && isPromiseLike(result)) {
          result.then(undefined, (error: unknown) => this.#report(error));
        }
      } catch (error) {
        this.#report(error);
      }
    }
  }

  /**
   * Detaches every handler.
   *
   * @example Usage
   * ```ts
   * import { Signal } from "@vendor/kit/platform";
   *
   * const signal = new Signal();
   * signal.add(() => {});
   * signal.clear();
   * signal.size; // 0
   * ```
   */
  clear(): void {
    for (const slot of this.#slots) slot.active = false;
    this.#slots = [];
  }

  #report(error: unknown): void {
    try {
      this.#onError(error);
    } catch (reportError) {
      console.error("Signal: onError threw:", reportError, "for", error);
    }
  }
}
