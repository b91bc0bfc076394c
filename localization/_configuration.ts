// LocalizationManager.fromConfiguration: reads the `localization` section of
// a configuration into constructor arguments; options given in code win.
import {
  type IConfiguration,
  kitConfigurationSections,
} from "../config/mod.ts";
import { isCultureName } from "./cultures/culture_name.ts";
import type { CultureProvider } from "./cultures/culture_provider.ts";
import { DefaultCultureProvider } from "./cultures/default_culture_provider.ts";
import { HttpLocalizationLoader } from "./loading/http_localization_loader.ts";
import { JsonFileLocalizationLoader } from "./loading/json_file_localization_loader.ts";
import { LoaderLocalizationProvider } from "./loading/loader_localization_provider.ts";
import { LocalizationCache } from "./localization_cache.ts";
import { LocalizationConfigurationError } from "./localization_configuration_error.ts";
import type { LocalizationProvider } from "./loading/localization_provider.ts";
import type { LocalizationManagerConfigurationOptions } from "./localization_manager_options.ts";
import { readCultureList } from "../internal/culture_names.ts";
import {
  readFeatureSwitch,
  sourceOf,
} from "../internal/settings/feature_switch.ts";
import {
  findSetting,
  type FoundSetting,
  quoteSetting,
  readSetting,
} from "../internal/settings/setting.ts";

// Types, bounds and the default culture come from the configuration's one
// declaration of these keys, the one appConfigSchema checks by.
const DECLARED = kitConfigurationSections.localization;

export const KEYS = {
  defaultCulture: "localization:defaultCulture",
  fallbackCulture: "localization:fallbackCulture",
  supportedCultures: "localization:supportedCultures",
  internationalization: "features:enableInternationalization",
  resourceUrl: "localization:resourceUrl",
  resourcePath: "localization:resourcePath",
  timeout: "localization:timeout",
  cacheMaxSize: "localization:cache:maxSize",
  cacheTtl: "localization:cache:ttl",
} as const;

/**
 * What the code gave (the options that stand for a configuration key); each
 * one given is neither read nor checked.
 */
export type GivenInCode = Pick<
  LocalizationManagerConfigurationOptions,
  | "culture"
  | "cultureProvider"
  | "fallbackCulture"
  | "supportedCultures"
  | "provider"
  | "resourceUrl"
  | "resourcePath"
  | "client"
  | "timeout"
  | "cache"
>;

/** The parts of a manager the configuration (and the code) decided. */
export interface ConfiguredParts {
  provider: LocalizationProvider;
  cultureProvider: CultureProvider;
  fallbackCulture: string | undefined;
  supportedCultures: readonly string[] | undefined;
  cache: LocalizationCache | undefined;
  /**
   * Where `features:enableInternationalization` was set to false, when it
   * was (`undefined` when internationalization is on).
   */
  internationalizationOff: { source: string | undefined } | undefined;
}

export function partsFromConfiguration(
  config: IConfiguration,
  given: GivenInCode,
): ConfiguredParts {
  const internationalizationOff = switchedOff(config);
  const cultureProvider = given.cultureProvider ??
    new DefaultCultureProvider(
      given.culture ?? defaultCultureOf(config),
    );
  const fallbackCulture = given.fallbackCulture ??
    cultureOf(config, KEYS.fallbackCulture);
  return {
    provider: given.provider ?? providerOf(config, given),
    cultureProvider,
    fallbackCulture,
    supportedCultures: given.supportedCultures ??
      supportedCulturesOf(config),
    internationalizationOff,
    cache: given.cache === false
      ? undefined
      : given.cache ?? new LocalizationCache({
        maxSize: whole(
          config,
          KEYS.cacheMaxSize,
          DECLARED.cache.maxSize.min,
          `a whole number >= ${DECLARED.cache.maxSize.min}`,
        ),
        ttl: whole(
          config,
          KEYS.cacheTtl,
          DECLARED.cache.ttl.min,
          `a whole number of milliseconds >= ${DECLARED.cache.ttl.min}`,
        ),
      }),
  };
}

/**
 * `localization:defaultCulture`, checked, else its declared default (`en`).
 *
 * @throws {LocalizationConfigurationError} When it is not a culture name.
 */
export function defaultCultureOf(config: IConfiguration): string {
  return cultureOf(config, KEYS.defaultCulture) ??
    DECLARED.defaultCulture.default;
}

/**
 * `localization:supportedCultures`: an array, or names separated by commas
 * (an environment variable); `undefined` when not set or empty.
 *
 * @throws {LocalizationConfigurationError} For an entry that is not a
 * culture name, naming the key, the entry's position, its source and the
 * entry, in the words of the configuration's own check.
 */
export function supportedCulturesOf(
  config: IConfiguration,
): string[] | undefined {
  const key = KEYS.supportedCultures;
  if (!config.hasValue(key)) return undefined;
  const list = readCultureList(config.getValue<unknown>(key, undefined));
  if (list === undefined) return undefined;
  if (list.bad === undefined) return list.cultures;
  const { index, problem } = list.bad;
  const at = index === undefined ? key : `${key}:${index}`;
  // An indexed source (`__1`, an array in a file) knows the entry's own
  // source; a comma list is one variable.
  const source = (index === undefined ? undefined : sourceOf(config, at)) ??
    sourceOf(config, key);
  throw new LocalizationConfigurationError(
    key,
    `${at}: ${problem}${source === undefined ? "" : ` (from ${source})`}`,
    findSetting(config, [at])?.source ?? findSetting(config, [key])?.source,
  );
}

/**
 * Whether `features:enableInternationalization` turns internationalization
 * off, and where it was set.
 *
 * @throws {LocalizationConfigurationError} For a value that is no switch.
 */
export function switchedOff(
  config: IConfiguration,
): { source: string | undefined } | undefined {
  const found = readFeatureSwitch(config, KEYS.internationalization);
  if (found.problem !== undefined) {
    throw new LocalizationConfigurationError(
      KEYS.internationalization,
      found.problem,
      findSetting(config, [KEYS.internationalization])?.source,
    );
  }
  return found.on ? undefined : { source: found.source };
}

function cultureOf(config: IConfiguration, key: string): string | undefined {
  const value = text(config, key);
  if (value !== undefined && !isCultureName(value)) {
    const found = findSetting(config, [key]);
    throw new LocalizationConfigurationError(
      key,
      `${key} must be a BCP 47 culture name such as "en" or "fr-CA": ${
        quoteFound(found, key, value)
      }`,
      found?.source,
    );
  }
  return value;
}

function providerOf(
  config: IConfiguration,
  given: GivenInCode,
): LocalizationProvider {
  let url = given.resourceUrl;
  let path = given.resourcePath;
  let key: string | undefined;
  if (url === undefined && path === undefined) {
    url = text(config, KEYS.resourceUrl);
    path = text(config, KEYS.resourcePath);
    if (url !== undefined && path !== undefined) {
      throw new LocalizationConfigurationError(
        KEYS.resourceUrl,
        `${KEYS.resourceUrl} and ${KEYS.resourcePath} are both set: keep ` +
          `${KEYS.resourceUrl} to load translations over HTTP or ` +
          `${KEYS.resourcePath} to read them from files`,
      );
    }
    if (url === undefined && path === undefined) {
      throw new LocalizationConfigurationError(
        KEYS.resourceUrl,
        `Neither ${KEYS.resourceUrl} nor ${KEYS.resourcePath} is set: set ` +
          "one to an address or file path template holding {culture} (for " +
          'example "/api/localization/{culture}.json" or ' +
          '"./locales/{culture}.json"), or pass options.provider to ' +
          "LocalizationManager.fromConfiguration",
      );
    }
    key = url !== undefined ? KEYS.resourceUrl : KEYS.resourcePath;
  } else if (url !== undefined && path !== undefined) {
    throw new TypeError(
      "LocalizationManager.fromConfiguration: give options.resourceUrl or " +
        "options.resourcePath, not both",
    );
  }
  const template = (url ?? path)!;
  if (key !== undefined && !template.includes("{culture}")) {
    const found = findSetting(config, [key]);
    throw new LocalizationConfigurationError(
      key,
      `${key} must contain the placeholder {culture}: ${
        quoteFound(found, key, template)
      }`,
      found?.source,
    );
  }
  if (path !== undefined) {
    return new LoaderLocalizationProvider(
      new JsonFileLocalizationLoader(template),
    );
  }
  const timeout = given.timeout ??
    whole(
      config,
      KEYS.timeout,
      DECLARED.timeout.min,
      `a whole number of milliseconds >= ${DECLARED.timeout.min}`,
    );
  return new LoaderLocalizationProvider(
    new HttpLocalizationLoader(template, { client: given.client, timeout }),
  );
}

function text(config: IConfiguration, key: string): string | undefined {
  return readSetting<string>(
    config,
    { keys: [key], type: "string", emptyIsUnset: true },
    ({ found, quoted }) =>
      new LocalizationConfigurationError(
        key,
        `${key} must be text: ${quoted}`,
        found?.source,
      ),
  );
}

function whole(
  config: IConfiguration,
  key: string,
  min: number,
  what: string,
): number | undefined {
  return readSetting<number>(
    config,
    { keys: [key], type: "whole number", min, emptyIsUnset: true },
    ({ found, quoted }) =>
      new LocalizationConfigurationError(
        key,
        `${key} must be ${what}: ${quoted}`,
        found?.source,
      ),
  );
}

// The value as the message quotes it: masked and bounded as Kit quotes a
// setting (`***` when read from a file or its key names a secret).
function quoteFound(
  found: FoundSetting | undefined,
  key: string,
  value: string,
): string {
  return quoteSetting(
    found === undefined ? { key, value, source: "code" } : { ...found, value },
    key,
  );
}
