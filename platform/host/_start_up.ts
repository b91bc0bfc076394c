// The start-up of the application host: the four steps in order, each
// awaited and timed, the eager services, the hosted services, then the
// server of `serve`; on failure, what was created is stopped before the
// ApplicationStartError is thrown. Not re-exported.
import type { Application } from "./application.ts";
import type {
  ApplicationOptions,
  ShutdownReport,
} from "./application_options.ts";
import { ApplicationStartError } from "./application_start_error.ts";
import { ServiceCreationError } from "../locator/service_creation_error.ts";
import { loggerOf } from "./_application_support.ts";
import { logConfigurationFindings } from "./_config_findings.ts";
import type { HostState } from "./_host_state.ts";
import type { HostedEntry } from "./_hosted_services.ts";
import { registerHostLogging } from "./_host_logging.ts";
import { wrapHostHandler } from "../server/_request_handler.ts";
import { loggedFailures, startFailureLine } from "./_run_until_signal.ts";
import { HostServer } from "../server/_server_host.ts";
import {
  configuredShutdownTimeout,
  type ServerSettings,
  serverSettings,
} from "../server/_server_settings.ts";
import { STEP_NAMES } from "./_steps.ts";
import { type TestHooks, testHooksOf } from "../testing/_testing_hooks.ts";
import { locatorHooks } from "../locator/_locator_hooks.ts";

/**
 * Runs the start-up of an application: the four steps, the eager and hosted
 * services, then the server. On failure what was created is stopped (through
 * `stop`) and an {@linkcode ApplicationStartError} is thrown.
 */
export async function startUp<TServices extends object>(
  host: HostState<TServices>,
  app: Application<TServices>,
  options: ApplicationOptions<TServices, unknown>,
  stop: (logStop: boolean) => Promise<ShutdownReport>,
): Promise<void> {
  const services = host.services;
  // Static ServiceLocator calls read this locator until the app stops.
  locatorHooks.get(services)?.open();
  const began = performance.now();
  let step: 1 | 2 | 3 | 4 = 1;
  try {
    let settings: ServerSettings | undefined;
    await runStep(host, 1, async () => {
      services.register("config" as never, options.configuration as never);
      const config: unknown = await services.getAsync("config" as never);
      // The host's own settings come from code, then this configuration.
      if (!host.shutdownTimeoutInCode) {
        host.shutdownTimeout = configuredShutdownTimeout(config) ??
          host.shutdownTimeout;
      }
      if (options.serve !== undefined) {
        settings = serverSettings(options.server, config);
      }
    });
    const config = services.get("config" as never) as unknown;
    if (options.logging !== undefined) {
      step = 2;
      const logging = options.logging;
      await runStep(host, 2, async () => {
        services.register(
          "logging" as never,
          (() => logging(config, services)) as never,
        );
        const value = await services.getAsync("logging" as never);
        host.hasLogging = true;
        host.unregisterLogging = registerHostLogging(value);
        const logger = loggerOf(value);
        if (logger !== undefined) host.logger = logger;
        return value;
      });
    }
    // Variables one underscore short of a known key, otherwise ignored.
    logConfigurationFindings(config, host.logger);
    if (options.platform !== undefined) {
      step = 3;
      const platform = options.platform;
      await runStep(host, 3, () => platform(services, config, app));
    }
    if (options.services !== undefined) {
      step = 4;
      const setup = options.services;
      await runStep(host, 4, () => setup(services, config, app));
    }
    step = 4;
    await createEager(host);
    host.checkNotStopped(4);
    for (const entry of host.hosted.toStart) {
      await startHosted(host, entry);
      host.checkNotStopped(4);
    }
    if (options.serve !== undefined) {
      await listen(
        host,
        app,
        options.serve,
        config,
        settings!,
        testHooksOf(options),
      );
    }
  } catch (error) {
    const failure = error instanceof ApplicationStartError
      ? error
      : new ApplicationStartError(step, error);
    // Without a logging step, run() or the caller prints the rejection.
    if (host.hasLogging && host.stopping === undefined) {
      host.logger.error(startFailureLine(failure), {
        error: failure.cause,
        ...(failure.serviceName !== undefined
          ? { service: failure.serviceName }
          : {}),
      });
      loggedFailures.add(failure);
    }
    host.phase = "stopping";
    if (host.stopping !== undefined) {
      // stop() ran meanwhile; take what was created after it began.
      await host.stopping;
      await stop(false);
    } else {
      host.stopping = stop(false);
      await host.stopping;
    }
    throw failure;
  }
  host.phase = "running";
  const ms = (performance.now() - began).toFixed(1);
  host.logger.info(`Application started in ${ms} ms`, {
    durationMs: Number(ms),
  });
}

// Last in start-up: the server listens once everything it serves runs.
async function listen<TServices extends object>(
  host: HostState<TServices>,
  app: Application<TServices>,
  serve: NonNullable<ApplicationOptions<TServices, unknown>["serve"]>,
  config: unknown,
  settings: ServerSettings,
  test: TestHooks | undefined,
): Promise<void> {
  let server: HostServer;
  try {
    const handler = await serve(host.services, config, app);
    if (typeof handler !== "function") {
      throw new TypeError(
        `serve must return a request handler (request) => Response, not ${
          handler === null ? "null" : typeof handler
        }`,
      );
    }
    server = await HostServer.start(handler, settings, {
      handle: (inner) =>
        wrapHostHandler(inner, () => host.logger, host.trackDisposal),
      health: app.healthHandler(),
      readiness: () => host.healthReport(true),
    }, test === undefined || test.listen);
  } catch (error) {
    throw new ApplicationStartError(4, error, "server");
  }
  host.server = host.serverToStop = server;
  host.checkNotStopped(4);
  // A test application sends requests through the same handler, in memory.
  test?.served((request) => server.fetch(request));
  if (server.url === undefined) {
    host.logger.info("Serving in memory (no port)");
    return;
  }
  host.logger.info(`Listening on ${server.url} (${server.kind})`, {
    url: server.url,
  });
}

// One step, awaited and timed; its failure names the step (and the service
// it could not create).
async function runStep(
  host: HostState<object>,
  step: 1 | 2 | 3 | 4,
  run: () => unknown,
): Promise<void> {
  const began = performance.now();
  try {
    await run();
  } catch (error) {
    // A service a step asked for and could not be created is named.
    throw new ApplicationStartError(
      step,
      error,
      error instanceof ServiceCreationError ? error.serviceName : undefined,
    );
  }
  host.checkNotStopped(step);
  const durationMs = performance.now() - began;
  host.debug(
    `Start-up step ${step} (${STEP_NAMES[step - 1]}) done in ${
      durationMs.toFixed(1)
    } ms`,
    { step, durationMs },
  );
}

async function createEager(host: HostState<object>): Promise<void> {
  const services = host.services;
  try {
    await services.createEagerServices();
  } catch (error) {
    const name = error instanceof ServiceCreationError
      ? error.serviceName
      : undefined;
    throw new ApplicationStartError(4, error, name);
  }
  host.hosted.addRegistered(services);
}

/**
 * Starts one hosted service; one that finished starting after stop() began
 * is stopped again, within the deadline.
 */
export async function startHosted(
  host: HostState<object>,
  entry: HostedEntry,
): Promise<void> {
  const began = performance.now();
  await host.hosted.start(
    entry,
    host.running.signal,
    () => host.phase === "starting",
  );
  if (host.stopping !== undefined) {
    // stop() began while this one was starting: stop it now, bounded.
    await host.hosted.stopLate(
      entry,
      host.shutdownTimeout,
      () => host.logger,
    );
    return;
  }
  host.hosted.started(entry);
  host.debug(
    `Hosted service '${entry.name}' started in ${
      (performance.now() - began).toFixed(1)
    } ms`,
    { service: entry.name },
  );
}
