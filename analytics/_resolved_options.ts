// Internal: the AnalyticsManager's options once checked and resolved (every
// one with its value), their defaults, and the checks a configure() call's
// options go through before any is applied.
import type {
  AnalyticsConsentMode,
  AnalyticsOptions,
} from "./analytics_options.ts";
import { AnalyticsConfigurationError } from "./analytics_errors.ts";
import { validateSamplingRate } from "./_sampling_rate.ts";
import { reportByDefault } from "./_error_route.ts";

/** Every option of the manager, with its value. */
export interface ResolvedOptions {
  enableAutoPageTracking: boolean;
  enableErrorTracking: boolean;
  enablePerformanceTracking: boolean;
  samplingRate: number;
  requireConsent: boolean;
  consentMode: AnalyticsConsentMode;
  maxHeldEvents: number;
  flushOnPageHide: boolean;
  errorFlushTimeout: number;
  onError: (error: Error) => void;
}

/** The options of a manager nobody configured. */
export const DEFAULT_OPTIONS: ResolvedOptions = {
  enableAutoPageTracking: false,
  enableErrorTracking: false,
  enablePerformanceTracking: false,
  samplingRate: 1,
  requireConsent: false,
  consentMode: "hold",
  maxHeldEvents: 100,
  flushOnPageHide: true,
  errorFlushTimeout: 2000,
  onError: reportByDefault,
};

/**
 * `current` changed by the options given (those left out keep their value).
 *
 * @throws {AnalyticsConfigurationError} For an invalid option, naming it.
 */
export function resolveOptions(
  current: ResolvedOptions,
  options: AnalyticsOptions,
): ResolvedOptions {
  const next: ResolvedOptions = { ...current };
  if (options.samplingRate !== undefined) {
    next.samplingRate = validateSamplingRate(options.samplingRate);
  }
  if (options.maxHeldEvents !== undefined) {
    const value = options.maxHeldEvents;
    if (!Number.isInteger(value) || value < 0) {
      throw new AnalyticsConfigurationError(
        `maxHeldEvents must be an integer of at least 0: ${String(value)}`,
      );
    }
    next.maxHeldEvents = value;
  }
  if (options.consentMode !== undefined) {
    if (options.consentMode !== "hold" && options.consentMode !== "drop") {
      throw new AnalyticsConfigurationError(
        `consentMode must be "hold" or "drop": ${String(options.consentMode)}`,
      );
    }
    next.consentMode = options.consentMode;
  }
  if (options.errorFlushTimeout !== undefined) {
    const value = options.errorFlushTimeout;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new AnalyticsConfigurationError(
        `errorFlushTimeout must be a number of at least 0: ${String(value)}`,
      );
    }
    next.errorFlushTimeout = value;
  }
  for (
    const flag of [
      "enableAutoPageTracking",
      "enableErrorTracking",
      "enablePerformanceTracking",
      "requireConsent",
      "flushOnPageHide",
    ] as const
  ) {
    if (options[flag] !== undefined) next[flag] = Boolean(options[flag]);
  }
  if (options.onError !== undefined) next.onError = options.onError;
  return next;
}
