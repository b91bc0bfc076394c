import { KitError } from "../../core/mod.ts";

/**
 * Thrown when a culture name is not a BCP 47 language tag of the form the
 * localization package accepts (`xx`, `xx-XX`, `xx-Xxxx-XX`, …). Culture
 * names are checked before they reach a URL or a file path, so `../`, `?` or
 * `/` can never be injected through a culture.
 *
 * The message is exactly
 * `Invalid culture name: <name as JSON> (expected a BCP 47 tag such as "en" or "fr-CA")`.
 *
 * @example Usage
 * ```ts
 * import { InvalidCultureError, MapLocalizationProvider } from "@vendor/kit/localization";
 *
 * const provider = new MapLocalizationProvider(new Map());
 * try {
 *   await provider.load("../secrets");
 * } catch (error) {
 *   if (error instanceof InvalidCultureError) console.log(error.culture);
 * }
 * ```
 */
export class InvalidCultureError extends KitError {
  /** What went wrong, as a stable string: `invalid_culture`. */
  readonly code = "invalid_culture";

  /** The rejected value, as given. */
  readonly culture: unknown;

  /**
   * Creates the error.
   *
   * @param culture The rejected value.
   */
  constructor(culture: unknown) {
    super(
      `Invalid culture name: ${describe(culture)} ` +
        `(expected a BCP 47 tag such as "en" or "fr-CA")`,
    );
    this.name = "InvalidCultureError";
    this.culture = culture;
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}
