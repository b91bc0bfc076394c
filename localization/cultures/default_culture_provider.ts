import { Signal, type SignalOptions } from "../../platform/mod.ts";
import { assertCultureName } from "./culture_name.ts";
import type { CultureProvider } from "./culture_provider.ts";

/**
 * A {@linkcode CultureProvider} that starts from a given culture and keeps it
 * in memory.
 *
 * @example Usage
 * ```ts
 * import { DefaultCultureProvider } from "@vendor/kit/localization";
 *
 * const provider = new DefaultCultureProvider("en-US");
 * provider.cultureChanged.add((culture) => console.log("now", culture));
 * provider.setCulture("fr-FR"); // logs "now fr-FR"
 * provider.setCulture("fr-FR"); // same culture: nothing dispatched
 * ```
 */
export class DefaultCultureProvider implements CultureProvider {
  #culture: string;
  readonly #cultureChanged: Signal<string>;

  /**
   * Creates the provider.
   *
   * @param initial The starting culture, a BCP 47 tag such as `en-US`.
   * @param signalOptions Options of the `cultureChanged` signal (where
   * handler errors go).
   * @throws {InvalidCultureError} When `initial` is not a BCP 47 tag.
   */
  constructor(initial: string, signalOptions?: SignalOptions) {
    this.#culture = assertCultureName(initial);
    this.#cultureChanged = new Signal<string>(signalOptions);
  }

  /** The current culture name. */
  get culture(): string {
    return this.#culture;
  }

  /** Dispatched with the new culture each time it changes. */
  get cultureChanged(): Signal<string> {
    return this.#cultureChanged;
  }

  /**
   * Makes `culture` current; dispatches `cultureChanged` once when it differs
   * from the current culture.
   *
   * @param culture A BCP 47 culture name.
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag.
   *
   * @example Usage
   * ```ts
   * import { DefaultCultureProvider } from "@vendor/kit/localization";
   *
   * const provider = new DefaultCultureProvider("en");
   * provider.setCulture("de");
   * provider.culture; // "de"
   * ```
   */
  setCulture(culture: string): void {
    assertCultureName(culture);
    if (culture === this.#culture) return;
    this.#culture = culture;
    this.#cultureChanged.dispatch(culture);
  }
}
