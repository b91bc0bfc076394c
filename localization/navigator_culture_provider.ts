import type { SignalOptions } from "../platform/mod.ts";
import { isCultureName } from "./culture_name.ts";
import { DefaultCultureProvider } from "./default_culture_provider.ts";

/** The part of the browser's `navigator` the provider reads. */
export interface NavigatorLanguages {
  /** The user's preferred languages, most preferred first. */
  readonly languages?: readonly string[];
  /** The user's preferred language. */
  readonly language?: string;
}

/** Options of a {@linkcode NavigatorCultureProvider}. */
export interface NavigatorCultureProviderOptions {
  /**
   * Where the languages are read; defaults to `globalThis.navigator`. Pass an
   * object to test, or to pick from a request's `Accept-Language` list on a
   * server.
   */
  navigator?: NavigatorLanguages;
  /**
   * The cultures the application has translations for. When given, the first
   * preferred language that is one of them, or whose language part
   * (`fr` of `fr-BE`) is one of them, wins. Compared case-insensitively.
   */
  supportedCultures?: readonly string[];
  /** Used when no preferred language fits. Defaults to `"en"`. */
  fallback?: string;
  /** Options of the `cultureChanged` signal. */
  signalOptions?: SignalOptions;
}

/**
 * A {@linkcode CultureProvider} for browsers: starts from the user's preferred
 * languages (`navigator.languages`, then `navigator.language`), skipping
 * entries that are not BCP 47 tags.
 *
 * @example Usage
 * ```ts
 * import { NavigatorCultureProvider } from "@vendor/kit/localization";
 *
 * const provider = new NavigatorCultureProvider({
 *   navigator: { languages: ["fr-BE", "en-US"] },
 *   supportedCultures: ["en", "fr"],
 * });
 * provider.culture; // "fr"
 * ```
 */
export class NavigatorCultureProvider extends DefaultCultureProvider {
  readonly #languages: readonly string[];

  /**
   * Creates the provider.
   *
   * @param options Where the languages come from, which cultures are
   * supported and the fallback.
   * @throws {InvalidCultureError} When `fallback` is not a BCP 47 tag.
   */
  constructor(options: NavigatorCultureProviderOptions = {}) {
    const languages = readLanguages(
      options.navigator ??
        (globalThis as { navigator?: NavigatorLanguages }).navigator,
    );
    super(
      pick(languages, options.supportedCultures) ?? options.fallback ?? "en",
      options.signalOptions,
    );
    this.#languages = languages;
  }

  /** The preferred languages that were read, in order, invalid ones left out. */
  get languages(): readonly string[] {
    return this.#languages;
  }
}

function readLanguages(navigator: NavigatorLanguages | undefined): string[] {
  const found: string[] = [];
  const candidates = [
    ...(Array.isArray(navigator?.languages) ? navigator.languages : []),
    navigator?.language,
  ];
  for (const candidate of candidates) {
    if (isCultureName(candidate) && !found.includes(candidate)) {
      found.push(candidate);
    }
  }
  return found;
}

function pick(
  languages: readonly string[],
  supported: readonly string[] | undefined,
): string | undefined {
  if (supported === undefined) return languages[0];
  const byLowerCase = new Map<string, string>();
  for (const culture of supported) {
    if (isCultureName(culture)) byLowerCase.set(culture.toLowerCase(), culture);
  }
  for (const language of languages) {
    const exact = byLowerCase.get(language.toLowerCase());
    if (exact !== undefined) return exact;
    const base = byLowerCase.get(language.split("-")[0].toLowerCase());
    if (base !== undefined) return base;
  }
  return undefined;
}
