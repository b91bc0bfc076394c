// The health checks of one application: those added with addHealthCheck
// (checked here), those found on created services (checkHealth()), and the
// kit.health.status gauge fed from each full report. The checks themselves
// run in _health_checks.ts. Not re-exported.
import type {
  HealthCheck,
  HealthCheckable,
  HealthCheckOptions,
  HealthReport,
} from "./health.ts";
import {
  inReadiness,
  type RegisteredCheck,
  runChecks,
} from "./_health_checks.ts";
import { type HealthGauge, healthGauge } from "./_telemetry.ts";

const DEFAULT_CHECK_TIMEOUT = 2_000;

/** The checks of one application and its health gauge. */
export class ApplicationHealth {
  readonly #checks = new Map<string, RegisteredCheck>();
  // Checks found on created services (checkHealth()), by service name.
  readonly #serviceChecks = new Map<string, HealthCheckable>();
  // kit.health.status, from the last report of health().
  readonly #gauge: HealthGauge = healthGauge();

  /**
   * Adds a check.
   *
   * @throws {TypeError} When `check` is not a function, or `tags` not an
   * array of strings.
   * @throws {RangeError} When `timeout` is out of range.
   */
  add(name: string, check: HealthCheck, options: HealthCheckOptions): void {
    if (typeof check !== "function") {
      throw new TypeError(
        `addHealthCheck('${name}'): the check must be a function`,
      );
    }
    const timeout = options.timeout ?? DEFAULT_CHECK_TIMEOUT;
    if (
      typeof timeout !== "number" || !(timeout > 0) ||
      timeout > 2_147_483_647
    ) {
      throw new RangeError(
        `addHealthCheck('${name}'): timeout must be a positive number of milliseconds, at most 2147483647: ${timeout}`,
      );
    }
    const tags = options.tags;
    if (
      tags !== undefined &&
      (!Array.isArray(tags) || tags.some((tag) => typeof tag !== "string"))
    ) {
      throw new TypeError(
        `addHealthCheck('${name}'): tags must be an array of strings`,
      );
    }
    this.#checks.set(name, {
      check,
      timeout,
      critical: options.critical ?? true,
      ...(tags !== undefined && tags.length > 0
        ? { tags: Object.freeze([...tags]) }
        : {}),
    });
  }

  /** Picks up a created service that has a `checkHealth()` method. */
  serviceCreated(name: string, service: unknown): void {
    const candidate = service as Partial<HealthCheckable> | null;
    if (
      candidate !== null && typeof candidate === "object" &&
      typeof candidate.checkHealth === "function"
    ) {
      this.#serviceChecks.set(name, candidate as HealthCheckable);
    }
  }

  /**
   * The report of every check, or of those that count for readiness.
   *
   * @param readiness Only the checks that count for readiness.
   * @param running Whether the application still runs once the checks are
   * done (only then does a full report feed the gauge).
   */
  async report(
    readiness: boolean,
    running: () => boolean,
  ): Promise<HealthReport> {
    const checks = new Map<string, RegisteredCheck>();
    for (const [name, service] of this.#serviceChecks) {
      checks.set(name, {
        check: (signal) => service.checkHealth(signal),
        timeout: DEFAULT_CHECK_TIMEOUT,
        critical: true,
      });
    }
    for (const [name, check] of this.#checks) {
      if (readiness && !inReadiness(check)) checks.delete(name);
      else checks.set(name, check);
    }
    const report = await runChecks(checks);
    if (running() && !readiness) this.#gauge.update(report);
    return report;
  }

  /** Stops reporting the gauge (the application is stopping). */
  close(): void {
    this.#gauge.close();
  }
}
