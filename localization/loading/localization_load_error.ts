import { KitError } from "../../core/mod.ts";

/** What a {@linkcode LocalizationLoadError} is built from. */
export interface LocalizationLoadErrorInit {
  /** The culture whose translations could not be loaded. */
  culture: string;
  /** Why, in a few words (`HTTP 404 Not Found`, `file not found`, …). */
  reason: string;
  /** The URL or file path that was read, when there is one. */
  address?: string;
  /** The HTTP status of the failed response, when there is one. */
  status?: number;
  /**
   * `true` when the source has no translations for the culture at all
   * (HTTP 404, missing file, culture absent from a map), as opposed to a
   * failure to read them.
   */
  notFound?: boolean;
  /**
   * The size limit in bytes the resource went past, when that is why it was
   * refused.
   */
  limit?: number;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * Thrown when the translations of a culture cannot be loaded. The message
 * names the culture and, when there is one, the address:
 * `Failed to load translations for culture "fr-FR" from <address>: <reason>`
 * (without ` from <address>` for sources that have none).
 *
 * @example Usage
 * ```ts
 * import { LocalizationLoadError, MapLocalizationProvider } from "@vendor/kit/localization";
 *
 * const provider = new MapLocalizationProvider(new Map());
 * try {
 *   await provider.load("de-DE");
 * } catch (error) {
 *   if (error instanceof LocalizationLoadError) console.log(error.notFound); // true
 * }
 * ```
 */
export class LocalizationLoadError extends KitError {
  /** What went wrong, as a stable string: `localization_load`. */
  readonly code = "localization_load";

  /** The culture whose translations could not be loaded. */
  readonly culture: string;
  /** The URL or file path that was read, when there is one. */
  readonly address: string | undefined;
  /** The HTTP status of the failed response, when there is one. */
  readonly status: number | undefined;
  /** `true` when the source has no translations for the culture. */
  readonly notFound: boolean;
  /**
   * The size limit in bytes (the loader's `maxResourceSize`) when the
   * resource was refused for being larger, otherwise `undefined`.
   */
  readonly limit: number | undefined;

  /**
   * Creates the error.
   *
   * @param init The culture, reason, address and cause.
   */
  constructor(init: LocalizationLoadErrorInit) {
    super(
      `Failed to load translations for culture ${
        JSON.stringify(init.culture)
      }` +
        (init.address !== undefined ? ` from ${init.address}` : "") +
        `: ${init.reason}`,
      init.cause !== undefined ? { cause: init.cause } : undefined,
    );
    this.name = "LocalizationLoadError";
    this.culture = init.culture;
    this.address = init.address;
    this.status = init.status;
    this.notFound = init.notFound ?? false;
    this.limit = init.limit;
  }
}
