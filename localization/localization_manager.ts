import type { IConfiguration } from "../config/mod.ts";
import type { Signal } from "../platform/mod.ts";
import { partsFromConfiguration } from "./_configuration.ts";
import { announceSingleCulture } from "./cultures/_single_culture.ts";
import { cultureChain } from "../internal/culture_chain.ts";
import { cultureOfRequest } from "./cultures/_request_culture.ts";
import { ResourceLoader } from "./loading/_resource_loading.ts";
import { type Slot, TranslatorCache } from "./_translator_cache.ts";
import {
  CultureTranslator,
  type Host,
  messageErrorByDefault,
  Translations,
} from "./_translations.ts";
import { assertCultureName, isCultureName } from "./cultures/culture_name.ts";
import { InvalidCultureError } from "./cultures/invalid_culture_error.ts";
import type { CultureProvider } from "./cultures/culture_provider.ts";
import { FormatLocalizationValueParser } from "./messages/format_localization_value_parser.ts";
import { IcuLocalizationValueParser } from "./messages/icu_localization_value_parser.ts";
import { IdentityKeyResolver } from "./messages/identity_key_resolver.ts";
import type { LocalizationKeyResolver } from "./messages/key_resolver.ts";
import type { LocalizationCache } from "./localization_cache.ts";
import type {
  ForRequestOptions,
  LocalizationManagerConfigurationOptions,
  LocalizationManagerOptions,
  LocalizationRequest,
  MissingTranslationHandler,
} from "./localization_manager_options.ts";
import type { LocalizationProvider } from "./loading/localization_provider.ts";
import { RefLocalizationValueParser } from "./messages/ref_localization_value_parser.ts";
import type { TranslateFunction, Translator } from "./translator.ts";
import type { LocalizationValueParser } from "./messages/value_parser.ts";

// A façade: loading the catalogs (_resource_loading.ts), the per-culture
// translators of forCulture (_translator_cache.ts) and the culture of a
// request (_request_culture.ts) have their own files; lookup and formatting
// live in _translations.ts, reading the configuration in _configuration.ts.
// A little over the ~600 lines a file is meant to stay under, on purpose:
// 373 of its lines are the public class's JSDoc and examples.

/**
 * Translates keys for the current culture.
 *
 * - {@linkcode LocalizationManager.prototype.setCulture} loads the culture's
 *   translations, with those of its fallback chain (`fr-CA` → `fr` →
 *   `fallbackCulture`), then switches. Until then the previous culture keeps
 *   serving; `cultureChanged` fires once, after the switch. When calls
 *   overlap, the last one requested wins whatever order the loads finish in,
 *   and a culture already loading is not requested twice.
 * - {@linkcode LocalizationManager.prototype.translate} (alias `t`) is
 *   synchronous: keys are resolved through a flat map, and each text is
 *   parsed by the value parsers once per culture, on first use.
 * - A key no culture of the chain has gives the missing-translation handler's
 *   result (default `[key]`).
 *
 * @example Usage
 * ```ts
 * import {
 *   CamelCaseKeyResolver,
 *   DefaultCultureProvider,
 *   LocalizationManager,
 *   MapLocalizationProvider,
 * } from "@vendor/kit/localization";
 *
 * const manager = new LocalizationManager(
 *   new MapLocalizationProvider(
 *     new Map([
 *       ["en", new Map([["home.title", "Welcome, {0}"], ["home.help", "Help"]])],
 *       ["fr", new Map([["home.title", "Bienvenue, {0}"]])],
 *     ]),
 *   ),
 *   new DefaultCultureProvider("en"),
 *   (key) => `[${key}]`,
 *   undefined,
 *   undefined,
 *   { fallbackCulture: "en" },
 * );
 * manager.cultureChanged.add((culture) => console.log("culture:", culture));
 * await manager.setCulture("fr-CA"); // logs "culture: fr-CA"
 * manager.t("home.title", "Ada"); // "Bienvenue, Ada" (from fr)
 * manager.t("home.help"); // "Help" (from en)
 * manager.setKeyResolver(new CamelCaseKeyResolver());
 * manager.t("Home.Title", "Ada"); // "Bienvenue, Ada"
 * manager.t("home.nothing"); // "[home.nothing]"
 * ```
 */
export class LocalizationManager {
  readonly #cultureProvider: CultureProvider;
  readonly #parsers: readonly LocalizationValueParser[];
  readonly #fallbackCulture: string | undefined;
  readonly #supportedCultures: readonly string[] | undefined;
  // Set by fromConfiguration when features:enableInternationalization is
  // false: the one culture served, whatever is asked.
  #onlyCulture: string | undefined;
  readonly #loader: ResourceLoader;
  readonly #host: Host;
  readonly #translators: TranslatorCache;
  readonly #slots: ReadonlyMap<string, Slot>;
  #state: Translations;
  #ticket = 0;

  /**
   * Translates `key` for the current culture; the same as
   * {@linkcode LocalizationManager.prototype.translate}, and bound, so it can
   * be passed around (`const { t } = manager`).
   *
   * @param key The key.
   * @param args The values of the `{0}`, `{1}`, … markers, or one object of
   * named values for ICU messages.
   * @returns The translated text.
   */
  readonly t: TranslateFunction =
    ((key: string, ...args: unknown[]) =>
      this.#state.translate(this.#host, key, args)) as TranslateFunction;

  /**
   * Creates the manager. Nothing is loaded until
   * {@linkcode LocalizationManager.prototype.setCulture} is awaited.
   *
   * @param provider Supplies the translations of a culture.
   * @param cultureProvider Holds the current culture and its
   * `cultureChanged` signal; its culture is the starting one.
   * @param missingTranslationHandler The text for a key no culture has;
   * default `(key) => "[" + key + "]"`.
   * @param cache Keeps loaded translations across `setCulture` calls; none by
   * default (each `setCulture` loads).
   * @param valueParsers Applied to each text in this order; default
   * `[new IcuLocalizationValueParser(), new FormatLocalizationValueParser(),
   * new RefLocalizationValueParser()]`. Pass `[]` to use texts as written.
   * @param options `fallbackCulture`, `supportedCultures`, `onMissing`,
   * `onLoadError`, `onMessageError`.
   * @throws {InvalidCultureError} When `fallbackCulture` or a culture of
   * `supportedCultures` is not a BCP 47 tag.
   */
  constructor(
    provider: LocalizationProvider,
    cultureProvider: CultureProvider,
    missingTranslationHandler: MissingTranslationHandler = (key) => `[${key}]`,
    cache?: LocalizationCache,
    valueParsers: readonly LocalizationValueParser[] = [
      new IcuLocalizationValueParser(),
      new FormatLocalizationValueParser(),
      new RefLocalizationValueParser(),
    ],
    options: LocalizationManagerOptions = {},
  ) {
    this.#cultureProvider = cultureProvider;
    this.#parsers = [...valueParsers];
    this.#fallbackCulture = options.fallbackCulture === undefined
      ? undefined
      : assertCultureName(options.fallbackCulture);
    this.#supportedCultures = options.supportedCultures === undefined
      ? undefined
      : Object.freeze(options.supportedCultures.map(assertCultureName));
    this.#loader = new ResourceLoader(provider, cache, options.onLoadError);
    this.#host = {
      resolver: undefined,
      handler: missingTranslationHandler,
      onMissing: options.onMissing,
      onMessageError: options.onMessageError ?? messageErrorByDefault,
    };
    this.#translators = new TranslatorCache(cache);
    this.#slots = this.#translators.slots;
    const culture = cultureProvider.culture;
    this.#state = new Translations(
      culture,
      cultureChain(culture, this.#fallbackCulture),
      [],
      this.#parsers,
    );
  }

  /**
   * Creates a manager from the `localization` section of a configuration:
   *
   * | Key | Meaning | Default |
   * |---|---|---|
   * | `localization:defaultCulture` | The starting culture (BCP 47). | `en` |
   * | `localization:fallbackCulture` | The culture read last in every chain. | none |
   * | `localization:supportedCultures` | The cultures on offer: what `forRequest` matches requests against when its call gives no `cultures` (an array; in a variable, names separated by commas). | none |
   * | `localization:resourceUrl` | Address template with `{culture}`: translations over HTTP ({@linkcode HttpLocalizationLoader}). | — |
   * | `localization:resourcePath` | File path template with `{culture}`: JSON files ({@linkcode JsonFileLocalizationLoader}). | — |
   * | `localization:timeout` | Limit of one HTTP load through `fetch`, ms (`0` = none). | `10000` |
   * | `localization:cache:maxSize` | Cultures kept by the {@linkcode LocalizationCache}. | `1000` |
   * | `localization:cache:ttl` | How long loaded translations stay fresh, ms (`0` = for ever). | `3600000` |
   *
   * Exactly one of `resourceUrl` and `resourcePath` is needed unless the
   * code passes `provider`, `resourceUrl` or `resourcePath`. Numbers may be
   * strings, as environment variables are. An option passed in code wins
   * over the configuration (its key is then neither read nor checked); the
   * configuration fills only what the code did not set.
   *
   * With `features:enableInternationalization` set to `false`
   * (`FEATURE_INTERNATIONALIZATION=false`) the manager serves the default
   * culture only (the starting culture: `culture`, `cultureProvider` or
   * `localization:defaultCulture`): `forRequest`, `forCulture` and
   * `setCulture` answer in it whatever they are asked, so no other culture
   * is ever loaded (the default culture's own fallback chain still is). It
   * says so once per configuration, as an info line under
   * `kit.localization` in the running application's logging. A manager
   * built with `new` is not affected.
   *
   * Nothing is loaded yet: await
   * {@linkcode LocalizationManager.prototype.setCulture} (for example with
   * `manager.culture`) before translating.
   *
   * @param config Any configuration (a `ConfigurationManager`, loaded).
   * @param options Options that win over the configuration, and the other
   * parts of a manager (missing-translation handler, value parsers, key
   * resolver, `onMissing`, `onLoadError`).
   * @returns The manager.
   * @throws {LocalizationConfigurationError} When no source of translations
   * is configured, both are, or a value is not valid; the message names the
   * key and the value (and, for an entry of
   * `localization:supportedCultures`, its position and source).
   * @throws {TypeError} When the code passes both `resourceUrl` and
   * `resourcePath`, or a template without `{culture}`.
   * @throws {InvalidCultureError} When `options.culture`,
   * `options.fallbackCulture` or a culture of `options.supportedCultures` is
   * not a BCP 47 tag.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   * import { LocalizationManager } from "@vendor/kit/localization";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({
   *   "localization:defaultCulture": "fr",
   *   "localization:fallbackCulture": "en",
   *   "localization:supportedCultures": "en,fr,de",
   *   "localization:resourcePath": "./locales/{culture}.json",
   * }));
   * await config.loadConfiguration();
   * const manager = LocalizationManager.fromConfiguration(config);
   * manager.culture; // "fr"
   * manager.supportedCultures; // ["en", "fr", "de"]
   * // await manager.setCulture(manager.culture); then manager.t("home.title")
   * ```
   */
  static fromConfiguration(
    config: IConfiguration,
    options: LocalizationManagerConfigurationOptions = {},
  ): LocalizationManager {
    const parts = partsFromConfiguration(config, options);
    const manager = new LocalizationManager(
      parts.provider,
      parts.cultureProvider,
      options.missingTranslationHandler,
      parts.cache,
      options.valueParsers,
      {
        fallbackCulture: parts.fallbackCulture,
        supportedCultures: parts.supportedCultures,
        onMissing: options.onMissing,
        onLoadError: options.onLoadError,
        onMessageError: options.onMessageError,
      },
    );
    if (options.keyResolver !== undefined) {
      manager.setKeyResolver(options.keyResolver);
    }
    if (parts.internationalizationOff !== undefined) {
      manager.#onlyCulture = manager.culture;
      announceSingleCulture(
        config,
        manager.culture,
        parts.internationalizationOff.source,
      );
    }
    return manager;
  }

  /** The current culture: the one whose translations are served. */
  get culture(): string {
    return this.#state.culture;
  }

  /** The culture read last in every fallback chain, if any. */
  get fallbackCulture(): string | undefined {
    return this.#fallbackCulture;
  }

  /**
   * The cultures `forRequest` matches requests against when its call gives
   * none: the `supportedCultures` option, or `localization:supportedCultures`
   * for a manager built from configuration; `undefined` when neither was
   * given. With internationalization turned off, the one culture served.
   */
  get supportedCultures(): readonly string[] | undefined {
    const only = this.#onlyCulture;
    return only === undefined ? this.#supportedCultures : [only];
  }

  /**
   * The culture provider's `cultureChanged` signal: handlers get the new
   * culture, after its translations are in place.
   */
  get cultureChanged(): Signal<string> {
    return this.#cultureProvider.cultureChanged;
  }

  /**
   * Loads the translations of `culture` and of its fallback chain, then makes
   * it current.
   *
   * - Atomic: until the loads finish the previous culture keeps serving; on
   *   failure nothing changes.
   * - `cultureChanged` fires once, after the switch, when the culture
   *   differs from the previous one.
   * - Overlapping calls end on the last one requested: an earlier call that
   *   finishes later resolves without switching.
   * - A culture already loading is not requested again; with a cache, a
   *   fresh entry is not requested at all and an expired one is reloaded
   *   (its last good translations are kept if the reload fails).
   * - Cultures of the chain that the provider does not have (a
   *   `LocalizationLoadError` with `notFound`) are skipped; the call fails
   *   only when none is found.
   *
   * @param culture A BCP 47 culture name such as `fr-CA`.
   * @returns Resolves once the culture is current (or the call was
   * superseded).
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag; nothing
   * is loaded.
   * @throws {LocalizationLoadError} When a culture of the chain fails to
   * load, or none is found.
   * @throws {LocalizationResourceError} When a resource is not an object of
   * strings.
   *
   * @example Usage
   * ```ts
   * import {
   *   DefaultCultureProvider,
   *   LocalizationManager,
   *   MapLocalizationProvider,
   * } from "@vendor/kit/localization";
   *
   * const manager = new LocalizationManager(
   *   new MapLocalizationProvider(new Map([["de", new Map([["hi", "Hallo"]])]])),
   *   new DefaultCultureProvider("en"),
   * );
   * await manager.setCulture("de");
   * manager.culture; // "de"
   * ```
   */
  async setCulture(culture: string): Promise<void> {
    assertCultureName(culture);
    // Internationalization off: the one culture, whatever is asked.
    culture = this.#onlyCulture ?? culture;
    const ticket = ++this.#ticket;
    const chain = cultureChain(culture, this.#fallbackCulture);
    const sources = await this.#loader.sourcesOf(chain);
    if (ticket !== this.#ticket) return;
    this.#state = new Translations(culture, chain, sources, this.#parsers);
    this.#cultureProvider.setCulture(culture);
  }

  /**
   * Translates `key` for the current culture. Synchronous; looks the key up
   * along the fallback chain and runs the value parsers (once per key and
   * culture). A key no culture has gives the missing-translation handler's
   * result. Unlike `t`, not checked against keys declared in
   * {@linkcode LocalizationTypeOptions} (for keys computed at run time).
   *
   * @param key The key (mapped by the key resolver first).
   * @param args The values of the `{0}`, `{1}`, … markers, or one object of
   * named values for ICU messages.
   * @returns The translated text.
   * @throws {LocalizationReferenceError} When the text's `{@key}` references
   * form a cycle.
   *
   * @example Usage
   * ```ts
   * import {
   *   DefaultCultureProvider,
   *   LocalizationManager,
   *   MapLocalizationProvider,
   * } from "@vendor/kit/localization";
   *
   * const manager = new LocalizationManager(
   *   new MapLocalizationProvider(new Map([["en", new Map([["hi", "Hi {0}"]])]])),
   *   new DefaultCultureProvider("en"),
   * );
   * await manager.setCulture("en");
   * manager.translate("hi", "Ada"); // "Hi Ada"
   * ```
   */
  translate(key: string, ...args: unknown[]): string {
    return this.#state.translate(this.#host, key, args);
  }

  /**
   * Whether a culture of the current fallback chain has `key`.
   *
   * @param key The key (mapped by the key resolver first).
   * @returns `true` when `translate` would not use the missing handler.
   *
   * @example Usage
   * ```ts
   * import {
   *   DefaultCultureProvider,
   *   LocalizationManager,
   *   MapLocalizationProvider,
   * } from "@vendor/kit/localization";
   *
   * const manager = new LocalizationManager(
   *   new MapLocalizationProvider(new Map([["en", new Map([["hi", "Hi"]])]])),
   *   new DefaultCultureProvider("en"),
   * );
   * await manager.setCulture("en");
   * manager.has("hi"); // true
   * ```
   */
  has(key: string): boolean {
    return this.#state.has(this.#host, key);
  }

  /**
   * Sets how requested keys map to resource keys (default
   * {@linkcode IdentityKeyResolver}).
   *
   * @param resolver For example a {@linkcode CamelCaseKeyResolver}.
   *
   * @example Usage
   * ```ts
   * import {
   *   CamelCaseKeyResolver,
   *   DefaultCultureProvider,
   *   LocalizationManager,
   *   MapLocalizationProvider,
   * } from "@vendor/kit/localization";
   *
   * const manager = new LocalizationManager(
   *   new MapLocalizationProvider(new Map([["en", new Map([["home.pageTitle", "Home"]])]])),
   *   new DefaultCultureProvider("en"),
   * );
   * await manager.setCulture("en");
   * manager.setKeyResolver(new CamelCaseKeyResolver());
   * manager.t("Home.Page-Title"); // "Home"
   * ```
   */
  setKeyResolver(resolver: LocalizationKeyResolver): void {
    this.#host.resolver = resolver instanceof IdentityKeyResolver
      ? undefined
      : resolver;
  }

  /**
   * A {@linkcode Translator} for `culture`, for one request on a server:
   * the manager's own current culture (`setCulture`, `cultureChanged`) is
   * left alone, so one manager serves every request whatever its language.
   *
   * - The culture and its fallback chain are loaded through the same
   *   provider and cache as `setCulture` when needed; concurrent calls for
   *   the same culture share one load, and the translator is kept, so later
   *   calls (and their compiled messages) cost a map lookup.
   * - Translators are bounded like the cache (`maxSize` cultures, the oldest
   *   going first, each expiring after `ttl`; 1000 cultures and one hour
   *   without a cache). A culture of which only the fallback culture's chain
   *   has translations (for example a made-up `xx-YY`) gets the fallback
   *   culture's translator, so a flood of bogus cultures keeps memory flat.
   *
   * @param culture A BCP 47 culture name such as `fr-CA`.
   * @returns The translator of `culture` (of the fallback culture when no
   * culture before it in the chain has translations).
   * @throws {InvalidCultureError} When `culture` is not a BCP 47 tag.
   * @throws {LocalizationLoadError} When a culture of the chain fails to
   * load, or none is found.
   * @throws {LocalizationResourceError} When a resource is not an object of
   * strings.
   *
   * @example Usage
   * ```ts
   * import {
   *   DefaultCultureProvider,
   *   LocalizationManager,
   *   MapLocalizationProvider,
   * } from "@vendor/kit/localization";
   *
   * const manager = new LocalizationManager(
   *   new MapLocalizationProvider(new Map([
   *     ["en", new Map([["hi", "Hello {name}"]])],
   *     ["de", new Map([["hi", "Hallo {name}"]])],
   *   ])),
   *   new DefaultCultureProvider("en"),
   *   undefined,
   *   undefined,
   *   undefined,
   *   { fallbackCulture: "en" },
   * );
   * const de = await manager.forCulture("de-AT");
   * de.t("hi", { name: "Ada" }); // "Hallo Ada"
   * (await manager.forCulture("xx-YY")).culture; // "en"
   * ```
   */
  forCulture(culture: string): Promise<Translator> {
    if (this.#onlyCulture !== undefined && culture !== this.#onlyCulture) {
      // Internationalization off: checked as always, then the one culture.
      if (!isCultureName(culture)) {
        return Promise.reject(new InvalidCultureError(culture));
      }
      culture = this.#onlyCulture;
    }
    const slot = this.#slots.get(culture);
    if (
      slot !== undefined &&
      (slot.expires === Infinity || this.#translators.fresh(slot))
    ) {
      return slot.promise;
    }
    return this.#newTranslator(culture);
  }

  /**
   * The {@linkcode Translator} for an HTTP request: the culture is taken
   * from the query parameter (`?culture=fr`, see `queryParameter`), then
   * the cookie (when `cookie` names one), then the `Accept-Language` header
   * (quality values honoured), each matched best-fit against `cultures`
   * (default: the manager's `supportedCultures`) when there are any (see
   * {@linkcode negotiateCulture}); the fallback answers when nothing fits.
   * Then {@linkcode LocalizationManager.prototype.forCulture}. With
   * internationalization turned off by the configuration, the default
   * culture's translator, without reading the request.
   *
   * @param request A Fetch API `Request`, or anything with `url` and
   * `headers.get`.
   * @param options `cultures`, `queryParameter`, `cookie`, `fallback`.
   * @returns The translator for the request's culture.
   * @throws {InvalidCultureError} When a culture of `options.cultures` or
   * `options.fallback` is not a BCP 47 tag.
   * @throws {LocalizationLoadError} When a culture of the chain fails to
   * load, or none is found.
   *
   * @example Usage
   * ```ts
   * import {
   *   DefaultCultureProvider,
   *   LocalizationManager,
   *   MapLocalizationProvider,
   * } from "@vendor/kit/localization";
   *
   * const manager = new LocalizationManager(
   *   new MapLocalizationProvider(new Map([
   *     ["en-US", new Map([["hi", "Hello"]])],
   *     ["fr-FR", new Map([["hi", "Bonjour"]])],
   *   ])),
   *   new DefaultCultureProvider("en-US"),
   * );
   * const request = new Request("https://example.com/", {
   *   headers: { "accept-language": "fr-CH, fr;q=0.9, en;q=0.5" },
   * });
   * const translator = await manager.forRequest(request, {
   *   cultures: ["en-US", "fr-FR"],
   *   cookie: "lang",
   * });
   * translator.culture; // "fr-FR"
   * translator.t("hi"); // "Bonjour"
   * ```
   */
  forRequest(
    request: LocalizationRequest,
    options: ForRequestOptions = {},
  ): Promise<Translator> {
    if (this.#onlyCulture !== undefined) {
      return this.forCulture(this.#onlyCulture);
    }
    let culture: string;
    try {
      culture = cultureOfRequest(
        request,
        options,
        this.#supportedCultures,
        this.#fallbackCulture,
        this.#state.culture,
      );
    } catch (error) {
      return Promise.reject(error);
    }
    return this.forCulture(culture);
  }

  /**
   * How many per-culture translators
   * {@linkcode LocalizationManager.prototype.forCulture} keeps (at most the
   * cache's `maxSize`).
   */
  get translatorCount(): number {
    return this.#translators.size;
  }

  #newTranslator(culture: string): Promise<Translator> {
    if (!isCultureName(culture)) {
      return Promise.reject(new InvalidCultureError(culture));
    }
    return this.#translators.add(culture, this.#buildTranslator(culture));
  }

  async #buildTranslator(culture: string): Promise<Translator> {
    const fallback = this.#fallbackCulture;
    const chain = cultureChain(culture, fallback);
    const sources = await this.#loader.sourcesOf(chain);
    if (fallback !== undefined && culture !== fallback) {
      const fallbackChain = cultureChain(fallback, undefined);
      if (
        !fallbackChain.includes(culture) &&
        sources.every((source) => fallbackChain.includes(source.culture))
      ) {
        return this.forCulture(fallback);
      }
    }
    return new CultureTranslator(
      new Translations(culture, chain, sources, this.#parsers),
      this.#host,
    );
  }
}
