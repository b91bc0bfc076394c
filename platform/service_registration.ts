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
