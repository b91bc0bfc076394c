// HttpClient.fromConfiguration: reads the `api` section (the API_* standard
// variables) into constructor arguments; options given in code win.
import {
  type IConfiguration,
  kitConfigurationSections,
} from "../config/mod.ts";
import {
  findDeclared,
  quoteSetting,
  readSetting,
} from "../internal/settings/setting.ts";
import { displayUrl } from "./_display_url.ts";
import { resolveBase } from "./_url.ts";
import { HttpConfigurationError } from "./http_configuration_error.ts";

/**
 * A key and the raw variable name read when the key is absent
 * (`api:enableCaching` has no standard variable).
 */
const BASE_URL = ["api:baseUrl", "API_BASE_URL"] as const;
const TIMEOUT = ["api:timeout", "API_TIMEOUT"] as const;
const RETRY_ATTEMPTS = ["api:retryAttempts", "API_RETRY_ATTEMPTS"] as const;
const ENABLE_CACHING = ["api:enableCaching"] as const;

/** What the configuration gives of the `api` section. */
export interface ConfiguredApi {
  baseUrl: string | undefined;
  timeout: number | undefined;
  retryAttempts: number | undefined;
  enableCaching: boolean | undefined;
}

/**
 * Reads what the code did not set: a value marked `true` in `skip` was given
 * in code and is neither read nor checked.
 */
export function readApiConfiguration(
  config: IConfiguration,
  skip: {
    baseUrl: boolean;
    timeout: boolean;
    retryAttempts: boolean;
    enableCaching: boolean;
  },
): ConfiguredApi {
  let baseUrl: string | undefined;
  if (!skip.baseUrl) {
    const found = findDeclared(config, {
      keys: BASE_URL,
      emptyIsUnset: true,
    });
    if (found === undefined) {
      throw new HttpConfigurationError(
        BASE_URL[0],
        `${BASE_URL[0]} is not set: set it in the configuration (or the ` +
          `${BASE_URL[1]} environment variable, read by ` +
          "addStandardVariables()), or pass options.baseUrl to " +
          "HttpClient.fromConfiguration",
      );
    }
    baseUrl = String(found.value).trim();
    try {
      resolveBase(baseUrl);
    } catch (error) {
      throw new HttpConfigurationError(
        found.key,
        `${found.key} must be an absolute http(s) URL or a path starting ` +
          `with "/", without query or fragment: ${
            quoteSetting({ ...found, value: displayUrl(baseUrl) }, found.key)
          } (${reasonOf(error)})`,
        found.source,
      );
    }
  }
  // The bounds are the configuration's own declaration of the keys, the
  // one appConfigSchema checks by.
  const { timeout, retryAttempts } = kitConfigurationSections.api;
  return {
    baseUrl,
    timeout: skip.timeout ? undefined : whole(
      config,
      TIMEOUT,
      timeout.min,
      timeout.max,
      "a whole number of milliseconds",
    ),
    retryAttempts: skip.retryAttempts ? undefined : whole(
      config,
      RETRY_ATTEMPTS,
      retryAttempts.min,
      retryAttempts.max,
      "a whole number",
    ),
    enableCaching: skip.enableCaching ? undefined : readSetting<boolean>(
      config,
      {
        keys: ENABLE_CACHING,
        type: "boolean",
        oneOrZero: true,
        emptyIsUnset: true,
      },
      ({ key, found, quoted }) =>
        new HttpConfigurationError(
          key,
          `${key} must be true or false (or 1 or 0): ${quoted}`,
          found?.source,
        ),
    ),
  };
}

function whole(
  config: IConfiguration,
  keys: readonly string[],
  min: number,
  max: number,
  what: string,
): number | undefined {
  return readSetting<number>(
    config,
    { keys, type: "whole number", min, max, emptyIsUnset: true },
    ({ key, found, quoted }) =>
      new HttpConfigurationError(
        key,
        `${key} must be ${what} from ${min} to ${max}: ${quoted}`,
        found?.source,
      ),
  );
}

function reasonOf(error: unknown): string {
  // resolveBase's error carries its reason apart from the quoted value.
  const reason = (error as { reason?: unknown } | undefined)?.reason;
  if (typeof reason === "string") return reason;
  return error instanceof Error ? error.message : String(error);
}
