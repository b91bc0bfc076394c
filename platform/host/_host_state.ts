// What one application host holds while it runs: its locator, logger,
// deadline, server, health checks, hosted services, and the phase it is in
// (starting, running, stopping, stopped). Application is its public face;
// the start-up (_start_up.ts) and the shutdown (_shutdown.ts) work on it.
// Not re-exported.
import type { ApplicationLogger } from "./application_logger.ts";
import type {
  ApplicationOptions,
  ShutdownReport,
} from "./application_options.ts";
import { ApplicationStartError } from "./application_start_error.ts";
import type { HealthReport } from "./health.ts";
import { ServiceLocator } from "../locator/service_locator.ts";
import { ApplicationHealth } from "./_application_health.ts";
import {
  consoleLine,
  consoleLogger,
  diagnosticsEnabled,
} from "./_application_support.ts";
import { HostedServices } from "./_hosted_services.ts";
import type { HostServer } from "../server/_server_host.ts";
import { readEnvironmentVariable } from "../../internal/settings/environment.ts";

/** Where an application is in its life. */
export type HostPhase = "starting" | "running" | "stopping" | "stopped";

const DEFAULT_SHUTDOWN_TIMEOUT = 10_000;

/** The state of one application host. */
export class HostState<TServices extends object> {
  readonly services: ServiceLocator<TServices>;
  shutdownTimeout: number;
  readonly shutdownTimeoutInCode: boolean;
  // The HTTP server of the `serve` option, once it listens; and the same
  // until a shutdown takes it to stop it.
  server: HostServer | undefined;
  serverToStop: HostServer | undefined;
  readonly health: ApplicationHealth = new ApplicationHealth();
  readonly hosted: HostedServices = new HostedServices();
  readonly running: AbortController = new AbortController();
  readonly diagnostics: boolean;
  readonly detachCreated: () => void;
  phase: HostPhase = "starting";
  logger: ApplicationLogger;
  hasLogging = false;
  // Takes this application's logging off the list hostLogger() reads.
  unregisterLogging: (() => void) | undefined;
  stopping: Promise<ShutdownReport> | undefined;
  // The scope disposals of requests that went on after their response (an
  // asynchronous disposal, a creation in flight), by request id: stop()
  // waits for them within its deadline.
  readonly requestScopes: Map<Promise<void>, string> = new Map();

  /**
   * @throws {RangeError} When `shutdownTimeout` is not a number of 0 or more.
   */
  constructor(options: ApplicationOptions<TServices, unknown>) {
    const timeout = options.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT;
    if (
      typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < 0
    ) {
      throw new RangeError(
        `shutdownTimeout must be a number of milliseconds of 0 or more: ${timeout}`,
      );
    }
    this.shutdownTimeout = timeout;
    this.shutdownTimeoutInCode = options.shutdownTimeout !== undefined;
    this.services = options.locator ?? new ServiceLocator<TServices>();
    this.diagnostics = diagnosticsEnabled(
      readEnvironmentVariable("KIT_LOG_LEVEL"),
    );
    this.logger = consoleLogger(this.diagnostics);
    this.detachCreated = this.services.serviceCreated.add((event) => {
      this.health.serviceCreated(event.name, event.service);
      this.debug(
        `Service '${event.name}' created in ${event.durationMs.toFixed(1)} ms`,
        { service: event.name, durationMs: event.durationMs },
      );
    });
  }

  /** The report of every check, or of those that count for readiness. */
  async healthReport(readiness: boolean): Promise<HealthReport> {
    if (this.phase !== "running") {
      return {
        status: this.phase === "starting" ? "starting" : "stopping",
        checks: {},
      };
    }
    return await this.health.report(
      readiness,
      () => this.phase === "running",
    );
  }

  // Start-up ends early when stop() was called meanwhile (from a step, a
  // hosted service, or a signal handler): what it created is then disposed.
  checkNotStopped(step: 1 | 2 | 3 | 4): void {
    if (this.stopping !== undefined) {
      throw new ApplicationStartError(
        step,
        new Error("stop() was called during start-up"),
      );
    }
  }

  /** Keeps a request's scope disposal until it ends (app.handle's `track`). */
  readonly trackDisposal = (
    running: Promise<void>,
    requestId: string,
  ): void => {
    this.requestScopes.set(running, requestId);
    const done = (): void => {
      this.requestScopes.delete(running);
    };
    running.then(done, done);
  };

  /** Hands the server over to the shutdown, once. */
  takeServer(): HostServer | undefined {
    const server = this.serverToStop;
    this.serverToStop = undefined;
    return server;
  }

  /** A diagnostic line, with `KIT_LOG_LEVEL=debug` only. */
  debug(message: string, properties: Record<string, unknown>): void {
    if (!this.diagnostics) return;
    const logger = this.logger;
    if (logger.isEnabled !== undefined && !logger.isEnabled(0)) {
      console.error(consoleLine(message, properties));
    } else {
      logger.debug(message, properties);
    }
  }
}
