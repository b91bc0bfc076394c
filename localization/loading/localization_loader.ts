/**
 * Reads the raw translation resource of a culture (parsed JSON: nested groups
 * of strings) for a {@linkcode LoaderLocalizationProvider}. Kit has
 * {@linkcode HttpLocalizationLoader} and {@linkcode JsonFileLocalizationLoader}.
 *
 * @example Usage
 * ```ts
 * import { LoaderLocalizationProvider, type LocalizationLoader } from "@vendor/kit/localization";
 *
 * const loader: LocalizationLoader = {
 *   load: () => Promise.resolve({ home: { title: "Welcome" } }),
 * };
 * const provider = new LoaderLocalizationProvider(loader);
 * ```
 */
export interface LocalizationLoader {
  /**
   * Reads the resource of `culture`.
   *
   * @param culture A BCP 47 culture name (already checked by the provider).
   * @returns The parsed resource, checked and flattened by the provider.
   */
  load(culture: string): Promise<unknown>;
  /**
   * The URL or path the resource of `culture` is read from, for error
   * messages.
   *
   * @param culture A BCP 47 culture name.
   * @returns The address.
   */
  addressOf?(culture: string): string;
}
