// What a ServiceLocator registers and returns: factories, lifetimes,
// registration options, the creation event, and the types of a typed service
// map. Apart from the locator's class so that its file holds behaviour (like
// application_options.ts for the application host).
import type { ServiceLocator } from "./service_locator.ts";

/**
 * The default service map of a {@linkcode ServiceLocator}: any name, each
 * service `unknown` until a type argument says what it is.
 */
export type ServiceMap = Record<string, unknown>;

/**
 * Creates a service. It receives the locator so it can `get` its own
 * dependencies; it may return the service or a promise for it (then ask for
 * the service with {@linkcode ServiceLocator.getAsync}).
 *
 * @typeParam T The type of the service.
 * @typeParam TServices The locator's map of names to service types.
 */
export type ServiceFactory<
  T = unknown,
  TServices extends object = ServiceMap,
> = (locator: ServiceLocator<TServices>) => T | Promise<T>;

/**
 * How long a service lives:
 * - `"singleton"` (the default): one instance, created on first request,
 *   disposed when the locator is (at the application's shutdown);
 * - `"scoped"`: one instance per scope (each request handled through
 *   `app.handle()`, or a scope made with `createScope()`), disposed when
 *   the scope ends;
 * - `"transient"`: a new instance on every request; the locator does not
 *   keep or dispose it (the code that asked for it owns it).
 *
 * @example Usage
 * ```ts
 * import type { ServiceLifetime } from "@vendor/kit/platform";
 *
 * const lifetime: ServiceLifetime = "scoped";
 * ```
 */
export type ServiceLifetime = "singleton" | "scoped" | "transient";

/**
 * How a service is registered.
 *
 * @example Usage
 * ```ts
 * import type { ServiceRegistrationOptions } from "@vendor/kit/platform";
 *
 * const options: ServiceRegistrationOptions = { eager: true };
 * ```
 */
export interface ServiceRegistrationOptions {
  /**
   * How long the service lives (see {@linkcode ServiceLifetime}). Default
   * `"singleton"`. A singleton or transient service cannot depend on a
   * scoped one (a {@linkcode ServiceLifetimeError} names both).
   */
  lifetime?: ServiceLifetime;
  /**
   * Create the service during the application's start-up (after its four
   * steps) instead of on first request, so a bad password or a missing file
   * fails start-up, naming the service, rather than the first request.
   * {@linkcode ServiceLocator.createEagerServices} does it for a locator used
   * without the application host. Default `false`.
   */
  eager?: boolean;
  /**
   * The service is a hosted service (it has `start(signal)` and `stop()`):
   * the application host creates it eagerly, starts it after the eager
   * services and stops it first at shutdown. Default `false`.
   */
  hosted?: boolean;
}

/**
 * What {@linkcode ServiceLocator.serviceCreated} dispatches: the name and
 * the new service, and how long its factory took.
 *
 * @example Usage
 * ```ts
 * import { ServiceLocator } from "@vendor/kit/platform";
 *
 * const locator = new ServiceLocator();
 * locator.serviceCreated.add(({ name, durationMs }) =>
 *   console.log(`${name} took ${durationMs.toFixed(1)} ms`)
 * );
 * ```
 */
export interface ServiceCreatedEvent {
  /** The service name. */
  readonly name: string;
  /** The service. */
  readonly service: unknown;
  /** How long its factory took, in milliseconds (until its promise settled). */
  readonly durationMs: number;
}

/**
 * The names a locator accepts: those of its service map, or any string for
 * the default map.
 *
 * @typeParam TServices The locator's map of names to service types.
 *
 * @example Usage
 * ```ts
 * import type { ServiceName } from "@vendor/kit/platform";
 *
 * const name: ServiceName<{ http: unknown }> = "http";
 * ```
 */
export type ServiceName<TServices extends object> = keyof TServices & string;

/**
 * The type `get` returns: the explicit type argument when one is given, else
 * the map's type for the name.
 *
 * @typeParam T The explicit type argument (`never` when not given).
 * @typeParam TServices The locator's map of names to service types.
 * @typeParam K The name.
 *
 * @example Usage
 * ```ts
 * import type { ResolvedService } from "@vendor/kit/platform";
 *
 * const port: ResolvedService<never, { port: number }, "port"> = 3000;
 * ```
 */
export type ResolvedService<
  T,
  TServices extends object,
  K extends ServiceName<TServices>,
> = [T] extends [never] ? TServices[K] : T;

/**
 * The service map after registering `T` under `K`, a name it did not have
 * (see {@linkcode NewServiceName}): the name now has that type, and the map
 * keeps only the names it declares (a chain that starts from a map taking
 * any string ends with the names it registered). Registering under a name
 * only known as a `string` changes nothing. An intersection, so that fifty
 * registrations in a row stay one flat type.
 *
 * @typeParam TServices The map before.
 * @typeParam K The name registered.
 * @typeParam T The type of the service.
 *
 * @example Usage
 * ```ts
 * import type { WithService } from "@vendor/kit/platform";
 *
 * type After = WithService<{ config: { port: number } }, "clock", Date>;
 * const clock: After["clock"] = new Date();
 * ```
 */
export type WithService<
  TServices extends object,
  K extends string,
  T,
> = string extends K ? TServices
  : string extends keyof TServices
    ? DeclaredServices<TServices> & { [P in K]: T }
  : TServices & { [P in K]: T };

/**
 * The names a map declares, without the "any string" of a loose map (the
 * default `ServiceMap`, or a start-up step's locator): what a chain of
 * registrations starting from such a map keeps.
 *
 * @typeParam TServices The map.
 *
 * @example Usage
 * ```ts
 * import type { DeclaredServices, ServiceMap } from "@vendor/kit/platform";
 *
 * type Declared = DeclaredServices<{ config: { port: number } } & ServiceMap>;
 * const config: Declared["config"] = { port: 3000 };
 * ```
 */
export type DeclaredServices<TServices extends object> = {
  [K in keyof TServices as string extends K ? never : K]: TServices[K];
};

/**
 * A name `register` may give a new type: any name of a map that takes any
 * string (the default), or a name a declared map does not have yet; `never`
 * for a declared name, whose factory must then return its declared type.
 *
 * @typeParam TServices The locator's map.
 * @typeParam K The name.
 *
 * @example Usage
 * ```ts
 * import type { NewServiceName } from "@vendor/kit/platform";
 *
 * const name: NewServiceName<{ config: unknown }, "clock"> = "clock";
 * ```
 */
export type NewServiceName<TServices extends object, K extends string> =
  K extends keyof TServices ? (string extends keyof TServices ? K : never)
    : K;

/**
 * What a start-up step added to the service map, read from what it
 * returned: the map of the locator it returned (`services.register(…)
 * .register(…)`), any name (the map of old, untyped) when it returned
 * nothing, and nothing when there is no such step.
 *
 * @typeParam R What the step returned (`unknown` when there is none).
 *
 * @example Usage
 * ```ts
 * import type { ServiceLocator, ServicesAddedBy } from "@vendor/kit/platform";
 *
 * type Added = ServicesAddedBy<ServiceLocator<{ clock: Date }>>;
 * const clock: Added["clock"] = new Date();
 * ```
 */
export type ServicesAddedBy<R> = unknown extends R ? Record<never, never>
  : Awaited<R> extends ServiceLocator<infer TAdded> ? TAdded
  : ServiceMap;

/**
 * The services the application host registers itself: `config` (what the
 * configuration step built) and `logging` (what the logging step returned).
 *
 * @typeParam TConfig What the configuration step builds.
 * @typeParam TLogging What the logging step returns.
 *
 * @example Usage
 * ```ts
 * import type { HostServices } from "@vendor/kit/platform";
 *
 * const services: HostServices<{ port: number }, undefined> = {
 *   config: { port: 3000 },
 *   logging: undefined,
 * };
 * ```
 */
export type HostServices<TConfig, TLogging> = {
  config: TConfig;
  logging: TLogging;
};
