import { errorCode } from "./_error_code.ts";
import { readTextFile } from "./_fs.ts";
import { checkTemplate, fillTemplate } from "./_template.ts";
import type { LocalizationLoader } from "./localization_loader.ts";
import { LocalizationLoadError } from "./localization_load_error.ts";

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

  /**
   * Creates the loader.
   *
   * @param template The file path with the placeholder `{culture}`.
   * @throws {TypeError} When `template` has no `{culture}`.
   */
  constructor(template: string) {
    this.#template = checkTemplate(template, "JsonFileLocalizationLoader");
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
   * unreadable or not JSON; the message names the culture and the path.
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
    let text: string;
    try {
      text = await readTextFile(path);
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
