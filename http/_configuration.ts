// HttpClient.fromConfiguration: reads the `api` section (the API_* standard
// variables) into constructor arguments; options given in code win.
import {
  type IConfiguration,
  kitConfigurationSections,
} from "../config/mod.ts";
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
    const found = read(config, BASE_URL);
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
            JSON.stringify(displayUrl(baseUrl))
          } (${reasonOf(error)})`,
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
    enableCaching: skip.enableCaching
      ? undefined
      : boolean(config, ENABLE_CACHING),
  };
}

/** A boolean as configuration values spell it: true/false, 1/0. */
function boolean(
  config: IConfiguration,
  keys: readonly string[],
): boolean | undefined {
  const found = read(config, keys);
  if (found === undefined) return undefined;
  const { key, value } = found;
  if (typeof value === "boolean") return value;
  if (value === 1 || value === 0) return value === 1;
  const text = typeof value === "string" ? value.trim().toLowerCase() : "";
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw new HttpConfigurationError(
    key,
    `${key} must be true or false (or 1 or 0): ${JSON.stringify(value)}`,
  );
}

function read(
  config: IConfiguration,
  keys: readonly string[],
): { key: string; value: unknown } | undefined {
  for (const key of keys) {
    if (!config.hasValue(key)) continue;
    const value = config.getValue<unknown>(key);
    if (value !== undefined && value !== null && value !== "") {
      return { key, value };
    }
  }
  return undefined;
}

function whole(
  config: IConfiguration,
  keys: readonly string[],
  min: number,
  max: number,
  what: string,
): number | undefined {
  const found = read(config, keys);
  if (found === undefined) return undefined;
  const { key, value } = found;
  const number = typeof value === "number"
    ? value
    : typeof value === "string" && /^\s*\d+\s*$/.test(value)
    ? Number(value)
    : NaN;
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new HttpConfigurationError(
      key,
      `${key} must be ${what} from ${min} to ${max}: ${JSON.stringify(value)}`,
    );
  }
  return number;
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // resolveBase quotes the whole value; keep only its reason.
  const cut = message.indexOf("; ");
  return cut < 0 ? message : message.slice(cut + 2);
}
