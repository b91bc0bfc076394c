import type { Signal } from "../../platform/mod.ts";

/**
 * Holds the current culture and announces changes through
 * {@linkcode CultureProvider.cultureChanged}. The
 * {@linkcode LocalizationManager} calls {@linkcode CultureProvider.setCulture}
 * only after the new culture's translations are in place, so handlers of
 * `cultureChanged` can translate with the new culture straight away.
 *
 * @example Usage
 * ```ts
 * import { type CultureProvider, DefaultCultureProvider } from "@vendor/kit/localization";
 *
 * const provider: CultureProvider = new DefaultCultureProvider("en");
 * const remove = provider.cultureChanged.add((culture) => console.log(culture));
 * provider.setCulture("fr"); // logs "fr"
 * remove();
 * ```
 */
export interface CultureProvider {
  /** The current culture name. */
  readonly culture: string;
  /**
   * Dispatched with the new culture each time it changes; `add(handler)`
   * returns a function that removes the handler.
   */
  readonly cultureChanged: Signal<string>;
  /**
   * Makes `culture` current and dispatches `cultureChanged` when it differs
   * from the current one.
   *
   * @param culture A BCP 47 culture name.
   */
  setCulture(culture: string): void;
}
