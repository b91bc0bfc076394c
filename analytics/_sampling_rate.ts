import { AnalyticsConfigurationError } from "./analytics_errors.ts";

/**
 * Checks a sampling rate (the manager's `samplingRate`, `isSampledIn`'s
 * rate).
 *
 * @param rate The value to check.
 * @returns The same rate.
 * @throws {AnalyticsConfigurationError} `samplingRate must be a number from 0
 * to 1: <value>` when it is not a finite number within 0..1.
 */
export function validateSamplingRate(rate: unknown): number {
  if (
    typeof rate !== "number" || !Number.isFinite(rate) || rate < 0 || rate > 1
  ) {
    throw new AnalyticsConfigurationError(
      `samplingRate must be a number from 0 to 1: ${String(rate)}`,
    );
  }
  return rate;
}
