import type {
  ApplicationOptions,
  ApplicationRunOptions,
  ApplicationServices,
  HostedService,
  InferredApplicationOptions,
  InferredApplicationRunOptions,
  ShutdownReport,
} from "./application_options.ts";
import type { FetchHandler } from "../server/fetch_handler.ts";
import type {
  HealthCheck,
  HealthCheckOptions,
  HealthReport,
} from "./health.ts";
import type { ServiceLocator } from "../locator/service_locator.ts";
import type { ServiceMap } from "../locator/service_registration.ts";
import { consoleLogger } from "./_application_support.ts";
import { HostedServices } from "./_hosted_services.ts";
import { HostState } from "./_host_state.ts";
import { locatorHooks } from "../locator/_locator_hooks.ts";
import { wrapHandler } from "../server/_request_handler.ts";
import { runUntilSignal } from "./_run_until_signal.ts";
import { shutdown } from "./_shutdown.ts";
import { startHosted, startUp } from "./_start_up.ts";

// A façade: the host's state is in _host_state.ts, the start-up (the four
// steps, eager and hosted services, the server) in _start_up.ts, the
// shutdown with its deadline in _shutdown.ts, health checks in
// _application_health.ts and _health_checks.ts, request handling in
// _request_handler.ts, and run()'s signal handling in _run_until_signal.ts.

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
  readonly #host: HostState<TServices>;

  private constructor(options: ApplicationOptions<TServices, unknown>) {
    this.#host = new HostState(options);
  }

  /**
   * Starts an application: runs the four steps in order, each awaited; then
   * creates the services registered with `{ eager: true }` and starts the
   * hosted services, in registration order.
   *
   * The services are typed by what the steps register: a step that
   * returns its chain of registrations
   * (`services.register("http", …).register("cache", …)`) types those names
   * in the steps after it, in `serve`, in other factories and in
   * `app.services`, with the host's own `config` and `logging`; a name never
   * registered is then a compile error. A step that returns nothing leaves
   * the names untyped, as before.
   *
   * @typeParam TConfig What the configuration step builds.
   * @typeParam TLogging What the logging step returns.
   * @typeParam TPlatform What the platform step returns.
   * @typeParam TServicesStep What the services step returns.
   * @param options The steps and the shutdown deadline.
   * @returns The running application.
   * @throws {ApplicationStartError} When a step, an eager service or a
   * hosted service's `start` fails, when a server option or
   * `host:shutdownTimeout` has a bad value (step 1, naming the key and its
   * source; its cause is a `ServerSettingError`), or when the server cannot
   * listen (step 4, naming the address); what was created is disposed first.
   * @throws {RangeError} When `shutdownTimeout` is not a number of 0 or more.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * await using app = await Application.start({
   *   configuration: () => ({ name: "demo" }),
   *   services: (services) =>
   *     services.register("clock", () => ({ now: () => Date.now() })),
   * });
   * app.services.get("config").name; // "demo"
   * app.services.get("clock").now(); // typed: no service map written
   * ```
   */
  static start<TConfig, TLogging, TPlatform, TServicesStep>(
    options: InferredApplicationOptions<
      TConfig,
      TLogging,
      TPlatform,
      TServicesStep
    >,
  ): Promise<
    Application<
      ApplicationServices<TConfig, TLogging, TPlatform, TServicesStep>
    >
  >;
  /**
   * Starts an application whose service map is written by hand (see the
   * other signature for one typed by the steps' registrations).
   *
   * @typeParam TServices Names and types of the services.
   * @typeParam TConfig What the configuration step builds.
   * @param options The steps and the shutdown deadline.
   * @returns The running application.
   * @throws {ApplicationStartError} When a step, an eager service or a
   * hosted service's `start` fails.
   *
   * @example Usage
   * ```ts
   * import { Application } from "@vendor/kit/platform";
   *
   * await using app = await Application.start<{ port: number }>({
   *   configuration: () => ({}),
   *   services: (services) => {
   *     services.register("port", () => 3000);
   *   },
   * });
   * app.services.get("port"); // 3000
   * ```
   */
  static start<TServices extends object = ServiceMap, TConfig = unknown>(
    options: ApplicationOptions<TServices, TConfig>,
  ): Promise<Application<TServices>>;
  static async start(
    options: ApplicationOptions<ServiceMap, unknown>,
  ): Promise<Application<ServiceMap>> {
    const app = new Application<ServiceMap>(options);
    const host = app.#host;
    await startUp(host, app, options, (logStop) => app.#stop(logStop));
    return app;
  }

  /**
   * Starts the application, waits for SIGINT or SIGTERM (in Deno, Node.js
   * and Bun), stops it, and ends the process with 0, or 1 when start-up or
   * shutdown failed. A second signal during shutdown ends the process at
   * once with 130 (SIGINT) or 143 (SIGTERM). The signal listeners are
   * removed when it is done.
   *
   * @typeParam TConfig What the configuration step builds.
   * @typeParam TLogging What the logging step returns.
   * @typeParam TPlatform What the platform step returns.
   * @typeParam TServicesStep What the services step returns.
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
  static run<TConfig, TLogging, TPlatform, TServicesStep>(
    options: InferredApplicationRunOptions<
      TConfig,
      TLogging,
      TPlatform,
      TServicesStep
    >,
  ): Promise<number>;
  /**
   * Runs an application whose service map is written by hand (see the other
   * signature).
   *
   * @typeParam TServices Names and types of the services.
   * @typeParam TConfig What the configuration step builds.
   * @param options The start-up options and `exit`.
   * @returns The exit code (when `exit` is `false`).
   *
   * @example Usage
   * ```ts ignore
   * // Not run here: it runs until the process gets SIGINT or SIGTERM.
   * import { Application } from "@vendor/kit/platform";
   *
   * await Application.run<{ port: number }>({ configuration: () => ({}) });
   * ```
   */
  static run<TServices extends object = ServiceMap, TConfig = unknown>(
    options: ApplicationRunOptions<TServices, TConfig>,
  ): Promise<number>;
  static async run(
    options: ApplicationRunOptions<ServiceMap, unknown>,
  ): Promise<number> {
    return await runUntilSignal(
      options.exit !== false,
      () => Application.start(options),
      async (app, signal) => {
        app.#host.logger.info(`Received ${signal}: stopping`, { signal });
        return (await app.stop()).ok;
      },
    );
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
    return this.#host.services;
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
    return this.#host.server?.url;
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
    return this.#host.shutdownTimeout;
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
    HostedServices.check(name, service);
    const host = this.#host;
    if (host.phase === "stopping" || host.phase === "stopped") {
      throw new Error(
        `addHostedService('${name}'): the application is ${host.phase}`,
      );
    }
    const entry = { name, service };
    host.hosted.toStart.push(entry);
    if (host.phase === "running") await startHosted(host, entry);
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
    this.#host.health.add(name, check, options);
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
    return this.#host.healthReport(false);
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
    const host = this.#host;
    return wrapHandler(handler, () => host.logger, host.trackDisposal);
  }

  /**
   * Stops the application once (later calls return the same promise):
   * the server of `serve` first (readiness turns 503 at once, requests are
   * served for `drainDelay`, then it stops accepting, lets the requests in
   * flight finish and closes idle connections); then hosted services stop,
   * newest first; then the disposals of requests' scoped services that went
   * on after their responses are awaited; then the services the locator
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
    return this.#host.stopping ??= this.#stop(true);
  }

  /**
   * The same as {@linkcode Application.stop}, for `await using`.
   *
   * @returns A promise that settles when the application stopped.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  async #stop(logStop: boolean): Promise<ShutdownReport> {
    const host = this.#host;
    host.phase = "stopping";
    host.health.close();
    host.running.abort(new Error("The application is stopping"));
    const report = await shutdown({
      timeout: host.shutdownTimeout,
      reserveForLogging: host.hasLogging,
      logStop,
      logger: () => host.logger,
      server: host.takeServer(),
      hosted: host.hosted.takeStarted(),
      requestScopes: () =>
        [...host.requestScopes].map(([done, requestId]) => ({
          name: `scoped services of request ${requestId}`,
          done,
        })),
      takeCreated: () => {
        const hooks = locatorHooks.get(host.services);
        // A service created after this would never be disposed.
        hooks?.close("the application has stopped");
        return hooks?.takeCreated() ?? [];
      },
      afterServices: () => host.detachCreated(),
    });
    host.logger = consoleLogger(host.diagnostics);
    // Last: Kit's parts wrote to this logging until now.
    host.unregisterLogging?.();
    host.unregisterLogging = undefined;
    host.phase = "stopped";
    return report;
  }
}
