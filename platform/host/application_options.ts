import type { ServiceLocator } from "../locator/service_locator.ts";
import type {
  HostServices,
  ServiceMap,
  ServicesAddedBy,
} from "../locator/service_registration.ts";
import type { Application } from "./application.ts";
import type { ServerOptions } from "../server/server_options.ts";

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
  ) => unknown;
  /**
   * Step 4: registers the application's own services. What a registration
   * step returns is awaited and otherwise ignored here (a chain of
   * registrations types the services only when no map is given).
   */
  services?: (
    services: ServiceLocator<TServices>,
    config: TConfig,
    app: Application<TServices>,
  ) => unknown;
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
 * What a registration step may return: the locator it registered on
 * (chained registrations, which type the services that follow), or nothing.
 *
 * @typeParam R What the step returns.
 *
 * @example Usage
 * ```ts
 * import type { ServiceLocator, StepResult } from "@vendor/kit/platform";
 *
 * type Chained = StepResult<ServiceLocator<{ clock: Date }>>; // the locator
 * type Nothing = StepResult<void>; // void
 * const nothing: Nothing = undefined;
 * ```
 */
export type StepResult<R> = R extends
  | ServiceLocator<object>
  | void
  | undefined
  | Promise<ServiceLocator<object> | void | undefined> ? R
  : never;

/**
 * The service map of an application whose steps were typed by what they
 * return: the host's `config` and `logging`, then what the platform step
 * and the services step registered.
 *
 * @typeParam TConfig What the configuration step builds.
 * @typeParam TLogging What the logging step returns.
 * @typeParam TPlatform What the platform step returns.
 * @typeParam TServicesStep What the services step returns.
 *
 * @example Usage
 * ```ts
 * import type { ApplicationServices, ServiceLocator } from "@vendor/kit/platform";
 *
 * type Services = ApplicationServices<
 *   { port: number },
 *   undefined,
 *   ServiceLocator<{ clock: Date }>,
 *   unknown
 * >;
 * const clock: Services["clock"] = new Date();
 * ```
 */
export type ApplicationServices<TConfig, TLogging, TPlatform, TServicesStep> =
  & HostServices<TConfig, Awaited<TLogging>>
  & (unknown extends TPlatform
    // No registration step: services registered elsewhere (in step 1, or
    // on app.services) are untyped, as before.
    ? (unknown extends TServicesStep ? ServiceMap : unknown)
    : unknown)
  & ServicesAddedBy<TPlatform>
  & ServicesAddedBy<TServicesStep>;

/**
 * The locator a registration step receives: the services known so far are
 * typed, and any other name is allowed (returning `unknown`), so that a
 * step that registers with statements rather than a chain keeps compiling.
 * A chain of registrations made on it keeps only the typed names.
 *
 * @typeParam TServices The services known so far.
 *
 * @example Usage
 * ```ts
 * import type { StepLocator } from "@vendor/kit/platform";
 *
 * type Step = StepLocator<{ config: { port: number } }>;
 * ```
 */
export type StepLocator<TServices extends object> = ServiceLocator<
  TServices & ServiceMap
>;

/**
 * The start-up options of `Application.start` when no service map is
 * written by hand: each step that registers returns its chain of
 * registrations (`services.register("http", …).register("cache", …)`), and
 * the services it registered are typed in the steps that follow, in
 * `serve`, in other factories and in `app.services`. A name never
 * registered is a compile error. A step that returns nothing leaves the
 * names untyped (any string, as with the default map).
 *
 * @typeParam TConfig What the configuration step builds.
 * @typeParam TLogging What the logging step returns.
 * @typeParam TPlatform What the platform step returns.
 * @typeParam TServicesStep What the services step returns.
 *
 * @example Usage
 * ```ts
 * import { Application } from "@vendor/kit/platform";
 *
 * await using app = await Application.start({
 *   configuration: () => ({ greeting: "hello" }),
 *   services: (services, config) =>
 *     services.register("greeter", () => ({ greet: () => config.greeting })),
 * });
 * app.services.get("greeter").greet(); // "hello"
 * ```
 */
export interface InferredApplicationOptions<
  TConfig,
  TLogging,
  TPlatform,
  TServicesStep,
> {
  /** Step 1: builds the configuration (the service `config`). */
  configuration: (
    services: ServiceLocator<{ config: TConfig }>,
  ) => TConfig | Promise<TConfig>;
  /** Step 2: sets up logging (the service `logging`). */
  logging?: (
    config: TConfig,
    services: ServiceLocator<{ config: TConfig }>,
  ) => TLogging;
  /** Step 3: registers the platform services; returns the chain. */
  platform?: (
    services: StepLocator<HostServices<TConfig, Awaited<TLogging>>>,
    config: TConfig,
    app: Application<HostServices<TConfig, Awaited<TLogging>>>,
  ) => StepResult<TPlatform>;
  /** Step 4: registers the application's services; returns the chain. */
  services?: (
    services: StepLocator<
      ApplicationServices<TConfig, TLogging, TPlatform, unknown>
    >,
    config: TConfig,
    app: Application<
      ApplicationServices<TConfig, TLogging, TPlatform, unknown>
    >,
  ) => StepResult<TServicesStep>;
  /** Makes the application an HTTP server (see {@linkcode ApplicationOptions}). */
  serve?: (
    services: ServiceLocator<
      ApplicationServices<TConfig, TLogging, TPlatform, TServicesStep>
    >,
    config: TConfig,
    app: Application<
      ApplicationServices<TConfig, TLogging, TPlatform, TServicesStep>
    >,
  ) => ServeHandler | Promise<ServeHandler>;
  /** How the server of `serve` listens; see {@linkcode ServerOptions}. */
  server?: ServerOptions;
  /** Milliseconds `stop()` may take in all (see {@linkcode ApplicationOptions}). */
  shutdownTimeout?: number;
  /** The locator the steps fill. Default: a new, isolated one. */
  locator?: ServiceLocator<object>;
}

/**
 * The options of `Application.run` when no service map is written by hand
 * (see {@linkcode InferredApplicationOptions}), plus `exit`.
 *
 * @typeParam TConfig What the configuration step builds.
 * @typeParam TLogging What the logging step returns.
 * @typeParam TPlatform What the platform step returns.
 * @typeParam TServicesStep What the services step returns.
 *
 * @example Usage
 * ```ts
 * import type { InferredApplicationRunOptions } from "@vendor/kit/platform";
 *
 * const options: InferredApplicationRunOptions<{}, undefined, unknown, unknown> = {
 *   configuration: () => ({}),
 *   exit: false,
 * };
 * ```
 */
export interface InferredApplicationRunOptions<
  TConfig,
  TLogging,
  TPlatform,
  TServicesStep,
> extends
  InferredApplicationOptions<TConfig, TLogging, TPlatform, TServicesStep> {
  /** End the process with the exit code. Default `true`. */
  exit?: boolean;
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
