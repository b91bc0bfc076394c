import { KitError } from "../../core/mod.ts";

/**
 * Thrown when a translation resource is not an object whose values are
 * strings or groups of strings. The message names the culture and the
 * offending key (as a dotted path):
 * `Invalid translation resource for culture "fr-FR": key "home.count" must be a string or a group of strings, got number`.
 * When the resource itself is not an object the key is empty and the message
 * says `the resource must be an object of strings, got <type>`; when a source
 * address is known it is appended as ` (<address>)`.
 *
 * @example Usage
 * ```ts
 * import {
 *   LoaderLocalizationProvider,
 *   LocalizationResourceError,
 * } from "@vendor/kit/localization";
 *
 * const provider = new LoaderLocalizationProvider({
 *   load: () => Promise.resolve({ home: { count: 3 } }),
 * });
 * try {
 *   await provider.load("en");
 * } catch (error) {
 *   if (error instanceof LocalizationResourceError) console.log(error.key); // "home.count"
 * }
 * ```
 */
export class LocalizationResourceError extends KitError {
  /** What went wrong, as a stable string: `localization_resource`. */
  readonly code = "localization_resource";

  /** The culture of the resource. */
  readonly culture: string;
  /** The dotted key of the offending value; `""` for the resource itself. */
  readonly key: string;
  /** Where the resource came from, when known. */
  readonly address: string | undefined;

  /**
   * Creates the error.
   *
   * @param culture The culture of the resource.
   * @param key The dotted key of the offending value; `""` for the root.
   * @param problem What is wrong, e.g. `got number`.
   * @param address Where the resource came from, when known.
   */
  constructor(
    culture: string,
    key: string,
    problem: string,
    address?: string,
  ) {
    super(
      `Invalid translation resource for culture ${JSON.stringify(culture)}: ` +
        (key === ""
          ? `the resource must be an object of strings, ${problem}`
          : `key ${JSON.stringify(key)} ${problem}`) +
        (address !== undefined ? ` (${address})` : ""),
    );
    this.name = "LocalizationResourceError";
    this.culture = culture;
    this.key = key;
    this.address = address;
  }
}
