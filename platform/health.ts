/**
 * The state a health check reports: `healthy`, `degraded` (working, but
 * with less: a cache running on misses, a log endpoint that drops entries)
 * or `unhealthy` (not doing its job).
 *
 * @example Usage
 * ```ts
 * import type { HealthStatus } from "@vendor/kit/platform";
 *
 * const status: HealthStatus = "degraded";
 * ```
 */
export type HealthStatus = "healthy" | "degraded" | "unhealthy";

/**
 * What a health check returns. Kit's own parts (the cache manager, the
 * remote log provider, the analytics providers, the configuration manager)
 * return it from a `checkHealth()` method, which the application host picks
 * up for every service it created.
 *
 * @example Usage
 * ```ts
 * import type { HealthCheckResult } from "@vendor/kit/platform";
 *
 * const result: HealthCheckResult = {
 *   status: "degraded",
 *   detail: { dropped: 3 },
 * };
 * ```
 */
export interface HealthCheckResult {
  /** The state. */
  status: HealthStatus;
  /** Anything that explains it: a sentence, or JSON-friendly values. */
  detail?: string | Readonly<Record<string, unknown>>;
}

/**
 * Anything with a `checkHealth()` method; the application host includes
 * each service it created that has one, under the service's name.
 *
 * @example Usage
 * ```ts
 * import type { HealthCheckable } from "@vendor/kit/platform";
 *
 * const store: HealthCheckable = {
 *   checkHealth: () => ({ status: "healthy" }),
 * };
 * ```
 */
export interface HealthCheckable {
  /**
   * Reports the state of the service.
   *
   * @param signal Aborts when the check's time is up.
   * @returns The state, now or later.
   */
  checkHealth(
    signal?: AbortSignal,
  ): HealthCheckResult | Promise<HealthCheckResult>;
}
