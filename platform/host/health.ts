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

/**
 * A health check the application runs for `app.health()`: it returns or
 * resolves to a {@linkcode HealthCheckResult}; a throw or rejection counts
 * as `unhealthy` with the error's message. The signal aborts when the
 * check's timeout passes.
 *
 * @example Usage
 * ```ts
 * import type { HealthCheck } from "@vendor/kit/platform";
 *
 * const check: HealthCheck = async (signal) => {
 *   const response = await fetch("http://127.0.0.1:5432/", { signal })
 *     .catch(() => undefined);
 *   return { status: response ? "healthy" : "unhealthy" };
 * };
 * ```
 */
export type HealthCheck = (
  signal: AbortSignal,
) => HealthCheckResult | Promise<HealthCheckResult>;

/**
 * How a health check counts.
 *
 * @example Usage
 * ```ts
 * import type { HealthCheckOptions } from "@vendor/kit/platform";
 *
 * const options: HealthCheckOptions = {
 *   timeout: 500,
 *   critical: false,
 *   tags: ["no-readiness"], // not part of GET /health/ready
 * };
 * ```
 */
export interface HealthCheckOptions {
  /**
   * Milliseconds the check may take; past it the check is `unhealthy` with
   * a timeout error. Default 2000.
   */
  timeout?: number;
  /**
   * Whether the check decides the overall status. A critical `unhealthy`
   * check makes the application `unhealthy`; a non-critical one makes it at
   * most `degraded`. Default `true`.
   */
  critical?: boolean;
  /**
   * Labels, shown with the check in the report. Every check counts for
   * readiness (`GET /health/ready`) unless tagged `"no-readiness"`: use it
   * for a dependency the application can serve without, or one shared by
   * every instance, whose failure restarting or unrouting this one would not
   * cure. Liveness (`GET /health/live`) runs no check at all.
   */
  tags?: readonly string[];
}

/**
 * The result of one check in a {@linkcode HealthReport}.
 *
 * @example Usage
 * ```ts
 * import type { HealthCheckReport } from "@vendor/kit/platform";
 *
 * const entry: HealthCheckReport = { status: "healthy", durationMs: 1.2 };
 * ```
 */
export interface HealthCheckReport {
  /** The check's state. */
  status: HealthStatus;
  /** How long the check took, in milliseconds. */
  durationMs: number;
  /** What the check said about its state. */
  detail?: string | Readonly<Record<string, unknown>>;
  /** The message of the error the check threw, or of its timeout. */
  error?: string;
  /** `false` for a check that cannot make the application unhealthy. */
  critical?: boolean;
  /** The check's tags, when it has any. */
  tags?: readonly string[];
}

/**
 * What `app.health()` returns and `app.healthHandler()` answers as JSON.
 * `starting` and `stopping` are reported (with no checks run) before the
 * start-up finished and once shutdown began.
 *
 * @example Usage
 * ```ts
 * import type { HealthReport } from "@vendor/kit/platform";
 *
 * const report: HealthReport = {
 *   status: "degraded",
 *   checks: { cache: { status: "degraded", durationMs: 0.4 } },
 * };
 * ```
 */
export interface HealthReport {
  /** The worst status of the critical checks, or the life-cycle state. */
  status: HealthStatus | "starting" | "stopping";
  /** Each check by name. */
  checks: Record<string, HealthCheckReport>;
}
