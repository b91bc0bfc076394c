import type { IConfiguration } from "../../config/mod.ts";
import type { SignalOptions } from "../../platform/mod.ts";
import {
  defaultCultureOf,
  supportedCulturesOf,
  switchedOff,
} from "../_configuration.ts";
import { announceSingleCulture } from "./_single_culture.ts";
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

  /**
   * Creates the provider from the `localization` section of a configuration:
   * `supportedCultures` is `localization:supportedCultures` and `fallback`
   * is `localization:defaultCulture` (else `"en"`), unless `options` gives
   * them (an option given in code wins; its key is then not read).
   *
   * With `features:enableInternationalization` set to `false` the provider
   * starts at `fallback` and reads no preferred language; it says so once
   * per configuration, as an info line under `kit.localization` in the
   * running application's logging.
   *
   * @param config Any configuration (a `ConfigurationManager`, loaded).
   * @param options Options that win over the configuration.
   * @returns The provider.
   * @throws {LocalizationConfigurationError} When a culture key holds a
   * value that is not a culture name (naming the key, the entry and its
   * source), or the switch is not a boolean.
   * @throws {InvalidCultureError} When `options.fallback` is not a BCP 47
   * tag.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   * import { NavigatorCultureProvider } from "@vendor/kit/localization";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({
   *   "localization:defaultCulture": "en",
   *   "localization:supportedCultures": "en,fr",
   * }));
   * await config.loadConfiguration();
   * const provider = NavigatorCultureProvider.fromConfiguration(config, {
   *   navigator: { languages: ["fr-BE", "en-US"] },
   * });
   * provider.culture; // "fr"
   * ```
   */
  static fromConfiguration(
    config: IConfiguration,
    options: NavigatorCultureProviderOptions = {},
  ): NavigatorCultureProvider {
    const off = switchedOff(config);
    const supportedCultures = options.supportedCultures ??
      supportedCulturesOf(config);
    const fallback = options.fallback ?? defaultCultureOf(config);
    if (off === undefined) {
      return new NavigatorCultureProvider({
        ...options,
        supportedCultures,
        fallback,
      });
    }
    const provider = new NavigatorCultureProvider({
      ...options,
      // The user's languages are not read: one culture is served.
      navigator: {},
      supportedCultures,
      fallback,
    });
    announceSingleCulture(config, provider.culture, off.source);
    return provider;
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
