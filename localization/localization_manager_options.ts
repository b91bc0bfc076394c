// The options and request shape of LocalizationManager, apart from its class
// so that the manager's file holds its behaviour (like application_options.ts).
import type { CultureProvider } from "./cultures/culture_provider.ts";
import type { LocalizationHttpClient } from "./loading/http_localization_loader.ts";
import type { LocalizationKeyResolver } from "./messages/key_resolver.ts";
import type { LocalizationCache } from "./localization_cache.ts";
import type { LocalizationMessageError } from "./messages/localization_message_error.ts";
import type { LocalizationProvider } from "./loading/localization_provider.ts";
import type { LocalizationValueParser } from "./messages/value_parser.ts";

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
   * The cultures the application offers, as named in the resources
   * (`["en-US", "fr-FR"]`): `forRequest` matches what a request asks for
   * against them when its call gives no `cultures`. Default: none (the
   * first valid culture a request asks for is used as is).
   * `LocalizationManager.fromConfiguration` reads
   * `localization:supportedCultures` when this is not given.
   */
  supportedCultures?: readonly string[];
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
   * (and falls back along its chain). Default: the manager's
   * `supportedCultures` (from `localization:supportedCultures` for a manager
   * built from configuration).
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
 * given (`supportedCultures` over `localization:supportedCultures`,
 * `fallbackCulture` over `localization:fallbackCulture`).
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
