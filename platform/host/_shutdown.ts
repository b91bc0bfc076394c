// The application's shutdown sequence: the HTTP server (drained), hosted
// services (newest first), the disposal of requests' scopes still running,
// then the services the locator created (newest first, logging kept for
// last), all within one deadline, with a reserve of it for logging's last
// flush.
import { deadlineSignal } from "../../core/mod.ts";
import type { ApplicationLogger } from "./application_logger.ts";
import type { HostedService, ShutdownReport } from "./application_options.ts";
import { abandonAfter, errorOf } from "./_application_support.ts";
import { disposeValue } from "../locator/_dispose.ts";
import type { CreatedService } from "../locator/_locator_hooks.ts";

// The share of the deadline kept for logging, disposed last so the
// shutdown's own lines are written: 10 %, at most 1 s.
const LOGGING_RESERVE_SHARE = 0.1;
const LOGGING_RESERVE_MAX = 1_000;
// The service name whose disposal comes last.
const LOGGING = "logging";

/** What one shutdown needs to know. */
export interface ShutdownPlan {
  /** The whole deadline, in milliseconds. */
  timeout: number;
  /** Keep a part of the deadline for the `logging` service. */
  reserveForLogging: boolean;
  /** Write "Application stopping" and the final line on a clean stop. */
  logStop: boolean;
  /** The logger of the moment. */
  logger: () => ApplicationLogger;
  /**
   * The HTTP server, stopped first (drain, then close); `false` from it
   * means the deadline came before its connections ended.
   */
  server?: { stop(signal: AbortSignal): Promise<boolean> };
  /** The hosted services that started, oldest first. */
  hosted: { name: string; service: HostedService }[];
  /**
   * The scope disposals of requests still running (they go on after the
   * response), waited for before the services are disposed.
   */
  requestScopes?: () => { name: string; done: Promise<unknown> }[];
  /** Hands over what the locator created, oldest first. */
  takeCreated: () => CreatedService[];
  /** Called once every service but logging is disposed. */
  afterServices: () => void;
}

interface Outcome {
  timedOut: string[];
  errors: Error[];
}

// Thrown by a part that noticed the deadline itself.
const TIMED_OUT = Symbol("timed out");

async function settle(
  name: string,
  run: () => unknown,
  signal: AbortSignal,
  into: Outcome,
): Promise<void> {
  try {
    const finished = await abandonAfter(Promise.resolve().then(run), signal);
    if (!finished) into.timedOut.push(name);
  } catch (error) {
    if (error === TIMED_OUT) into.timedOut.push(name);
    else into.errors.push(errorOf(name, error));
  }
}

/** Runs the shutdown; resolves by the deadline whatever hangs. */
export async function shutdown(plan: ShutdownPlan): Promise<ShutdownReport> {
  const began = performance.now();
  const total = plan.timeout;
  const reserve = plan.reserveForLogging
    ? Math.min(total * LOGGING_RESERVE_SHARE, LOGGING_RESERVE_MAX)
    : 0;
  const signal = deadlineSignal({ timeout: total - reserve })!;
  // The deadline's timers are unref'd; while the shutdown runs, the process
  // stays alive until the deadline, so a hung disposal cannot cut the
  // shutdown's last lines short.
  const keepAlive = setTimeout(() => {}, Math.min(total, 2_147_483_647));
  try {
    const outcome: Outcome = { timedOut: [], errors: [] };
    if (plan.logStop) plan.logger().info("Application stopping");
    const server = plan.server;
    if (server !== undefined) {
      await settle(
        "server",
        async () => {
          if (!await server.stop(signal)) throw TIMED_OUT;
        },
        signal,
        outcome,
      );
    }
    for (const { name, service } of [...plan.hosted].reverse()) {
      await settle(name, () => service.stop(signal), signal, outcome);
    }
    const scopes = plan.requestScopes?.() ?? [];
    for (const { name, done } of scopes) {
      await settle(name, () => done, signal, outcome);
    }
    // Closing the locator aborts the signal of the scopes' disposals: those
    // still running give up now, and their failures are logged while the
    // logging is still there.
    const created = plan.takeCreated();
    if (scopes.length > 0) {
      await abandonAfter(
        Promise.allSettled(scopes.map(({ done }) => done)),
        signal,
      );
    }
    const others = created.filter((entry) => entry.name !== LOGGING);
    for (const { name, value } of others.reverse()) {
      await settle(name, () => disposeValue(value, signal), signal, outcome);
    }
    plan.afterServices();
    report(plan, outcome, began, total);
    const remaining = Math.max(0, total - (performance.now() - began));
    const last = deadlineSignal({ timeout: remaining })!;
    for (const { name, value } of created) {
      if (name !== LOGGING) continue;
      await settle(name, () => disposeValue(value, last), last, outcome);
    }
    return {
      ok: outcome.timedOut.length === 0 && outcome.errors.length === 0,
      ...outcome,
    };
  } finally {
    clearTimeout(keepAlive);
  }
}

// The shutdown's own line, written before logging is disposed.
function report(
  plan: ShutdownPlan,
  { timedOut, errors }: Outcome,
  began: number,
  total: number,
): void {
  const ms = (performance.now() - began).toFixed(1);
  if (timedOut.length === 0 && errors.length === 0) {
    if (plan.logStop) {
      plan.logger().info(`Application stopped in ${ms} ms`, {
        durationMs: Number(ms),
      });
    }
    return;
  }
  plan.logger().warning(
    `Application stopped in ${ms} ms` +
      (timedOut.length > 0
        ? `; abandoned at the ${total} ms deadline: ${timedOut.join(", ")}`
        : "") +
      (errors.length > 0
        ? `; ${errors.length} error(s): ${
          errors.map((error) => error.message).join("; ")
        }`
        : ""),
    { durationMs: Number(ms), timedOut, errors: errors.length },
  );
}
