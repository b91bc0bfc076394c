// Internal: option validation and configuration reading shared by the
// providers.
import { type Clock, systemClock } from "../core/mod.ts";
import { pageAddress } from "../internal/page_address.ts";
import { quoteValue } from "../internal/quote_value.ts";
import { findSetting, quoteSetting } from "../internal/settings/setting.ts";
import type { IConfiguration } from "../config/mod.ts";
import { AnalyticsConfigurationError } from "./analytics_errors.ts";
import { ErrorRoute } from "./_error_route.ts";
import type { AnalyticsDeliveryOptions } from "./analytics_delivery_options.ts";

export interface ResolvedDeliveryOptions {
  batchSize: number;
  flushInterval: number;
  maxQueueSize: number;
  maxRetries: number;
  retryDelay: number;
  maxRetryDelay: number;
  requestTimeout: number;
  maxConcurrentRequests: number;
  onError: (error: Error) => void;
  /** Runs the flush interval and the retry waits. */
  clock: Clock;
  /** Where `onError` reports: the provider's own handler, else its manager's. */
  route: ErrorRoute;
}

export function resolveDelivery(
  owner: string,
  options: AnalyticsDeliveryOptions,
  defaults: { batchSize: number; flushInterval: number; maxBatchSize?: number },
): ResolvedDeliveryOptions {
  const batchSize = integerOption(
    owner,
    "batchSize",
    options.batchSize,
    defaults.batchSize,
    1,
    defaults.maxBatchSize,
  );
  const route = new ErrorRoute(options.onError);
  return {
    batchSize,
    flushInterval: numberOption(
      owner,
      "flushInterval",
      options.flushInterval,
      defaults.flushInterval,
    ),
    maxQueueSize: integerOption(
      owner,
      "maxQueueSize",
      options.maxQueueSize,
      10_000,
      1,
    ),
    maxRetries: integerOption(owner, "maxRetries", options.maxRetries, 5, 0),
    retryDelay: numberOption(owner, "retryDelay", options.retryDelay, 1_000),
    maxRetryDelay: numberOption(
      owner,
      "maxRetryDelay",
      options.maxRetryDelay,
      60_000,
    ),
    requestTimeout: numberOption(
      owner,
      "requestTimeout",
      options.requestTimeout,
      10_000,
      1,
    ),
    maxConcurrentRequests: integerOption(
      owner,
      "maxConcurrentRequests",
      options.maxConcurrentRequests,
      2,
      1,
    ),
    onError: route.report,
    clock: clockOption(owner, options.clock),
    route,
  };
}

function clockOption(owner: string, value: unknown): Clock {
  if (value === undefined) return systemClock;
  if (
    typeof value !== "object" || value === null ||
    typeof (value as Clock).now !== "function" ||
    typeof (value as Clock).setTimeout !== "function" ||
    typeof (value as Clock).clearTimeout !== "function"
  ) {
    throw new AnalyticsConfigurationError(
      `${owner}: clock must be a Clock (now, setTimeout, clearTimeout): ${
        String(value)
      }`,
    );
  }
  return value as Clock;
}

function integerOption(
  owner: string,
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max?: number,
): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < min ||
    (max !== undefined && value > max)
  ) {
    const range = max === undefined
      ? `an integer of at least ${min}`
      : `an integer from ${min} to ${max}`;
    throw new AnalyticsConfigurationError(
      `${owner}: ${name} must be ${range}: ${String(value)}`,
    );
  }
  return value;
}

function numberOption(
  owner: string,
  name: string,
  value: number | undefined,
  fallback: number,
  min = 0,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
    throw new AnalyticsConfigurationError(
      `${owner}: ${name} must be a number of at least ${min}: ${String(value)}`,
    );
  }
  return value;
}

/**
 * Checks an endpoint. Absolute http(s) URLs everywhere; in a browser also a
 * path relative to the page (`/api/analytics`), resolved against it. A
 * refused one is quoted masked (an address's password is `***`) and bounded.
 */
export function resolveEndpoint(
  owner: string,
  name: string,
  value: unknown,
): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new AnalyticsConfigurationError(`${owner}: ${name} is required`);
  }
  const base = pageAddress();
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    throw new AnalyticsConfigurationError(
      `${owner}: ${name} is not a valid URL: ${quoteValue(value)}`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AnalyticsConfigurationError(
      `${owner}: ${name} must be an http or https URL: ${quoteValue(value)}`,
    );
  }
  return url.href;
}

export function requireString(
  owner: string,
  name: string,
  value: unknown,
): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new AnalyticsConfigurationError(`${owner}: ${name} is required`);
  }
  return value;
}

// --- configuration reading -------------------------------------------------

/** A required string; a missing key throws the configuration's own error. */
export function configString(config: IConfiguration, key: string): string {
  const value = config.getValue<unknown>(key);
  if (value === undefined || value === null || String(value).trim() === "") {
    throw new AnalyticsConfigurationError(
      `Configuration value not found: ${key}`,
      key,
    );
  }
  return String(value);
}

export function optionalConfigString(
  config: IConfiguration,
  key: string,
): string | undefined {
  if (!config.hasValue(key)) return undefined;
  const value = config.getValue<unknown>(key, undefined);
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  return text.trim() === "" ? undefined : text;
}

export function optionalConfigNumber(
  config: IConfiguration,
  key: string,
): number | undefined {
  if (!config.hasValue(key)) return undefined;
  const value = config.getValue<unknown>(key, undefined);
  if (value === undefined || value === null || value === "") return undefined;
  const number = typeof value === "number" ? value : Number(String(value));
  if (!Number.isFinite(number)) throw badSetting(config, key, "a number");
  return number;
}

export function optionalConfigBoolean(
  config: IConfiguration,
  key: string,
): boolean | undefined {
  if (!config.hasValue(key)) return undefined;
  const value = config.getValue<unknown>(key, undefined);
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return value;
  const text = String(value).trim().toLowerCase();
  if (text === "true" || text === "1" || text === "yes") return true;
  if (text === "false" || text === "0" || text === "no") return false;
  throw badSetting(config, key, "a boolean");
}

// A value that is not what `key` needs: the message quotes it masked and
// bounded (`***` when read from a file), the error carries its source.
function badSetting(
  config: IConfiguration,
  key: string,
  what: string,
): AnalyticsConfigurationError {
  const found = findSetting(config, [key]);
  return new AnalyticsConfigurationError(
    `${key} must be ${what}: ${
      found === undefined ? "" : quoteSetting(found, key)
    }`,
    key,
    found?.source,
  );
}
