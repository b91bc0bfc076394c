import { errorCode } from "../_error_code.ts";
import { readTranslationFile } from "#localization/loading/fs";
import { BodyTooLarge } from "./_read_body.ts";
import { checkMaxResourceSize, tooLargeReason } from "./_resource_size.ts";
import { checkTemplate, fillTemplate } from "../messages/_template.ts";
import type { LocalizationLoader } from "./localization_loader.ts";
import { LocalizationLoadError } from "./localization_load_error.ts";

/** Options of a {@linkcode JsonFileLocalizationLoader}. */
export interface JsonFileLocalizationLoaderOptions {
  /**
   * The largest file read, in bytes; a larger one is refused without being
   * read whole. `0` turns it off. Default 10485760 (10 MiB).
   */
  maxResourceSize?: number;
}

/**
 * A {@linkcode LocalizationLoader} for servers: reads each culture's resource
 * from a JSON file whose path template holds `{culture}`, for example
 * `./locales/{culture}.json` (relative paths resolve against the working
 * directory). The culture is checked to be a BCP 47 tag before it is put into
 * the path, so it can never climb out of the folder. The file system is
 * reached through a dynamic `import("node:fs/promises")`, so browser bundles
 * stay free of it.
 *
 * @example Usage
 * ```ts
 * import {
 *   JsonFileLocalizationLoader,
 *   LoaderLocalizationProvider,
 * } from "@vendor/kit/localization";
 *
 * const loader = new JsonFileLocalizationLoader("./locales/{culture}.json");
 * loader.addressOf("fr"); // "./locales/fr.json"
 * const provider = new LoaderLocalizationProvider(loader);
 * ```
 */
export class JsonFileLocalizationLoader implements LocalizationLoader {
  readonly #template: string;
  readonly #maxResourceSize: number;

  /**
   * Creates the loader.
   *
   * @param template The file path with the placeholder `{culture}`.
   * @param options The size limit of a file.
   * @throws {TypeError} When `template` has no `{culture}`.
   * @throws {RangeError} When `maxResourceSize` is not a whole number >= 0.
   */
  constructor(
    template: string,
    options: JsonFileLocalizationLoaderOptions = {},
  ) {
    this.#template = checkTemplate(template, "JsonFileLocalizationLoader");
    this.#maxResourceSize = checkMaxResourceSize(
      "JsonFileLocalizationLoader",
      options.maxResourceSize,
    );
  }

  /** The largest file read, in bytes (`0` = no limit). */
  get maxResourceSize(): number {
    return this.#maxResourceSize;
  }

  /** The path template. */
  get template(): string {
    return this.#template;
  }

  /**
   * The file path of a culture's resource.
   *
   * @param culture A BCP 47 culture name.
   * @returns The template with `{culture}` replaced.
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag.
   *
   * @example Usage
   * ```ts
   * import { JsonFileLocalizationLoader } from "@vendor/kit/localization";
   *
   * new JsonFileLocalizationLoader("/srv/i18n/{culture}.json").addressOf("de"); // "/srv/i18n/de.json"
   * ```
   */
  addressOf(culture: string): string {
    return fillTemplate(this.#template, culture);
  }

  /**
   * Reads and parses the file of `culture`.
   *
   * @param culture A BCP 47 culture name.
   * @returns The parsed JSON.
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag (nothing
   * is read).
   * @throws {LocalizationLoadError} When the file is missing (`notFound`),
   * not a regular file, unreadable, larger than `maxResourceSize` (`limit`
   * set) or not JSON; the message names the culture and the path.
   *
   * @example Usage
   * ```ts
   * import { JsonFileLocalizationLoader } from "@vendor/kit/localization";
   *
   * const loader = new JsonFileLocalizationLoader("./locales/{culture}.json");
   * async function loadEnglish(): Promise<unknown> {
   *   return await loader.load("en");
   * }
   * ```
   */
  async load(culture: string): Promise<unknown> {
    const path = this.addressOf(culture);
    let text: string | BodyTooLarge;
    try {
      text = await readTranslationFile(path, this.#maxResourceSize);
    } catch (error) {
      const code = errorCode(error);
      throw new LocalizationLoadError({
        culture,
        address: path,
        notFound: code === "ENOENT",
        reason: code === "ENOENT"
          ? "file not found"
          : error instanceof Error
          ? error.message
          : String(error),
        cause: error,
      });
    }
    if (text instanceof BodyTooLarge) {
      throw new LocalizationLoadError({
        culture,
        address: path,
        limit: this.#maxResourceSize,
        reason: tooLargeReason(this.#maxResourceSize, text.how),
      });
    }
    try {
      return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (error) {
      throw new LocalizationLoadError({
        culture,
        address: path,
        reason: `the file is not JSON (${
          error instanceof Error ? error.message : String(error)
        })`,
        cause: error,
      });
    }
  }
}
