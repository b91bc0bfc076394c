// Translations of the supported cultures: one LocalizationManager per culture
// (a manager serves one current culture), the raw resource text of each for
// GET /api/localization/{culture}.json, and Accept-Language negotiation.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { IConfiguration } from "@vendor/kit-platform-configuration";
import {
  LocalizationManager,
  negotiateCulture,
} from "@vendor/kit-platform-localization";

const CULTURE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;

/** The translations of every supported culture. */
export class Localizer {
  readonly #managers = new Map<string, LocalizationManager>();
  // Lower-case name → the configured spelling, for case-insensitive lookups.
  readonly #names = new Map<string, string>();
  // Lower-case language ("fr") → the first supported culture of it.
  readonly #languages = new Map<string, string>();
  readonly #resources = new Map<string, string>();
  readonly #defaultCulture: string;

  private constructor(defaultCulture: string) {
    this.#defaultCulture = defaultCulture;
  }

  /**
   * Loads every culture of `localization:supportedCultures` from
   * `<folder>/<culture>.json`.
   *
   * @param config The configuration (`localization:*` keys).
   * @param folder The folder of the resource files.
   * @returns The loaded localizer.
   * @throws {Error} When a culture name is invalid or its file cannot be read.
   */
  static async load(
    config: IConfiguration,
    folder: string,
  ): Promise<Localizer> {
    const supported = listOf(
      config.getValue<unknown>("localization:supportedCultures", ["en-US"]),
    );
    const defaultCulture = config.getValue<string>(
      "localization:defaultCulture",
      supported[0],
    );
    const localizer = new Localizer(defaultCulture);
    for (const culture of supported) {
      if (!CULTURE.test(culture)) {
        throw new Error(
          `localization:supportedCultures holds an invalid culture name: ${culture}`,
        );
      }
      const manager = LocalizationManager.fromConfiguration(config, {
        culture,
        resourcePath: join(folder, "{culture}.json"),
      });
      await manager.setCulture(culture);
      localizer.#managers.set(culture, manager);
      localizer.#names.set(culture.toLowerCase(), culture);
      const language = culture.split("-")[0].toLowerCase();
      if (!localizer.#languages.has(language)) {
        localizer.#languages.set(language, culture);
      }
      localizer.#resources.set(
        culture,
        await readFile(join(folder, `${culture}.json`), "utf8"),
      );
    }
    if (!localizer.#managers.has(defaultCulture)) {
      throw new Error(
        `localization:defaultCulture (${defaultCulture}) is not one of localization:supportedCultures (${
          supported.join(", ")
        })`,
      );
    }
    return localizer;
  }

  /** The culture used when the request asks for none that is supported. */
  get defaultCulture(): string {
    return this.#defaultCulture;
  }

  /** The supported cultures. */
  get cultures(): string[] {
    return [...this.#managers.keys()];
  }

  /**
   * The supported culture of this name, whatever its letter case.
   *
   * @param name A culture name.
   * @returns The configured spelling, or `undefined` when not supported.
   */
  find(name: string): string | undefined {
    return this.#names.get(name.toLowerCase());
  }

  /**
   * Whether `name` has the shape of a culture name (`en`, `en-US`,
   * `zh-Hant-TW`).
   *
   * @param name The name to check.
   * @returns `true` when it is well-formed.
   */
  static isCultureName(name: string): boolean {
    return CULTURE.test(name);
  }

  /**
   * The translation resource of a supported culture, as the JSON text of its
   * file.
   *
   * @param culture A supported culture (see {@linkcode Localizer.find}).
   * @returns The JSON text, or `undefined`.
   */
  resource(culture: string): string | undefined {
    return this.#resources.get(culture);
  }

  /**
   * Picks the culture for a request: `?culture=` when supported (by name, or
   * by its language alone), else the best fit of `Accept-Language` among the
   * supported cultures (Kit's `negotiateCulture`), else the default.
   *
   * @param query The `culture` query parameter, if any.
   * @param acceptLanguage The `Accept-Language` header, if any.
   * @returns A supported culture.
   */
  negotiate(
    query: string | undefined,
    acceptLanguage: string | null | undefined,
  ): string {
    if (query !== undefined && query !== "") {
      const found = this.find(query) ??
        this.#languages.get(query.split("-")[0].toLowerCase());
      if (found !== undefined) return found;
    }
    return negotiateCulture(
      acceptLanguage,
      this.cultures,
      this.#defaultCulture,
    );
  }

  /**
   * Translates a key in a supported culture.
   *
   * @param culture A supported culture.
   * @param key The key, such as `hello.greeting`.
   * @param args Values for `{0}`, `{1}`…
   * @returns The text.
   */
  translate(culture: string, key: string, ...args: unknown[]): string {
    const manager = this.#managers.get(culture) ??
      this.#managers.get(this.#defaultCulture)!;
    return manager.t(key, ...args);
  }
}

// Arrays arrive as arrays from JSON files, as index-keyed objects from flat
// sources, or as one JSON or comma-separated string from a variable.
function listOf(value: unknown): string[] {
  if (typeof value === "string") {
    const text = value.trim();
    if (text.startsWith("[")) return listOf(JSON.parse(text));
    return text.split(",").map((part) => part.trim()).filter(Boolean);
  }
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).sort(([a], [b]) => Number(a) - Number(b))
      .map(([, item]) => String(item));
  }
  return ["en-US"];
}
