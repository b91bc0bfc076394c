// The options of an HttpClient as its calls apply them: checked once when the
// client is made, defaults filled in, and the transport built.
import type { Clock } from "../core/mod.ts";
import { type CacheSetup, createHttpCache } from "./cache/_cache_setup.ts";
import type { HttpCache } from "./cache/_http_cache.ts";
import { type RedirectPolicy, trustedOrigins } from "./request/_redirect.ts";
import { CALLER_CLOCK } from "./request/_retry.ts";
import { createTransport, type Transport } from "./request/_transport.ts";
import { byteCount, count, MAX_TIMER, milliseconds } from "./_validate.ts";
import type {
  HttpClientOptions,
  HttpRetryEvent,
  ResolvedHttpClientOptions,
} from "./http_client_options.ts";

const DEFAULT_TIMEOUT = 10_000;
const DEFAULT_TOTAL_TIMEOUT = 30_000;
const DEFAULT_MAX_RESPONSE_SIZE = 50 * 1024 * 1024;
const DEFAULT_RETRY_ATTEMPTS = 3;
const DEFAULT_RETRY_DELAY = 1_000;
const DEFAULT_MAX_RETRY_DELAY = 30_000;
const DEFAULT_MAX_RETRY_AFTER = 60_000;
const DEFAULT_JITTER = 0.2;
const DEFAULT_MAX_REDIRECTS = 20;
const JSON_TYPE = "application/json";

/**
 * What HttpClient.fromConfiguration adds to the options it hands the
 * constructor, under a key users cannot name: the default retry report and
 * the HTTP cache.
 */
export const CONFIGURED: unique symbol = Symbol("kit.http.configured");

/** The settings only HttpClient.fromConfiguration gives. */
export interface ConfiguredSettings {
  /** Log retries through the application (no onRetry was given). */
  readonly reportRetries: boolean;
  /** The HTTP cache's store and bounds; undefined when it is off. */
  readonly cache: CacheSetup | undefined;
}

/** What every call of one client reads; made once, never changed. */
export interface ClientSettings {
  readonly timeout: number;
  readonly retryAttempts: number;
  readonly retryDelay: number;
  /** The total timeout given; undefined when not (see defaultTotal). */
  readonly totalTimeout: number | undefined;
  readonly maxResponseSize: number;
  readonly maxRetryDelay: number;
  readonly maxRetryAfter: number;
  readonly jitter: number;
  readonly onRetry: ((event: HttpRetryEvent) => void) | undefined;
  /** Log retries through the running application (_retry_report.ts). */
  readonly reportRetries: boolean;
  /** The HTTP cache of GET responses; undefined when it is off. */
  readonly cache: HttpCache | undefined;
  readonly clock: Clock;
  readonly redirects: RedirectPolicy;
  readonly trustedOrigins: readonly string[];
  /** Headers for requests without a body (lower-case names). */
  readonly plainHeaders: Record<string, string>;
  /** Headers for requests with a JSON or text body. */
  readonly bodyHeaders: Record<string, string>;
  readonly transport: Transport;
}

/**
 * Checks the options of a client and fills in the defaults.
 *
 * @throws {TypeError} For an invalid `trustedRedirectOrigins` entry or clock.
 * @throws {RangeError} For a duration, count or fraction out of range.
 */
export function resolveClientOptions(
  options: HttpClientOptions,
): ClientSettings {
  const timeout = milliseconds(
    "timeout",
    options.timeout,
    DEFAULT_TIMEOUT,
    true,
  );
  const retryAttempts = count(
    "retryAttempts",
    options.retryAttempts,
    DEFAULT_RETRY_ATTEMPTS,
  );
  const retryDelay = milliseconds(
    "retryDelay",
    options.retryDelay,
    DEFAULT_RETRY_DELAY,
  );
  const totalTimeout = options.totalTimeout === undefined
    ? undefined
    : milliseconds("totalTimeout", options.totalTimeout, 0, true);
  const maxResponseSize = byteCount(
    "maxResponseSize",
    options.maxResponseSize,
    DEFAULT_MAX_RESPONSE_SIZE,
  );
  const maxRetryDelay = milliseconds(
    "maxRetryDelay",
    options.maxRetryDelay,
    DEFAULT_MAX_RETRY_DELAY,
  );
  const maxRetryAfter = milliseconds(
    "maxRetryAfter",
    options.maxRetryAfter,
    DEFAULT_MAX_RETRY_AFTER,
  );
  const jitter = options.retryJitter ?? DEFAULT_JITTER;
  if (typeof jitter !== "number" || !(jitter >= 0 && jitter <= 1)) {
    throw new RangeError(
      `Invalid retryJitter: ${jitter}; expected a fraction from 0 to 1`,
    );
  }
  const clock = clockOption(options.clock);
  const configured = (options as { [CONFIGURED]?: ConfiguredSettings })[
    CONFIGURED
  ];
  const origins = Object.freeze(
    trustedOrigins(options.trustedRedirectOrigins),
  );
  const redirects: RedirectPolicy = {
    max: count("maxRedirects", options.maxRedirects, DEFAULT_MAX_REDIRECTS),
    trusted: new Set(origins),
  };

  const bodyHeaders: Record<string, string> = {
    accept: JSON_TYPE,
    "content-type": JSON_TYPE,
  };
  new Headers(options.headers).forEach((value, name) => {
    bodyHeaders[name] = value;
  });
  const { "content-type": _contentType, ...plainHeaders } = bodyHeaders;

  return {
    timeout,
    retryAttempts,
    retryDelay,
    totalTimeout,
    maxResponseSize,
    maxRetryDelay,
    maxRetryAfter,
    jitter,
    onRetry: options.onRetry,
    reportRetries: configured?.reportRetries === true &&
      options.onRetry === undefined,
    cache: configured?.cache === undefined
      ? undefined
      : createHttpCache(configured.cache, clock),
    clock,
    redirects,
    trustedOrigins: origins,
    plainHeaders,
    bodyHeaders,
    transport: createTransport(options.fetch, redirects),
  };
}

/** The options as `client.options` shows them. */
export function publicOptions(
  settings: ClientSettings,
): ResolvedHttpClientOptions {
  return Object.freeze({
    timeout: settings.timeout,
    retryAttempts: settings.retryAttempts,
    retryDelay: settings.retryDelay,
    totalTimeout: settings.totalTimeout ??
      defaultTotal(settings.timeout, settings.retryAttempts),
    maxResponseSize: settings.maxResponseSize,
    maxRetryDelay: settings.maxRetryDelay,
    maxRetryAfter: settings.maxRetryAfter,
    retryJitter: settings.jitter,
    maxRedirects: settings.redirects.max,
    trustedRedirectOrigins: settings.trustedOrigins,
  });
}

/**
 * The total timeout of a call when none was given: 30 s, or, when longer,
 * `timeout` times the call's attempts counted up to three. The 30 s bound a
 * call to a silent server with the default options (three 10 s attempts);
 * a longer `timeout` stretches the bound in the same proportion, so that a
 * timed-out attempt still gets its retries rather than the call ending with
 * the first one. Capped at the longest timer.
 */
export function defaultTotal(timeout: number, retryAttempts: number): number {
  const attempts = retryAttempts < 2 ? retryAttempts + 1 : 3;
  const stretched = timeout * attempts;
  if (stretched <= DEFAULT_TOTAL_TIMEOUT) return DEFAULT_TOTAL_TIMEOUT;
  return stretched < MAX_TIMER ? stretched : MAX_TIMER;
}

function clockOption(value: unknown): Clock {
  if (value === undefined) return CALLER_CLOCK;
  if (
    typeof value !== "object" || value === null ||
    typeof (value as Clock).now !== "function" ||
    typeof (value as Clock).setTimeout !== "function" ||
    typeof (value as Clock).clearTimeout !== "function"
  ) {
    throw new TypeError(
      `Invalid clock: ${
        String(value)
      }; expected a Clock (now, setTimeout, clearTimeout)`,
    );
  }
  return value as Clock;
}
