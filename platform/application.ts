import { ApplicationStartError } from "./application_start_error.ts";
import type {
  ApplicationLogger,
  ApplicationOptions,
  ApplicationRunOptions,
  FetchHandler,
  HostedService,
  ShutdownReport,
} from "./application_options.ts";
import type {
  HealthCheck,
  HealthCheckable,
  HealthCheckOptions,
  HealthReport,
} from "./health.ts";
import { ServiceCreationError } from "./service_creation_error.ts";
import { ServiceLocator, type ServiceMap } from "./service_locator.ts";
import {
  inReadiness,
  type RegisteredCheck,
  runChecks,
} from "./_health_checks.ts";
import { locatorHooks } from "./_locator_hooks.ts";
import { registerHostLogging } from "./_host_logging.ts";
import { exitProcess, onShutdownSignal } from "#platform/process";
import { wrapHandler, wrapHandlerAtOnce } from "./_request_handler.ts";
import { type HealthGauge, healthGauge } from "./_telemetry.ts";
import { STEP_NAMES } from "./_steps.ts";
import {
  abandonAfter,
  consoleLogger,
  diagnosticsEnabled,
  loggerOf,
  messageOf,
} from "./_application_support.ts";
import { deadlineSignal } from "../core/mod.ts";
import { readEnvironmentVariable } from "../internal/environment.ts";
import { shutdown } from "./_shutdown.ts";
import { logConfigurationFindings } from "./_config_findings.ts";
import { HostServer } from "./_server_host.ts";
import { type TestHooks, testHooksOf } from "./_testing_hooks.ts";
import {
  configuredShutdownTimeout,
  type ServerSettings,
  serverSettings,
} from "./_server_settings.ts";

type State = "starting" | "running" | "stopping" | "stopped";

const DEFAULT_SHUTDOWN_TIMEOUT = 10_000;
const DEFAULT_CHECK_TIMEOUT = 2_000;

/**
 * The application host: runs the four start-up steps in order
 * (configuration, logging, platform services, application services), then
 * the eager and hosted services; with the `serve` option, listens for HTTP
 * with health probes and drains at shutdown; answers health checks; wraps
 * request handlers with a request context; and stops everything, logging
 * last, within a deadline.
 *
 * Each step is awaited and timed; with the environment variable
 * `KIT_LOG_LEVEL=debug` every step, its duration and every service creation
 * is logged. A failing step rejects with {@linkcode ApplicationStartError}
 * naming it, after disposing what was created so far.
 *
 * @typeParam TServices Names and types of the services, so that
 * `app.services.get("http")` is typed without a type argument.
 *
 * @example Usage
 * ```ts
 * import { Application } from "@vendor/kit/platform";
 *
 * const app = await Application.start({
 *   configuration: () => ({ greeting: "hello" }),
 *   services: (services, config) => {
 *     services.register("greeter", () => ({ greet: () => config.greeting }));
 *   },
 * });
 * console.log(app.services.get<{ greet(): string }>("greeter").greet());
 * await app.stop();
 * ```
 *
 * @example An HTTP service that runs until SIGINT or SIGTERM
 * ```ts ignore
 * // Not run here: it serves until the process gets SIGINT or SIGTERM.
 * import { Application } from "@vendor/kit/platform";
 *
 * await Application.run({
 *   configuration: () => ({}),
 *   // Listens on server:port (else PORT, else 3000) once start-up is done,
 *   // with /health, /health/live and /health/ready; drains on SIGTERM.
 *   serve: () => () => new Response("ok"),
 * });
 * ```
 */
export class Application<TServices extends object = ServiceMap> {
  readonly #services: ServiceLocator<TServices>;
  #shutdownTimeout: number;
  readonly #shutdownTimeoutInCode: boolean;
  // The HTTP server of the `serve` option, once it listens; and the same
  // until a shutdown takes it to stop it.
  #server: HostServer | undefined;
  #serverToStop: HostServer | undefined;
  readonly #checks = new Map<string, RegisteredCheck>();
  // Checks found on created services (checkHealth()), by service name.
  readonly #serviceChecks = new Map<string, HealthCheckable>();
  readonly #hosted: { name: string; service: HostedService }[] = [];
  readonly #started: { name: string; service: HostedService }[] = [];
  readonly #running = new AbortController();
  readonly #diagnostics: boolean;
  readonly #detachCreated: () => void;
  // kit.health.status, from the last report of health().
  readonly #healthGauge: HealthGauge = healthGauge();
  #state: State = "starting";
  #logger: ApplicationLogger;
  #hasLogging = false;
  // Takes this application's logging off the list hostLogger() reads.
  #unregisterLogging: (() => void) | undefined;
  #stopping: Promise<ShutdownReport> | undefined;

  private constructor(options: ApplicationOptions<TServices, unknown>) {
    const timeout = options.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT;
    if (
      typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < 0
    ) {
      throw new RangeError(
        `shutdownTimeout must be a number of milliseconds of 0 or more: ${timeout}`,
      );
    }
    this.#shutdownTimeout = timeout;
    this.#shutdownTimeoutInCode = options.shutdownTimeout !== undefined;
    this.#services = options.locator ?? new ServiceLocator<TServices>();
    this.#diagnostics = diagnosticsEnabled(
      readEnvironmentVariable("KIT_LOG_LEVEL"),
    );
    this.#logger = consoleLogger(this.#diagnostics);
    this.#detachCreated = this.#services.serviceCreated.add((event) => {
      const service = event.service as Partial<HealthCheckable> | null;
      if (
        service !== null && typeof service === "object" &&
        typeof service.checkHealth === "function"
      ) {
        this.#serviceChecks.set(event.name, service as HealthCheckable);
      }
      this.#debug(
        `Service '${event.name}' created in ${event.durationMs.toFixed(1)} ms`,
        { service: event.name, durationMs: event.durationMs },
      );
    });
  }

  /**
   * Starts an application: runs the four steps in order, each awaited; then
   * creates the services registered with `{ eager: true }` and starts the
   * hosted services, in registration order.
   *
   * @typeParam TServices Names and types of the services.
   * @typeParam TConfig What the configuration step builds.
   * @param options The steps and the shutdown deadline.
   * @returns The running application.
   * @throws {ApplicationStartError} When a step, an eager service or a
   * hosted service's `start` fails, when a server option or
   * `host:shutdownTimeout` has a bad value (step 1, naming the key and its
   * source), or when the server cannot listen (step 4, naming the address);
   * what was created is disposed first.
   * @throws {RangeError} When `shutdownTimeout` is not a number of 0 or more.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * await using app = await Application.start({
   *   configuration: () => ({ name: "demo" }),
   * });
   * app.services.get("config"); // { name: "demo" }
   * ```
   */
  static async start<TServices extends object = ServiceMap, TConfig = unknown>(
    options: ApplicationOptions<TServices, TConfig>,
  ): Promise<Application<TServices>> {
    const app = new Application<TServices>(
      options as ApplicationOptions<TServices, unknown>,
    );
    await app.#start(options as ApplicationOptions<TServices, unknown>);
    return app;
  }

  /**
   * Starts the application, waits for SIGINT or SIGTERM (in Deno, Node.js
   * and Bun), stops it, and ends the process with 0, or 1 when start-up or
   * shutdown failed. A second signal during shutdown ends the process at
   * once with 130 (SIGINT) or 143 (SIGTERM). The signal listeners are
   * removed when it is done.
   *
   * @typeParam TServices Names and types of the services.
   * @typeParam TConfig What the configuration step builds.
   * @param options The start-up options; `exit: false` resolves to the exit
   * code instead of ending the process.
   * @returns The exit code (when `exit` is `false`).
   *
   * @example Usage
   * ```ts ignore
   * // Not run here: it runs until the process gets SIGINT or SIGTERM, then
   * // ends the process.
   * import { Application } from "@vendor/kit/platform";
   *
   * await Application.run({ configuration: () => ({}) });
   * ```
   */
  static async run<TServices extends object = ServiceMap, TConfig = unknown>(
    options: ApplicationRunOptions<TServices, TConfig>,
  ): Promise<number> {
    const exit = options.exit !== false;
    const done = (code: number): number => {
      if (exit) exitProcess(code);
      return code;
    };
    let received: ((signal: string) => void) | undefined;
    let stopping = false;
    const signals: string[] = [];
    const detach = onShutdownSignal((signal) => {
      // A second signal, during start-up or shutdown, ends the process at
      // once: a hung start-up or disposal can always be interrupted.
      if (stopping || signals.length > 0) {
        const code = signal === "SIGINT" ? 130 : 143;
        console.error(
          `Received ${signal} again during ${
            stopping ? "shutdown" : "start-up"
          }: exiting now with ${code} without waiting.`,
        );
        exitProcess(code);
        return;
      }
      signals.push(signal);
      if (received !== undefined) received(signal);
      else {
        console.error(
          `Received ${signal} during start-up: stopping once it ends (send it again to exit now).`,
        );
      }
    });
    // Waiting for a signal is the point of run(): keep the process alive
    // until one arrives (signal listeners alone do not in Node.js).
    const keepAlive = setInterval(() => {}, 2_147_483_647);
    let app: Application<TServices>;
    try {
      try {
        app = await Application.start(options);
      } catch (error) {
        // Printed here unless the logging step has written it already.
        if (!loggedFailures.has(error as object)) {
          console.error(startFailureLine(error));
        }
        return done(1);
      }
      const signal = signals[0] ?? await new Promise<string>((resolve) => {
        received = resolve;
      });
      stopping = true;
      app.#logger.info(`Received ${signal}: stopping`, { signal });
      const report = await app.stop();
      return done(report.ok ? 0 : 1);
    } finally {
      clearInterval(keepAlive);
      detach();
    }
  }

  /**
   * The service locator the steps filled: `config` (step 1), `logging`
   * (step 2, when there is a logging step), and what steps 3 and 4
   * registered.
   *
   * @returns The locator.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * const app = await Application.start({ configuration: () => ({}) });
   * app.services.has("config"); // true
   * await app.stop();
   * ```
   */
  get services(): ServiceLocator<TServices> {
    return this.#services;
  }

  /**
   * The address the server of the `serve` option listens on
   * (`http://127.0.0.1:8080`; the real port when 0 was asked; loopback for
   * a wildcard address such as `0.0.0.0`), once start-up is done;
   * `undefined` without `serve`, and when it serves in memory only (an
   * application of the test kit that was not asked to listen).
   *
   * @returns The URL, without a trailing slash.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * const app = await Application.start({
   *   configuration: () => ({}),
   *   serve: () => () => new Response("hello"),
   *   server: { port: 0, hostname: "127.0.0.1" },
   * });
   * console.log(await (await fetch(app.url!)).text()); // "hello"
   * await app.stop();
   * ```
   */
  get url(): string | undefined {
    return this.#server?.url;
  }

  /**
   * The shutdown deadline in force, in milliseconds: the `shutdownTimeout`
   * option, else the configuration key `host:shutdownTimeout` (read once
   * step 1 is done), else 10,000.
   *
   * @returns The deadline.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * const app = await Application.start({
   *   configuration: () => ({ host: { shutdownTimeout: 3000 } }),
   * });
   * console.log(app.shutdownTimeout); // 3000
   * await app.stop();
   * ```
   */
  get shutdownTimeout(): number {
    return this.#shutdownTimeout;
  }

  /**
   * Adds a hosted service. Added before start-up finished (in step 3 or 4),
   * it starts after the eager services, in the order added; added later, it
   * starts at once. Hosted services stop first at shutdown, newest first.
   *
   * @param name The name used in logs and in the shutdown report.
   * @param service The service.
   * @returns A promise that settles when the service started (at once
   * while start-up is still running).
   * @throws {TypeError} When `service` has no `start` or `stop` method.
   * @throws {Error} When the application is stopping or stopped.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * const app = await Application.start({ configuration: () => ({}) });
   * await app.addHostedService("worker", {
   *   start: () => console.log("started"),
   *   stop: () => console.log("stopped"),
   * });
   * await app.stop();
   * ```
   */
  async addHostedService(name: string, service: HostedService): Promise<void> {
    if (
      service === null || typeof service !== "object" ||
      typeof service.start !== "function" || typeof service.stop !== "function"
    ) {
      throw new TypeError(
        `addHostedService('${name}'): a hosted service needs start(signal) and stop() methods`,
      );
    }
    if (this.#state === "stopping" || this.#state === "stopped") {
      throw new Error(
        `addHostedService('${name}'): the application is ${this.#state}`,
      );
    }
    const entry = { name, service };
    this.#hosted.push(entry);
    if (this.#state === "running") await this.#startHosted(entry);
  }

  /**
   * Adds a health check, run by {@linkcode Application.health} under its
   * timeout. A check with the name of a service replaces that service's own
   * `checkHealth()`.
   *
   * @param name The name in the health report.
   * @param check Returns or resolves to `{ status, detail? }`; a throw
   * counts as `unhealthy`.
   * @param options `timeout` (default 2000 ms), `critical` (default
   * `true`) and `tags` (`"no-readiness"` keeps it out of `/health/ready`).
   * @returns This application, for chaining.
   * @throws {TypeError} When `check` is not a function, or `tags` not an
   * array of strings.
   * @throws {RangeError} When `timeout` is not a positive number of at most
   * 2147483647 (about 24.8 days).
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * const app = await Application.start({ configuration: () => ({}) });
   * app.addHealthCheck("disk", () => ({ status: "healthy" }), {
   *   critical: false,
   * });
   * console.log((await app.health()).status); // "healthy"
   * await app.stop();
   * ```
   */
  addHealthCheck(
    name: string,
    check: HealthCheck,
    options: HealthCheckOptions = {},
  ): this {
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
    return this;
  }

  /**
   * Runs every health check concurrently, each under its timeout: the ones
   * added with {@linkcode Application.addHealthCheck} and, under their
   * service names, those of created services that have a `checkHealth()`
   * method (Kit's cache manager, log and analytics providers, configuration
   * manager). The overall status is the worst of the critical checks; a
   * non-critical `unhealthy` check makes it `degraded`. Before start-up
   * finished and once shutdown began, it reports `starting`/`stopping`
   * without running the checks. The last report is also the value of the
   * OpenTelemetry gauge `kit.health.status` (per check, attribute
   * `kit.health.check`: 1 healthy, 0.5 degraded, 0 unhealthy).
   *
   * @returns The overall status and each check's status, duration, detail
   * and error.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * const app = await Application.start({ configuration: () => ({}) });
   * const report = await app.health();
   * console.log(report.status, Object.keys(report.checks));
   * await app.stop();
   * ```
   */
  health(): Promise<HealthReport> {
    return this.#health(false);
  }

  // The report of every check, or of those that count for readiness.
  async #health(readiness: boolean): Promise<HealthReport> {
    if (this.#state !== "running") {
      return {
        status: this.#state === "starting" ? "starting" : "stopping",
        checks: {},
      };
    }
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
    if (this.#state === "running" && !readiness) {
      this.#healthGauge.update(report);
    }
    return report;
  }

  /**
   * A Fetch-style handler for a health endpoint (`GET /health`): it answers
   * the JSON of {@linkcode Application.health} with 200 when the status is
   * `healthy` or `degraded`, and 503 when it is `unhealthy`, `starting` or
   * `stopping`, so a container health check passes only while the
   * application can serve.
   *
   * @returns The handler.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * const app = await Application.start({ configuration: () => ({}) });
   * const response = await app.healthHandler()(
   *   new Request("http://localhost/health"),
   * );
   * console.log(response.status); // 200
   * await app.stop();
   * ```
   */
  healthHandler(): (request: Request) => Promise<Response> {
    return async (_request: Request): Promise<Response> => {
      const report = await this.health();
      const ok = report.status === "healthy" || report.status === "degraded";
      return Response.json(report, {
        status: ok ? 200 : 503,
        // The same header in every runtime (Bun's Response.json adds a
        // charset).
        headers: {
          "Content-Type": "application/json",
          "Cache-Control": "no-store",
        },
      });
    };
  }

  /**
   * Wraps a Fetch-style handler (for `Deno.serve`, `Bun.serve`, Hono's
   * `app.fetch`, or Node.js through `@hono/node-server`): each request gets
   * a request id (its `X-Request-ID` when that is a sane token of at most
   * 128 letters, digits and `._:+=/-`, else a new UUID), runs inside a
   * {@linkcode RequestContext} holding it, answers with `X-Request-ID` set,
   * and writes one access log line at info (method, path without query,
   * status, duration, request id). A handler that throws gives a 500 JSON
   * `{ message: "Internal Server Error", requestId }` and the error is
   * logged with the request id; nothing about it reaches the client.
   *
   * With an OpenTelemetry SDK registered (or Deno's `OTEL_DENO=true`), each
   * request also gets a SERVER span named after its method, continuing the
   * request's `traceparent`/`tracestate`, active while the handler runs (so
   * Kit's HTTP calls, cache reads and log entries inside are its children),
   * an error on a 5xx or a throw; and a point of the
   * `http.server.request.duration` histogram. Kit cannot see a router's
   * routes: a handler that knows the route renames the span with
   * `trace.getActiveSpan()?.updateName("GET /orders/:id")` and sets
   * `http.route`. Without an SDK this costs nothing measurable.
   *
   * @typeParam A Any arguments after the request that the server passes.
   * @param handler The application's handler.
   * @returns The wrapped handler.
   * @throws {TypeError} When `handler` is not a function.
   *
   * @example Usage
   * ```ts
   * import { Application, RequestContext } from "@vendor/kit/platform";
   *
   * const app = await Application.start({ configuration: () => ({}) });
   * const handler = app.handle(() =>
   *   new Response(RequestContext.current()?.requestId)
   * );
   * const response = await handler(
   *   new Request("http://localhost/", { headers: { "X-Request-ID": "r-1" } }),
   * );
   * console.log(await response.text()); // "r-1"
   * await app.stop();
   * ```
   */
  handle<A extends unknown[]>(
    handler: FetchHandler<A>,
  ): (request: Request, ...args: A) => Promise<Response> {
    return wrapHandler(handler, () => this.#logger);
  }

  /**
   * Stops the application once (later calls return the same promise):
   * the server of `serve` first (readiness turns 503 at once, requests are
   * served for `drainDelay`, then it stops accepting, lets the requests in
   * flight finish and closes idle connections); then hosted services stop,
   * newest first; then the services the locator
   * created are disposed, newest first (a `dispose(options)` method receives
   * `{ signal }` for the time left); then logging, last, so the shutdown's
   * own lines are written. All within `shutdownTimeout`: past it, `stop()`
   * resolves anyway and names what it abandoned. Logging keeps a reserve of
   * the deadline (10 %, at most 1 s) for its last flush.
   *
   * @returns What stopped late or failed; `ok` when nothing did.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * const app = await Application.start({ configuration: () => ({}) });
   * const report = await app.stop();
   * console.log(report.ok); // true
   * ```
   */
  stop(): Promise<ShutdownReport> {
    return this.#stopping ??= this.#stop(true);
  }

  /**
   * The same as {@linkcode Application.stop}, for `await using`.
   *
   * @returns A promise that settles when the application stopped.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  async #start(options: ApplicationOptions<TServices, unknown>): Promise<void> {
    const services = this.#services;
    // Static ServiceLocator calls read this locator until the app stops.
    locatorHooks.get(services)?.open();
    const began = performance.now();
    let step: 1 | 2 | 3 | 4 = 1;
    try {
      let settings: ServerSettings | undefined;
      await this.#step(1, async () => {
        services.register("config" as never, options.configuration as never);
        const config: unknown = await services.getAsync("config" as never);
        // The host's own settings come from code, then this configuration.
        if (!this.#shutdownTimeoutInCode) {
          this.#shutdownTimeout = configuredShutdownTimeout(config) ??
            this.#shutdownTimeout;
        }
        if (options.serve !== undefined) {
          settings = serverSettings(options.server, config);
        }
      });
      const config = services.get("config" as never) as unknown;
      if (options.logging !== undefined) {
        step = 2;
        const logging = options.logging;
        await this.#step(2, async () => {
          services.register(
            "logging" as never,
            (() => logging(config, services)) as never,
          );
          const value = await services.getAsync("logging" as never);
          this.#hasLogging = true;
          this.#unregisterLogging = registerHostLogging(value);
          const logger = loggerOf(value);
          if (logger !== undefined) this.#logger = logger;
          return value;
        });
      }
      // Variables one underscore short of a known key, otherwise ignored.
      logConfigurationFindings(config, this.#logger);
      if (options.platform !== undefined) {
        step = 3;
        const platform = options.platform;
        await this.#step(3, () => platform(services, config, this));
      }
      if (options.services !== undefined) {
        step = 4;
        const setup = options.services;
        await this.#step(4, () => setup(services, config, this));
      }
      step = 4;
      await this.#createEager();
      this.#checkNotStopped(4);
      for (const entry of this.#hosted) {
        await this.#startHosted(entry);
        this.#checkNotStopped(4);
      }
      if (options.serve !== undefined) {
        await this.#listen(
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
      if (this.#hasLogging && this.#stopping === undefined) {
        this.#logger.error(startFailureLine(failure), {
          error: failure.cause,
          ...(failure.serviceName !== undefined
            ? { service: failure.serviceName }
            : {}),
        });
        loggedFailures.add(failure);
      }
      this.#state = "stopping";
      if (this.#stopping !== undefined) {
        // stop() ran meanwhile; take what was created after it began.
        await this.#stopping;
        await this.#stop(false);
      } else {
        this.#stopping = this.#stop(false);
        await this.#stopping;
      }
      throw failure;
    }
    this.#state = "running";
    const ms = (performance.now() - began).toFixed(1);
    this.#logger.info(`Application started in ${ms} ms`, {
      durationMs: Number(ms),
    });
  }

  // Last in start-up: the server listens once everything it serves runs.
  async #listen(
    serve: NonNullable<ApplicationOptions<TServices, unknown>["serve"]>,
    config: unknown,
    settings: ServerSettings,
    test: TestHooks | undefined,
  ): Promise<void> {
    let server: HostServer;
    try {
      const handler = await serve(this.#services, config, this);
      if (typeof handler !== "function") {
        throw new TypeError(
          `serve must return a request handler (request) => Response, not ${
            handler === null ? "null" : typeof handler
          }`,
        );
      }
      server = await HostServer.start(handler, settings, {
        handle: (inner) => wrapHandlerAtOnce(inner, () => this.#logger),
        health: this.healthHandler(),
        readiness: () => this.#health(true),
      }, test === undefined || test.listen);
    } catch (error) {
      throw new ApplicationStartError(4, error, "server");
    }
    this.#server = this.#serverToStop = server;
    this.#checkNotStopped(4);
    // A test application sends requests through the same handler, in memory.
    test?.served((request) => server.fetch(request));
    if (server.url === undefined) {
      this.#logger.info("Serving in memory (no port)");
      return;
    }
    this.#logger.info(`Listening on ${server.url} (${server.kind})`, {
      url: server.url,
    });
  }

  // Start-up ends early when stop() was called meanwhile (from a step, a
  // hosted service, or a signal handler): what it created is then disposed.
  #checkNotStopped(step: 1 | 2 | 3 | 4): void {
    if (this.#stopping !== undefined) {
      throw new ApplicationStartError(
        step,
        new Error("stop() was called during start-up"),
      );
    }
  }

  async #step(step: 1 | 2 | 3 | 4, run: () => unknown): Promise<void> {
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
    this.#checkNotStopped(step);
    const durationMs = performance.now() - began;
    this.#debug(
      `Start-up step ${step} (${STEP_NAMES[step - 1]}) done in ${
        durationMs.toFixed(1)
      } ms`,
      { step, durationMs },
    );
  }

  async #createEager(): Promise<void> {
    const services = this.#services;
    try {
      await services.createEagerServices();
    } catch (error) {
      const name = error instanceof ServiceCreationError
        ? error.serviceName
        : undefined;
      throw new ApplicationStartError(4, error, name);
    }
    for (const [name, options] of services.eagerServices()) {
      if (options.hosted !== true) continue;
      const service = services.get(name as never) as HostedService;
      if (
        service === null || typeof service !== "object" ||
        typeof service.start !== "function" ||
        typeof service.stop !== "function"
      ) {
        throw new ApplicationStartError(
          4,
          new TypeError(
            `service '${name}' is registered as hosted but has no start(signal) and stop() methods`,
          ),
          name,
        );
      }
      if (!this.#hosted.some((entry) => entry.service === service)) {
        this.#hosted.push({ name, service });
      }
    }
  }

  async #startHosted(
    entry: { name: string; service: HostedService },
  ): Promise<void> {
    const began = performance.now();
    try {
      await entry.service.start(this.#running.signal);
    } catch (error) {
      const cause = new Error(
        `hosted service '${entry.name}' could not start: ${messageOf(error)}`,
        { cause: error },
      );
      if (this.#state === "starting") {
        throw new ApplicationStartError(4, cause, entry.name);
      }
      throw cause;
    }
    if (this.#stopping !== undefined) {
      // stop() began while this one was starting: stop it now, bounded.
      const signal = deadlineSignal({ timeout: this.#shutdownTimeout })!;
      await abandonAfter(
        Promise.resolve().then(() => entry.service.stop(signal)),
        signal,
      ).catch((error) =>
        this.#logger.error(
          `Hosted service '${entry.name}' failed to stop: ${messageOf(error)}`,
          { error },
        )
      );
      return;
    }
    this.#started.push(entry);
    this.#debug(
      `Hosted service '${entry.name}' started in ${
        (performance.now() - began).toFixed(1)
      } ms`,
      { service: entry.name },
    );
  }

  async #stop(logStop: boolean): Promise<ShutdownReport> {
    this.#state = "stopping";
    this.#healthGauge.close();
    this.#running.abort(new Error("The application is stopping"));
    const report = await shutdown({
      timeout: this.#shutdownTimeout,
      reserveForLogging: this.#hasLogging,
      logStop,
      logger: () => this.#logger,
      server: this.#takeServer(),
      hosted: this.#started.splice(0),
      takeCreated: () => {
        const hooks = locatorHooks.get(this.#services);
        // A service created after this would never be disposed.
        hooks?.close("the application has stopped");
        return hooks?.takeCreated() ?? [];
      },
      afterServices: () => this.#detachCreated(),
    });
    this.#logger = consoleLogger(this.#diagnostics);
    // Last: Kit's parts wrote to this logging until now.
    this.#unregisterLogging?.();
    this.#unregisterLogging = undefined;
    this.#state = "stopped";
    return report;
  }

  #takeServer(): HostServer | undefined {
    const server = this.#serverToStop;
    this.#serverToStop = undefined;
    return server;
  }

  #debug(message: string, properties: Record<string, unknown>): void {
    if (!this.#diagnostics) return;
    const logger = this.#logger;
    if (logger.isEnabled !== undefined && !logger.isEnabled(0)) {
      console.error(`[kit] ${message}`);
    } else {
      logger.debug(message, properties);
    }
  }
}

// The start-up failures the logging step has written, so that run() does
// not print them a second time.
const loggedFailures = new WeakSet<object>();

// The line of a failed start-up: its message, and the service at fault when
// the message does not name it already.
function startFailureLine(error: unknown): string {
  const message = messageOf(error);
  const name = error instanceof ApplicationStartError
    ? error.serviceName
    : undefined;
  return name === undefined || message.includes(`'${name}'`)
    ? message
    : `${message} (service '${name}')`;
}
