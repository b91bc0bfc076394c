// Runs health checks concurrently, each under its own timeout, and folds
// them into one report.
import { messageOf } from "./_application_support.ts";
import { maskSecretText } from "../../core/mod.ts";
import type { TimerHandle } from "../../internal/timer_handle.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import type {
  HealthCheck,
  HealthCheckReport,
  HealthReport,
  HealthStatus,
} from "./health.ts";

/** A check with its resolved options. */
export interface RegisteredCheck {
  check: HealthCheck;
  timeout: number;
  critical: boolean;
  tags?: readonly string[];
}

/** The tag that keeps a check out of the readiness probe. */
export const NO_READINESS = "no-readiness";

/** Whether a check counts for readiness. */
export function inReadiness(check: RegisteredCheck): boolean {
  return check.tags === undefined || !check.tags.includes(NO_READINESS);
}

const RANK: Record<HealthStatus, number> = {
  healthy: 0,
  degraded: 1,
  unhealthy: 2,
};

const STATUSES = new Set<string>(["healthy", "degraded", "unhealthy"]);

/** Runs one check under its timeout; never rejects. */
export async function runCheck(
  { check, timeout, critical, tags }: RegisteredCheck,
): Promise<HealthCheckReport> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: TimerHandle | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = unrefTimer(setTimeout(() => {
      const error = new Error(`Health check timed out after ${timeout} ms`);
      controller.abort(error);
      reject(error);
    }, timeout));
  });
  const entry: HealthCheckReport = { status: "unhealthy", durationMs: 0 };
  try {
    const result = await Promise.race([
      Promise.resolve().then(() => check(controller.signal)),
      timedOut,
    ]);
    if (
      result === null || typeof result !== "object" ||
      !STATUSES.has(result.status)
    ) {
      entry.error =
        'The check returned no status: return { status: "healthy" | "degraded" | "unhealthy" }';
    } else {
      entry.status = result.status;
      if (result.detail !== undefined) {
        // A health endpoint is often public: passwords in URLs, tokens and
        // the like never reach it.
        entry.detail = typeof result.detail === "string"
          ? maskSecretText(result.detail)
          : result.detail;
      }
    }
  } catch (error) {
    entry.error = maskSecretText(
      messageOf(error),
    );
  } finally {
    clearTimeout(timer);
  }
  entry.durationMs = Math.round((performance.now() - started) * 100) / 100;
  if (!critical) entry.critical = false;
  if (tags !== undefined && tags.length > 0) entry.tags = tags;
  return entry;
}

/** Runs every check concurrently and computes the overall status. */
export async function runChecks(
  checks: ReadonlyMap<string, RegisteredCheck>,
): Promise<HealthReport> {
  const names = [...checks.keys()];
  const results = await Promise.all(
    names.map((name) => runCheck(checks.get(name)!)),
  );
  let status: HealthStatus = "healthy";
  const report: Record<string, HealthCheckReport> = {};
  names.forEach((name, i) => {
    const entry = results[i];
    report[name] = entry;
    let counted = entry.status;
    // A non-critical check can make the application degraded, no worse.
    if (!checks.get(name)!.critical && counted === "unhealthy") {
      counted = "degraded";
    }
    if (RANK[counted] > RANK[status]) status = counted;
  });
  return { status, checks: report };
}
