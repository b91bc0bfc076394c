import type { ServiceLocator } from "./service_locator.ts";
import type { ServiceMap } from "./service_registration.ts";
import type { Application } from "./application.ts";
import type { ServerOptions } from "./server_options.ts";

/**
 * A long-running part of the application that the host starts after the
 * eager services and stops first at shutdown, in reverse order: an HTTP
 * server, a queue consumer, a scheduler.
 *
 * @example Usage
 * ```ts
 * import type { HostedService } from "@vendor/kit/platform";
 *
 * const ticker: HostedService = {
 *   start(signal) {
 *     const timer = setInterval(() => console.log("tick"), 1_000);
 *     signal.addEventListener("abort", () => clearInterval(timer));
 *   },
 *   stop() {},
 * };
 * ```
 */
export interface HostedService {
  /**
   * Starts the service; start-up waits for a returned promise.
   *
   * @param signal Aborts when the application begins to stop.
   */
  start(signal: AbortSignal): void | Promise<void>;
  /**
   * Stops the service; shutdown waits for a returned promise until the
   * deadline.
   *
   * @param signal Aborts at the shutdown deadline.
   */
  stop(signal: AbortSignal): void | Promise<void>;
}

/**
 * What the application writes its own lines to: the logger of the logging
 * step (a `LoggerManager`'s `getLogger("kit.application")`), or the
 * console when the application has no logging step.
 *
 * @example Usage
 * ```ts
 * import type { ApplicationLogger } from "@vendor/kit/platform";
 *
 * const logger: ApplicationLogger = {
 *   debug: () => {},
 *   info: (message) => console.log(message),
 *   warning: (message) => console.warn(message),
 *   error: (message) => console.error(message),
 * };
 * ```
 */
export interface ApplicationLogger {
  /** Writes a debug line. */
  debug(message: string, properties?: Record<string, unknown>): void;
  /** Writes an info line. */
  info(message: string, properties?: Record<string, unknown>): void;
  /** Writes a warning line. */
  warning(message: string, properties?: Record<string, unknown>): void;
  /** Writes an error line. */
  error(message: string, properties?: Record<string, unknown>): void;
  /**
   * Whether a level is written (optional): 0 debug, 1 info, 2 warning,
   * 3 error, as Kit's `LogLevel`. Without it, debug lines are passed on.
   */
  isEnabled?(level: 0 | 1 | 2 | 3): boolean;
}

/**
 * The four start-up steps and the shutdown deadline of an
 * {@linkcode Application}. Each step may be asynchronous; each is awaited
 * before the next begins.
 *
 * @typeParam TServices Names and types of the services, for a typed
 * `app.services`.
 * @typeParam TConfig What the configuration step builds.
 *
 * @example Usage
 * ```ts
 * import type { ApplicationOptions } from "@vendor/kit/platform";
 *
 * const options: ApplicationOptions = {
 *   configuration: () => ({ port: 3000 }),
 *   services: (services) => {
 *     services.register("clock", () => ({ now: () => Date.now() }));
 *   },
 *   shutdownTimeout: 5_000,
 * };
 * ```
 */
export interface ApplicationOptions<
  TServices extends object = ServiceMap,
  TConfig = unknown,
> {
  /**
   * Step 1: builds the configuration. It is registered as the factory of the
   * service `config` and created at once.
   */
  configuration: (
    services: ServiceLocator<TServices>,
  ) => TConfig | Promise<TConfig>;
  /**
   * Step 2: sets up logging from the configuration. What it returns is
   * registered as the service `logging`, disposed last at shutdown, and,
   * when it has `getLogger(category)`, receives the application's own lines
   * under the category `kit.application`.
   */
  logging?: (
    config: TConfig,
    services: ServiceLocator<TServices>,
  ) => unknown;
  /**
   * Step 3: registers the platform services (HTTP client, cache,
   * localization, analytics).
   */
  platform?: (
    services: ServiceLocator<TServices>,
    config: TConfig,
    app: Application<TServices>,
  ) => void | Promise<void>;
  /** Step 4: registers the application's own services. */
  services?: (
    services: ServiceLocator<TServices>,
    config: TConfig,
    app: Application<TServices>,
  ) => void | Promise<void>;
  /**
   * Makes the application an HTTP server: called once start-up is done
   * (after the eager and hosted services), it returns the Fetch handler
   * (Hono's `app.fetch` fits) that the host then serves, through
   * `app.handle`, on `Deno.serve`, `node:http` or `Bun.serve`. Without it
   * nothing listens.
   */
  serve?: (
    services: ServiceLocator<TServices>,
    config: TConfig,
    app: Application<TServices>,
  ) => ServeHandler | Promise<ServeHandler>;
  /** How the server of `serve` listens; see {@linkcode ServerOptions}. */
  server?: ServerOptions;
  /**
   * Milliseconds `stop()` may take in all; past it, what is still running is
   * abandoned and named in the report. Else the configuration key
   * `host:shutdownTimeout`, else 10,000.
   */
  shutdownTimeout?: number;
  /**
   * The locator the steps fill. Default: a new, isolated one (not the
   * process-wide `ServiceLocator.default`).
   */
  locator?: ServiceLocator<TServices>;
}

/**
 * What `app.stop()` resolves to: `ok` when everything stopped in time and
 * without an error; otherwise the names of what was abandoned at the
 * deadline and the errors thrown while stopping.
 *
 * @example Usage
 * ```ts
 * import type { ShutdownReport } from "@vendor/kit/platform";
 *
 * const report: ShutdownReport = { ok: true, timedOut: [], errors: [] };
 * ```
 */
export interface ShutdownReport {
  /** `true` when nothing timed out and nothing failed. */
  ok: boolean;
  /** Hosted services and services abandoned at the deadline. */
  timedOut: string[];
  /** Errors thrown by `stop()`/`dispose()` of hosted services and services. */
  errors: Error[];
}

/**
 * Options of `Application.run`: the start-up options, plus whether to end
 * the process when it is done.
 *
 * @typeParam TServices Names and types of the services.
 * @typeParam TConfig What the configuration step builds.
 *
 * @example Usage
 * ```ts
 * import type { ApplicationRunOptions } from "@vendor/kit/platform";
 *
 * const options: ApplicationRunOptions = {
 *   configuration: () => ({}),
 *   exit: false,
 * };
 * ```
 */
export interface ApplicationRunOptions<
  TServices extends object = ServiceMap,
  TConfig = unknown,
> extends ApplicationOptions<TServices, TConfig> {
  /**
   * End the process with the exit code (0, or 1 when start-up or shutdown
   * failed). With `false`, `run` resolves to the code instead, so tests and
   * embedders can call it again. Default `true`.
   */
  exit?: boolean;
}

/**
 * A Fetch-style request handler, with whatever extra arguments the server
 * passes after the request (Deno's connection info, Hono's environment).
 *
 * @typeParam A The extra arguments.
 *
 * @example Usage
 * ```ts
 * import type { FetchHandler } from "@vendor/kit/platform";
 *
 * const handler: FetchHandler<[]> = () => new Response("ok");
 * ```
 */
export type FetchHandler<A extends unknown[]> = (
  request: Request,
  ...args: A
) => Response | Promise<Response>;

/**
 * The handler `serve` returns: a Fetch-style handler. It also receives,
 * after the request, what the runtime passes there (Deno's connection info,
 * Bun's server; nothing on Node.js), as Hono's `app.fetch` expects.
 *
 * @example Usage
 * ```ts
 * import type { ServeHandler } from "@vendor/kit/platform";
 *
 * const handler: ServeHandler = () => new Response("ok");
 * ```
 */
export type ServeHandler = (
  request: Request,
) => Response | Promise<Response>;
