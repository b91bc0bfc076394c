/**
 * The translations of one culture: dotted keys (`home.title`) to texts.
 */
export type LocalizationResources = ReadonlyMap<string, string>;

/**
 * Supplies the translations of a culture to the
 * {@linkcode LocalizationManager}. Kit has
 * {@linkcode MapLocalizationProvider} and
 * {@linkcode LoaderLocalizationProvider}.
 *
 * A provider rejects with a {@linkcode LocalizationLoadError} whose
 * `notFound` is `true` when it has no translations for the culture at all;
 * the manager then moves on along the fallback chain.
 *
 * @example Usage
 * ```ts
 * import type { LocalizationProvider, LocalizationResources } from "@vendor/kit/localization";
 *
 * const provider: LocalizationProvider = {
 *   load: (culture): Promise<LocalizationResources> =>
 *     Promise.resolve(new Map([["greeting", culture === "fr" ? "Bonjour" : "Hello"]])),
 * };
 * ```
 */
export interface LocalizationProvider {
  /**
   * Loads the translations of `culture`.
   *
   * @param culture A BCP 47 culture name.
   * @returns The flat map of dotted keys to texts.
   */
  load(culture: string): Promise<LocalizationResources>;
}
