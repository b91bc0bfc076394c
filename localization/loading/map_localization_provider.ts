import { assertCultureName } from "../cultures/culture_name.ts";
import { LocalizationLoadError } from "./localization_load_error.ts";
import type {
  LocalizationProvider,
  LocalizationResources,
} from "./localization_provider.ts";
import { LocalizationResourceError } from "./localization_resource_error.ts";

/**
 * A {@linkcode LocalizationProvider} over translations held in memory:
 * `Map<culture, Map<key, text>>`, keys already dotted (`home.title`).
 * Each load returns a copy, so later changes to the maps take effect on the
 * next `setCulture`.
 *
 * @example Usage
 * ```ts
 * import { MapLocalizationProvider } from "@vendor/kit/localization";
 *
 * const provider = new MapLocalizationProvider(
 *   new Map([
 *     ["en", new Map([["home.title", "Welcome"]])],
 *     ["fr", new Map([["home.title", "Bienvenue"]])],
 *   ]),
 * );
 * (await provider.load("fr")).get("home.title"); // "Bienvenue"
 * ```
 */
export class MapLocalizationProvider implements LocalizationProvider {
  readonly #translations: ReadonlyMap<string, ReadonlyMap<string, string>>;

  /**
   * Creates the provider.
   *
   * @param translations Culture name to (dotted key to text).
   */
  constructor(
    translations: ReadonlyMap<string, ReadonlyMap<string, string>>,
  ) {
    this.#translations = translations;
  }

  /**
   * Returns the translations of `culture`.
   *
   * @param culture A BCP 47 culture name.
   * @returns A copy of the culture's map.
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag.
   * @throws {LocalizationLoadError} With `notFound: true` when the map has no
   * entry for `culture`.
   * @throws {LocalizationResourceError} When a value is not a string.
   *
   * @example Usage
   * ```ts
   * import { MapLocalizationProvider } from "@vendor/kit/localization";
   *
   * const provider = new MapLocalizationProvider(new Map([["en", new Map([["a", "A"]])]]));
   * (await provider.load("en")).size; // 1
   * ```
   */
  load(culture: string): Promise<LocalizationResources> {
    try {
      assertCultureName(culture);
      const texts = this.#translations.get(culture);
      if (texts === undefined) {
        throw new LocalizationLoadError({
          culture,
          reason: "no translations for this culture",
          notFound: true,
        });
      }
      const copy = new Map<string, string>();
      for (const [key, text] of texts) {
        if (typeof text !== "string") {
          throw new LocalizationResourceError(
            culture,
            key,
            `must be a string, got ${text === null ? "null" : typeof text}`,
          );
        }
        copy.set(key, text);
      }
      return Promise.resolve(copy);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
