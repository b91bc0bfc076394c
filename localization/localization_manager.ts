import type { IConfiguration } from "../config/mod.ts";
import type { TimerHandle } from "../core/mod.ts";
import { unrefTimer } from "../internal/unref_timer.ts";
import { hostLogger, RequestContext, type Signal } from "../platform/mod.ts";
import { partsFromConfiguration } from "./_configuration.ts";
import { cacheClocks } from "./_cache_clock.ts";
import type { Source } from "./_compiler.ts";
import { cultureChain } from "./_culture_chain.ts";
import { pickCulture } from "./_pick_culture.ts";
import { CultureTranslator, type Host, Translations } from "./_translations.ts";
import { assertCultureName, isCultureName } from "./culture_name.ts";
import { InvalidCultureError } from "./invalid_culture_error.ts";
import type { CultureProvider } from "./culture_provider.ts";
import { FormatLocalizationValueParser } from "./format_localization_value_parser.ts";
import { IcuLocalizationValueParser } from "./icu_localization_value_parser.ts";
import { IdentityKeyResolver } from "./identity_key_resolver.ts";
import type { LocalizationKeyResolver } from "./key_resolver.ts";
import type { LocalizationHttpClient } from "./http_localization_loader.ts";
import type { LocalizationCache } from "./localization_cache.ts";
import { LocalizationLoadError } from "./localization_load_error.ts";
import type { LocalizationMessageError } from "./localization_message_error.ts";
import { negotiateCulture, parseAcceptLanguage } from "./negotiate_culture.ts";
import type {
  LocalizationProvider,
  LocalizationResources,
} from "./localization_provider.ts";
import { RefLocalizationValueParser } from "./ref_localization_value_parser.ts";
import type { TranslateFunction, Translator } from "./translator.ts";
import type { LocalizationValueParser } from "./value_parser.ts";

/**
 * Produces the text shown for a key no culture of the fallback chain has
 * (for example `[key]` or the key itself).
 *
 * @param key The key as given to `translate`.
 * @param culture The current culture.
 * @returns The text to show.
 */
export type MissingTranslationHandler = (
  key: string,
  culture: string,
) => string;

/**
 * One step of the fallback chain at which a key was missing, reported to
 * {@linkcode LocalizationManagerOptions.onMissing}.
 */
export interface MissingTranslationReport {
  /** The key as given to `translate`. */
  readonly key: string;
  /** The key after the key resolver, as looked up. */
  readonly resolvedKey: string;
  /** The current culture, the one `translate` was asked for. */
  readonly requestedCulture: string;
  /** The culture of this step, which has no text for the key. */
  readonly missingCulture: string;
  /**
   * The culture that supplied the text in the end, or `undefined` when none
   * did and the missing-translation handler's result was returned.
   */
  readonly answeringCulture: string | undefined;
}

/** Options of a {@linkcode LocalizationManager}. */
export interface LocalizationManagerOptions {
  /**
   * The culture read last, after the requested culture and its shorter forms
   * (`fr-CA` → `fr` → `fallbackCulture`). Loaded with every `setCulture`.
   * Default: none.
   */
  fallbackCulture?: string;
  /**
   * Called, on each `translate` call, once for every culture of the chain
   * that lacked the key, also when a later culture supplied the text.
   * A throwing callback is reported with `console.error` and ignored.
   */
  onMissing?: (report: MissingTranslationReport) => void;
  /**
   * Called when a reload fails and the cache's last good translations are
   * served instead. Default: a warning in the running application's logging
   * (category `kit.localization`); nothing outside an application with a
   * logging step.
   */
  onLoadError?: (error: unknown, culture: string) => void;
  /**
   * Called once per key and culture when a translation is not valid ICU
   * MessageFormat; the key is then treated as missing in that culture (the
   * next culture of the chain, or the missing-translation handler, answers).
   * Default: the error goes to the running application's logging (category
   * `kit.localization`, level error), or its message is written with
   * `console.error` outside an application with a logging step.
   */
  onMessageError?: (error: LocalizationMessageError) => void;
}

/**
 * The shape of a request {@linkcode LocalizationManager.prototype.forRequest}
 * reads: a Fetch API `Request` fits, and so does anything with a URL and
 * headers.
 */
export interface LocalizationRequest {
  /** The full URL of the request (its query may hold the culture). */
  readonly url: string;
  /** The request headers (`Accept-Language`, `Cookie`). */
  readonly headers: { get(name: string): string | null };
}

/** Options of {@linkcode LocalizationManager.prototype.forRequest}. */
export interface ForRequestOptions {
  /**
   * The cultures on offer, as named in the resources (`["en-US", "fr-FR"]`).
   * With them, what the request asks for is matched best-fit (`fr-CH` gets
   * `fr-FR`); without them, the first valid culture asked for is used as is
   * (and falls back along its chain).
   */
  cultures?: readonly string[];
  /**
   * The query parameter that chooses the culture (`?culture=fr`), or `false`
   * for none. Default `"culture"`.
   */
  queryParameter?: string | false;
  /** The cookie that holds the chosen culture; none by default. */
  cookie?: string;
  /**
   * What to answer in when the request asks for nothing on offer. Default:
   * the manager's `fallbackCulture`, else the first of `cultures`, else the
   * current culture.
   */
  fallback?: string;
}

/**
 * Options of {@linkcode LocalizationManager.fromConfiguration}. Each one given
 * here wins over the configuration; the configuration fills only what is not
 * given.
 */
export interface LocalizationManagerConfigurationOptions
  extends LocalizationManagerOptions {
  /** The starting culture; wins over `localization:defaultCulture`. */
  culture?: string;
  /**
   * Holds the current culture (for example a
   * {@linkcode NavigatorCultureProvider}); wins over `culture` and
   * `localization:defaultCulture`.
   */
  cultureProvider?: CultureProvider;
  /**
   * Supplies the translations; wins over `resourceUrl`, `resourcePath` and
   * their keys.
   */
  provider?: LocalizationProvider;
  /**
   * Address template holding `{culture}` to load translations over HTTP;
   * wins over `localization:resourceUrl` and `localization:resourcePath`.
   */
  resourceUrl?: string;
  /**
   * File path template holding `{culture}` to read translations from JSON
   * files; wins over `localization:resourceUrl` and
   * `localization:resourcePath`.
   */
  resourcePath?: string;
  /**
   * The HTTP client for an address template (Kit's `HttpClient`, whose
   * base address, interceptors, timeouts and retries then apply). Without
   * one, `fetch` is used with `timeout`.
   */
  client?: LocalizationHttpClient;
  /**
   * Limit of one load through `fetch` in milliseconds (`0` = none); wins
   * over `localization:timeout`. Default 10000.
   */
  timeout?: number;
  /**
   * The cache of loaded translations, or `false` for none; wins over
   * `localization:cache:*`. Default: a {@linkcode LocalizationCache} with
   * `localization:cache:maxSize` and `localization:cache:ttl`.
   */
  cache?: LocalizationCache | false;
  /** The text for a key no culture has; default `[key]`. */
  missingTranslationHandler?: MissingTranslationHandler;
  /** The value parsers, as for the constructor. */
  valueParsers?: readonly LocalizationValueParser[];
  /** How requested keys map to resource keys. */
  keyResolver?: LocalizationKeyResolver;
}

// A translator of forCulture, shared by the calls for its culture.
interface Slot {
  readonly promise: Promise<Translator>;
  // Infinity while fresh; a time on the cache's clock, or -Infinity once
  // the slot's timer ran.
  expires: number;
  timer?: TimerHandle;
}

function forget(translators: Map<string, Slot>, culture: string): void {
  const slot = translators.get(culture);
  if (slot === undefined) return;
  if (slot.timer !== undefined) clearTimeout(slot.timer);
  translators.delete(culture);
}

function cookieValue(
  header: string | null,
  name: string,
): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(";")) {
    const cut = part.indexOf("=");
    if (cut === -1 || part.slice(0, cut).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(cut + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

type Loaded =
  | { readonly culture: string; readonly texts: LocalizationResources }
  | { readonly culture: string; readonly error: unknown };

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
  readonly #provider: LocalizationProvider;
  readonly #cultureProvider: CultureProvider;
  readonly #handler: MissingTranslationHandler;
  readonly #cache: LocalizationCache | undefined;
  readonly #parsers: readonly LocalizationValueParser[];
  readonly #fallbackCulture: string | undefined;
  readonly #onMissing:
    | ((report: MissingTranslationReport) => void)
    | undefined;
  readonly #onLoadError:
    | ((error: unknown, culture: string) => void)
    | undefined;
  readonly #loading = new Map<string, Promise<LocalizationResources>>();
  readonly #host: Host;
  readonly #translators = new Map<string, Slot>();
  readonly #maxTranslators: number;
  readonly #ttl: number;
  // The cache's own clock when it has one (tests); otherwise translators
  // expire through an unref'd timer, so forCulture reads no clock.
  readonly #clock: (() => number) | undefined;
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
   * @param options `fallbackCulture`, `onMissing`, `onLoadError`,
   * `onMessageError`.
   * @throws {InvalidCultureError} When `fallbackCulture` is not a BCP 47 tag.
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
    this.#provider = provider;
    this.#cultureProvider = cultureProvider;
    this.#handler = missingTranslationHandler;
    this.#cache = cache;
    this.#parsers = [...valueParsers];
    this.#fallbackCulture = options.fallbackCulture === undefined
      ? undefined
      : assertCultureName(options.fallbackCulture);
    this.#onMissing = options.onMissing;
    this.#onLoadError = options.onLoadError;
    this.#host = {
      resolver: undefined,
      handler: missingTranslationHandler,
      onMissing: options.onMissing,
      onMessageError: options.onMessageError ?? messageErrorByDefault,
    };
    this.#maxTranslators = cache?.maxSize ?? 1000;
    this.#ttl = cache?.ttl ?? 3_600_000;
    this.#clock = cache === undefined ? undefined : cacheClocks.get(cache);
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
   * key and the value.
   * @throws {TypeError} When the code passes both `resourceUrl` and
   * `resourcePath`, or a template without `{culture}`.
   * @throws {InvalidCultureError} When `options.culture` or
   * `options.fallbackCulture` is not a BCP 47 tag.
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
   *   "localization:resourcePath": "./locales/{culture}.json",
   * }));
   * await config.loadConfiguration();
   * const manager = LocalizationManager.fromConfiguration(config);
   * manager.culture; // "fr"
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
        onMissing: options.onMissing,
        onLoadError: options.onLoadError,
        onMessageError: options.onMessageError,
      },
    );
    if (options.keyResolver !== undefined) {
      manager.setKeyResolver(options.keyResolver);
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
    const ticket = ++this.#ticket;
    const chain = cultureChain(culture, this.#fallbackCulture);
    const sources = await this.#sourcesOf(chain);
    if (ticket !== this.#ticket) return;
    this.#state = new Translations(culture, chain, sources, this.#parsers);
    this.#cultureProvider.setCulture(culture);
  }

  // Loads every culture of a chain; those the provider does not have are
  // skipped, and the chain fails only when none is found.
  async #sourcesOf(chain: readonly string[]): Promise<Source[]> {
    const loaded = await Promise.all(chain.map((name) => this.#settle(name)));
    const sources: Source[] = [];
    let notFound: unknown;
    for (const result of loaded) {
      if ("texts" in result) {
        sources.push({
          culture: result.culture,
          texts: result.texts,
          compiled: new Map(),
        });
      } else if (
        result.error instanceof LocalizationLoadError && result.error.notFound
      ) {
        notFound ??= result.error;
      } else {
        throw result.error;
      }
    }
    if (sources.length === 0) throw notFound;
    return sources;
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
    const slot = this.#translators.get(culture);
    if (
      slot !== undefined &&
      (slot.expires === Infinity ||
        (this.#clock !== undefined && this.#clock() < slot.expires))
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
   * when given (see {@linkcode negotiateCulture}); the fallback answers when
   * nothing fits. Then {@linkcode LocalizationManager.prototype.forCulture}.
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
    let culture: string;
    try {
      culture = this.#cultureOf(request, options);
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

  #cultureOf(request: LocalizationRequest, options: ForRequestOptions): string {
    const cultures = options.cultures;
    const fallback = options.fallback ?? this.#fallbackCulture ??
      cultures?.[0] ?? this.#state.culture;
    const chosen: string[] = [];
    const parameter = options.queryParameter ?? "culture";
    if (parameter !== false) {
      const query = request.url.indexOf("?");
      if (query !== -1) {
        const value = new URLSearchParams(request.url.slice(query + 1)).get(
          parameter,
        );
        if (value !== null && isCultureName(value)) chosen.push(value);
      }
    }
    if (options.cookie !== undefined) {
      const value = cookieValue(request.headers.get("cookie"), options.cookie);
      if (value !== undefined && isCultureName(value)) chosen.push(value);
    }
    const accept = request.headers.get("accept-language");
    if (cultures === undefined) {
      assertCultureName(fallback);
      if (chosen.length !== 0) return chosen[0];
      return parseAcceptLanguage(accept).find(isCultureName) ?? fallback;
    }
    for (const value of chosen) {
      const picked = pickCulture([value], cultures);
      if (picked !== undefined) return picked;
    }
    return negotiateCulture(accept, cultures, fallback);
  }

  #newTranslator(culture: string): Promise<Translator> {
    if (!isCultureName(culture)) {
      return Promise.reject(new InvalidCultureError(culture));
    }
    const slot: Slot = {
      promise: this.#buildTranslator(culture),
      expires: Infinity,
    };
    const translators = this.#translators;
    forget(translators, culture);
    if (translators.size >= this.#maxTranslators) {
      forget(translators, translators.keys().next().value!);
    }
    translators.set(culture, slot);
    slot.promise.then(
      () => {
        const ttl = this.#ttl;
        if (ttl === 0) return;
        if (this.#clock !== undefined) {
          slot.expires = this.#clock() + ttl;
        } else if (ttl < 2 ** 31) {
          // Not in the request that loaded it: the timer would keep that
          // request's context alive for the whole time to live.
          slot.timer = unrefTimer(RequestContext.detach(() =>
            setTimeout(() => {
              slot.expires = -Infinity;
            }, ttl)
          ));
        }
      },
      () => {
        if (translators.get(culture) === slot) forget(translators, culture);
      },
    );
    return slot.promise;
  }

  async #buildTranslator(culture: string): Promise<Translator> {
    const fallback = this.#fallbackCulture;
    const chain = cultureChain(culture, fallback);
    const sources = await this.#sourcesOf(chain);
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

  #settle(culture: string): Promise<Loaded> {
    return this.#load(culture).then(
      (texts) => ({ culture, texts }),
      (error: unknown) => ({ culture, error }),
    );
  }

  // At most one load per culture at a time; a fresh cache entry is used as
  // is.
  #load(culture: string): Promise<LocalizationResources> {
    const cached = this.#cache?.get(culture);
    if (cached !== undefined) return Promise.resolve(cached);
    let loading = this.#loading.get(culture);
    if (loading === undefined) {
      loading = this.#loadFromProvider(culture).finally(() => {
        this.#loading.delete(culture);
      });
      this.#loading.set(culture, loading);
    }
    return loading;
  }

  async #loadFromProvider(culture: string): Promise<LocalizationResources> {
    try {
      const texts = await this.#provider.load(culture);
      this.#cache?.set(culture, texts);
      return texts;
    } catch (error) {
      const stale = this.#cache?.getStale(culture);
      if (stale === undefined) throw error;
      if (this.#onLoadError !== undefined) this.#onLoadError(error, culture);
      else {
        hostLogger("kit.localization")?.warning(
          `Reloading the translations of '${culture}' failed; the last good ones are served: ${
            error instanceof Error ? error.message : String(error)
          }`,
          { culture, error },
        );
      }
      return stale;
    }
  }
}

// An invalid translation, when nobody asked for it: the running
// application's logging, else the console.
function messageErrorByDefault(error: LocalizationMessageError): void {
  const logger = hostLogger("kit.localization");
  if (logger !== undefined) logger.error(error.message, { error });
  else console.error(error.message);
}
