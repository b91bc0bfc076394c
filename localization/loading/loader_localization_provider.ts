import { flattenResource } from "./_flatten.ts";
import { assertCultureName } from "../cultures/culture_name.ts";
import type { LocalizationLoader } from "./localization_loader.ts";
import type {
  LocalizationProvider,
  LocalizationResources,
} from "./localization_provider.ts";

/**
 * A {@linkcode LocalizationProvider} that reads each culture's resource with
 * a {@linkcode LocalizationLoader}, checks it is an object of strings and
 * flattens its nested groups to dotted keys
 * (`{ "home": { "title": "…" } }` → `home.title`).
 *
 * @example Usage
 * ```ts
 * import { HttpLocalizationLoader, LoaderLocalizationProvider } from "@vendor/kit/localization";
 *
 * const provider = new LoaderLocalizationProvider(
 *   new HttpLocalizationLoader("https://example.com/api/localization/{culture}.json"),
 * );
 * ```
 */
export class LoaderLocalizationProvider implements LocalizationProvider {
  readonly #loader: LocalizationLoader;

  /**
   * Creates the provider.
   *
   * @param loader Reads the raw resource of a culture.
   */
  constructor(loader: LocalizationLoader) {
    this.#loader = loader;
  }

  /**
   * Loads, checks and flattens the resource of `culture`.
   *
   * @param culture A BCP 47 culture name, checked before the loader sees it.
   * @returns The flat map of dotted keys to texts.
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag.
   * @throws {LocalizationLoadError} When the loader cannot read it.
   * @throws {LocalizationResourceError} When the resource is not an object of
   * strings; the message names the offending key.
   *
   * @example Usage
   * ```ts
   * import { LoaderLocalizationProvider } from "@vendor/kit/localization";
   *
   * const provider = new LoaderLocalizationProvider({
   *   load: () => Promise.resolve({ home: { title: "Welcome" } }),
   * });
   * (await provider.load("en")).get("home.title"); // "Welcome"
   * ```
   */
  async load(culture: string): Promise<LocalizationResources> {
    assertCultureName(culture);
    const resource = await this.#loader.load(culture);
    return flattenResource(
      resource,
      culture,
      this.#loader.addressOf?.(culture),
    );
  }
}
