import { isPromiseLike } from "../core/mod.ts";
import { AsyncServiceError } from "./async_service_error.ts";
import { CircularDependencyError } from "./circular_dependency_error.ts";
import { ServiceNotFoundError } from "./service_not_found_error.ts";
import { ServiceCreationError } from "./service_creation_error.ts";
import { Signal } from "./signal.ts";
import { disposeValue, isDisposable } from "./_dispose.ts";
import { type CreatedService, locatorHooks } from "./_locator_hooks.ts";
import { suggest } from "./_suggest.ts";
import { RequestContext } from "./request_context.ts";
import { ServiceLifetimeError } from "./service_lifetime_error.ts";
import type { ServiceScope } from "./service_scope.ts";
import { currentScope, Scope, ScopeHandle, scopeOfContext } from "./_scope.ts";

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

const LIFETIMES: readonly string[] = ["singleton", "scoped", "transient"];

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

// Everything a locator knows. Factories receive a view of the same state that
// also carries the chain of services being created, so cycles through async
// factories are caught too.
class LocatorState {
  readonly factories = new Map<string, ServiceFactory>();
  // The names registered as scoped or transient (singletons are absent).
  readonly lifetimes = new Map<string, "scoped" | "transient">();
  // Names registered with { eager } or { hosted }, in registration order.
  readonly eager = new Map<string, ServiceRegistrationOptions>();
  readonly serviceCreated = new Signal<ServiceCreatedEvent>();
  readonly instances = new Map<string, unknown>();
  readonly pending = new Map<string, Promise<unknown>>();
  // Services this locator created (not registered instances), in creation
  // order: disposal walks it backwards.
  created: { name: string; value: unknown }[] = [];
  // Names whose factories are running synchronously right now, outermost first.
  readonly resolving: string[] = [];
  // Set when the application host stopped: creations are refused.
  closed: string | undefined;
  // Aborted when the application stops: scopes pass it to dispose(options).
  #stopping: AbortController | undefined;

  stopSignal = (): AbortSignal =>
    (this.#stopping ??= new AbortController()).signal;

  close(reason: string): void {
    this.closed = reason;
    this.#stopping?.abort(new Error(reason));
  }
}

/**
 * A named registry of lazily created singletons.
 *
 * Register a factory under a name; the service is created on the first
 * `get` and the same instance is returned afterwards (or one per scope, or
 * a new one each time: see {@linkcode ServiceRegistrationOptions.lifetime}).
 * Static methods, as application code usually writes them
 * (`ServiceLocator.get<ConfigurationManager>('config')`), read the services
 * of the running application (see {@linkcode ServiceLocator.default});
 * `new ServiceLocator()` gives an isolated one for tests.
 *
 * Creation is guarded: a cycle of factories throws
 * {@linkcode CircularDependencyError} naming the chain; a factory that throws
 * or rejects is not cached, so the next request tries again; concurrent
 * `getAsync` calls share one creation. `dispose()` (or `await using`) disposes
 * what the locator created, newest first.
 *
 * An optional map of names to types makes names and types checked:
 * `new ServiceLocator<{ http: HttpClient }>()` gives an `HttpClient` from
 * `get("http")` with no type argument, and an unknown name is a type error.
 * `get<T>(name)` keeps working either way.
 *
 * @typeParam TServices Names and types of the services (any name, each
 * `unknown`, by default).
 *
 * @example Usage
 * ```ts
 * import { ServiceLocator } from "@vendor/kit/platform";
 *
 * class Database {
 *   constructor(readonly url: string) {}
 * }
 * class UserService {
 *   constructor(readonly db: Database) {}
 * }
 *
 * const locator = new ServiceLocator();
 * locator.register("db", () => new Database("postgres://localhost/app"));
 * locator.register("users", (l) => new UserService(l.get<Database>("db")));
 *
 * const users = locator.get<UserService>("users");
 * console.log(users.db.url);
 * ```
 *
 * @example The default locator
 * ```ts
 * import { ServiceLocator } from "@vendor/kit/platform";
 *
 * ServiceLocator.register("clock", () => ({ now: () => Date.now() }));
 * const clock = ServiceLocator.get<{ now(): number }>("clock");
 * clock.now();
 * ServiceLocator.reset();
 * ```
 */
export class ServiceLocator<TServices extends object = ServiceMap> {
  // Created on first use: a static initializer that constructs the class
  // itself trips the CommonJS/ESM transpilers of the npm build.
  static #defaultLocator: ServiceLocator | undefined;
  // The locators of the applications started and not stopped yet, oldest
  // first: the static methods act on the newest.
  static #running: ServiceLocator[] = [];

  #state: LocatorState = new LocatorState();
  #path: readonly string[] = [];
  // The scope a view resolves scoped services from (a scope's own view, and
  // the views handed to scoped factories); else the current context's.
  #scope: Scope | undefined;

  /**
   * Creates an empty locator.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator<{ port: number }>();
   * locator.registerInstance("port", 3000);
   * const port: number = locator.get("port");
   * ```
   */
  constructor() {
    locatorHooks.set(this, {
      takeCreated: (): CreatedService[] => this.#takeCreated(),
      close: (reason: string): void => {
        this.#state.close(reason);
        const running = ServiceLocator.#running;
        const index = running.lastIndexOf(this as ServiceLocator);
        if (index >= 0) running.splice(index, 1);
      },
      open: (): void => {
        ServiceLocator.#running.push(this as ServiceLocator);
      },
    });
  }

  /**
   * The process-wide locator of the static methods. `register`,
   * `registerInstance`, `unregister`, `dispose` and `reset` always act on
   * it. While an application started with `Application.start` or
   * `Application.run` runs (the newest, when several do), `get`, `getAsync`
   * and `has` read that application's services first, and this locator for
   * names only it knows; once the application stops, this one again.
   */
  static get default(): ServiceLocator {
    return ServiceLocator.#defaultLocator ??= new ServiceLocator();
  }

  // Where the static reads look for `name`: the running application's
  // locator, unless only the process-wide default knows the name (registered
  // there with the static methods, before the application started).
  static #for(name: string): ServiceLocator {
    const app = ServiceLocator.#running.at(-1);
    if (app === undefined) return ServiceLocator.default;
    const own = ServiceLocator.#defaultLocator;
    return own !== undefined && !app.has(name) && own.has(name) ? own : app;
  }

  /**
   * Registers a factory on the default locator.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @param factory Creates the service on first request.
   * @returns The default locator.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * ServiceLocator.register("config", () => ({ env: "test" }));
   * ServiceLocator.reset();
   * ```
   */
  static register<T>(name: string, factory: ServiceFactory<T>): ServiceLocator {
    return ServiceLocator.default.register(name, factory);
  }

  /**
   * Registers an existing value on the default locator.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @param instance The service itself.
   * @returns The default locator.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * ServiceLocator.registerInstance("answer", 42);
   * ServiceLocator.get<number>("answer"); // 42
   * ServiceLocator.reset();
   * ```
   */
  static registerInstance<T>(name: string, instance: T): ServiceLocator {
    return ServiceLocator.default.registerInstance(name, instance);
  }

  /**
   * Returns a service of the default locator, creating it on first request.
   *
   * @typeParam T The type of the service (pass it: without it the result is
   * `unknown`).
   * @param name The service name.
   * @returns The service.
   * @throws {ServiceNotFoundError} When nothing is registered under `name`.
   * @throws {CircularDependencyError} When creating it needs itself.
   * @throws {AsyncServiceError} When its factory is asynchronous and it is not
   * created yet.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * ServiceLocator.register("greeting", () => "hello");
   * ServiceLocator.get<string>("greeting"); // "hello"
   * ServiceLocator.reset();
   * ```
   */
  static get<T = unknown>(name: string): T {
    try {
      return ServiceLocator.#for(name).get(name) as T;
    } catch (error) {
      throw ServiceLocator.#explained(error);
    }
  }

  // A name unknown to the standalone default locator most often means the
  // call ran before Application.start or after stop: say so.
  static #explained(error: unknown): unknown {
    if (
      error instanceof ServiceNotFoundError &&
      ServiceLocator.#running.length === 0 && error.creating.length === 0
    ) {
      error.message += "\nNo application is running: the static " +
        "ServiceLocator methods read the services of the application started " +
        "with Application.start or Application.run until it stops. Call " +
        "them while it runs, use app.services, or register the service " +
        "with ServiceLocator.register.";
    }
    return error;
  }

  /**
   * Returns a service of the default locator, awaiting an asynchronous
   * factory.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @returns A promise for the service.
   * @throws {ServiceNotFoundError} When nothing is registered under `name`.
   * @throws {CircularDependencyError} When creating it needs itself.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * ServiceLocator.register("db", async () => ({ ready: true }));
   * const db = await ServiceLocator.getAsync<{ ready: boolean }>("db");
   * ServiceLocator.reset();
   * ```
   */
  static async getAsync<T = unknown>(name: string): Promise<T> {
    try {
      return await ServiceLocator.#for(name).getAsync(name) as T;
    } catch (error) {
      throw ServiceLocator.#explained(error);
    }
  }

  /**
   * Tells whether the default locator knows a name.
   *
   * @param name The service name.
   * @returns `true` when a factory or an instance is registered under it.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * ServiceLocator.has("nothing"); // false
   * ```
   */
  static has(name: string): boolean {
    return ServiceLocator.#for(name).has(name);
  }

  /**
   * Removes a registration from the default locator.
   *
   * @param name The service name.
   * @returns `true` when something was registered under it.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * ServiceLocator.register("temp", () => 1);
   * ServiceLocator.unregister("temp"); // true
   * ```
   */
  static unregister(name: string): boolean {
    return ServiceLocator.default.unregister(name);
  }

  /**
   * Disposes the services the default locator created (see
   * {@linkcode ServiceLocator.prototype.dispose}).
   *
   * @returns A promise that settles when every service had its turn.
   * @throws {AggregateError} When one or more services failed to dispose.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * await ServiceLocator.dispose();
   * ```
   */
  static dispose(): Promise<void> {
    return ServiceLocator.default.dispose();
  }

  /**
   * Replaces the default locator with an empty one. Nothing is disposed:
   * call {@linkcode ServiceLocator.dispose} first when services own resources.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * ServiceLocator.register("x", () => 1);
   * ServiceLocator.reset();
   * ServiceLocator.has("x"); // false
   * ```
   */
  static reset(): void {
    ServiceLocator.#defaultLocator = new ServiceLocator();
  }

  /**
   * Registers a lazily created service: a singleton unless `options.lifetime`
   * says otherwise. Registering a name again replaces the registration and
   * forgets a singleton created from the old one.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @param factory Creates the service on first request; it receives this
   * locator to get its dependencies.
   * @param options Its lifetime; whether it is eager or hosted.
   * @returns This locator, for chaining.
   * @throws {TypeError} When `factory` is not a function, `lifetime` is not
   * one of the three, or a scoped or transient service is eager or hosted.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator()
   *   .register("a", () => 1)
   *   .register("b", (l) => l.get<number>("a") + 1);
   * locator.get<number>("b"); // 2
   * ```
   */
  register<
    T = never,
    K extends ServiceName<TServices> = ServiceName<TServices>,
  >(
    name: K,
    factory: ServiceFactory<
      ResolvedService<NoInfer<T>, TServices, K>,
      TServices
    >,
    options?: ServiceRegistrationOptions,
  ): this {
    if (typeof factory !== "function") {
      throw new TypeError(
        `ServiceLocator.register('${name}'): the factory must be a function`,
      );
    }
    const lifetime = options?.lifetime ?? "singleton";
    if (!LIFETIMES.includes(lifetime)) {
      throw new TypeError(
        `ServiceLocator.register('${name}'): lifetime must be "singleton", "scoped" or "transient", not ${
          JSON.stringify(lifetime)
        }`,
      );
    }
    const eager = options?.eager === true || options?.hosted === true;
    if (eager && lifetime !== "singleton") {
      throw new TypeError(
        `ServiceLocator.register('${name}'): a ${lifetime} service cannot be eager or hosted (only a singleton can be created at start-up)`,
      );
    }
    const state = this.#state;
    state.instances.delete(name);
    state.pending.delete(name);
    state.factories.set(name, factory as unknown as ServiceFactory);
    state.eager.delete(name);
    if (lifetime === "singleton") state.lifetimes.delete(name);
    else state.lifetimes.set(name, lifetime);
    if (eager) state.eager.set(name, { ...options });
    return this;
  }

  /**
   * Creates every service registered with `{ eager: true }` or
   * `{ hosted: true }` that is not created yet, one after the other in
   * registration order, awaiting async factories. The application host calls
   * it after its four start-up steps; call it yourself when you use a locator
   * without the host.
   *
   * @returns A promise that resolves when every eager service exists.
   * @throws {ServiceCreationError} Naming the first service whose factory
   * threw or rejected (its error is the `cause`).
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator();
   * locator.register("db", async () => ({ ready: true }), { eager: true });
   * await locator.createEagerServices();
   * locator.get<{ ready: boolean }>("db").ready; // true
   * ```
   */
  async createEagerServices(): Promise<void> {
    for (const name of [...this.#state.eager.keys()]) {
      try {
        await this.getAsync(name as ServiceName<TServices>);
      } catch (error) {
        throw new ServiceCreationError(name, error);
      }
    }
  }

  /**
   * The names registered with `{ eager: true }` or `{ hosted: true }`, in
   * registration order, with their options.
   *
   * @returns Each name and the options it was registered with.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator();
   * locator.register("worker", () => ({}), { hosted: true });
   * locator.eagerServices(); // [["worker", { hosted: true }]]
   * ```
   */
  eagerServices(): [string, ServiceRegistrationOptions][] {
    return [...this.#state.eager].map(([name, options]) => [name, {
      ...options,
    }]);
  }

  /**
   * Dispatched each time this locator creates a singleton (a factory's
   * value, not a registered instance, nor a scoped or transient service),
   * after the factory returned or its promise resolved. The application
   * host logs these lines with `KIT_LOG_LEVEL=debug` and picks up services
   * that have a `checkHealth()` method.
   *
   * @returns The signal; `add` returns a function that detaches the handler.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator();
   * const names: string[] = [];
   * locator.serviceCreated.add((event) => {
   *   names.push(event.name);
   * });
   * locator.register("a", () => 1).get("a");
   * names; // ["a"]
   * ```
   */
  get serviceCreated(): Signal<ServiceCreatedEvent> {
    return this.#state.serviceCreated;
  }

  /**
   * Registers an existing value. The locator does not own it: `dispose()`
   * leaves it alone.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @param instance The service itself.
   * @returns This locator, for chaining.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator().registerInstance("port", 3000);
   * locator.get<number>("port"); // 3000
   * ```
   */
  registerInstance<
    T = never,
    K extends ServiceName<TServices> = ServiceName<TServices>,
  >(name: K, instance: ResolvedService<T, TServices, K>): this {
    const state = this.#state;
    state.factories.delete(name);
    state.lifetimes.delete(name);
    state.eager.delete(name);
    state.pending.delete(name);
    state.instances.set(name, instance);
    return this;
  }

  /**
   * Returns a service, creating it on first request.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @returns The service.
   * @throws {ServiceNotFoundError} When nothing is registered under `name`.
   * @throws {CircularDependencyError} When creating it needs itself.
   * @throws {AsyncServiceError} When its factory is asynchronous and it is not
   * created yet.
   * @throws {ServiceLifetimeError} When it is scoped and there is no scope
   * (outside a request or `createScope()`), or a singleton or transient
   * service depends on it.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator();
   * locator.register("list", () => [1, 2, 3]);
   * locator.get<number[]>("list") === locator.get<number[]>("list"); // true
   * ```
   */
  get<T = never, K extends ServiceName<TServices> = ServiceName<TServices>>(
    name: K,
  ): ResolvedService<T, TServices, K> {
    const instance = this.#state.instances.get(name);
    if (instance !== undefined) {
      return instance as ResolvedService<T, TServices, K>;
    }
    // A scoped service already made in this scope: one more Map lookup.
    const scope = this.#scope ?? currentScope(this.#state);
    if (scope !== undefined) {
      const scoped = scope.instances.get(name);
      if (scoped !== undefined) {
        return scoped as ResolvedService<T, TServices, K>;
      }
    }
    const lifetime = this.#state.lifetimes.get(name);
    if (lifetime !== undefined) {
      return this.#other(name, lifetime, false) as ResolvedService<
        T,
        TServices,
        K
      >;
    }
    return this.#create(name) as ResolvedService<T, TServices, K>;
  }

  /**
   * Returns a service, awaiting its factory when that returns a promise.
   * Concurrent first requests share one creation; a failed creation is not
   * cached.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @returns A promise for the service.
   * @throws {ServiceNotFoundError} When nothing is registered under `name`.
   * @throws {CircularDependencyError} When creating it needs itself.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator();
   * locator.register("config", async () => ({ port: 3000 }));
   * const [a, b] = await Promise.all([
   *   locator.getAsync("config"),
   *   locator.getAsync("config"),
   * ]);
   * a === b; // true
   * ```
   */
  async getAsync<
    T = never,
    K extends ServiceName<TServices> = ServiceName<TServices>,
  >(
    name: K,
  ): Promise<ResolvedService<T, TServices, K>> {
    type R = ResolvedService<T, TServices, K>;
    const state = this.#state;
    const instance = state.instances.get(name);
    if (instance !== undefined || state.instances.has(name)) {
      return instance as R;
    }
    const lifetime = state.lifetimes.get(name);
    if (lifetime !== undefined) {
      return await this.#other(name, lifetime, true) as R;
    }
    const pending = state.pending.get(name);
    if (pending !== undefined) {
      if (this.#path.includes(name)) {
        throw new CircularDependencyError([...this.#path, name]);
      }
      return await pending as R;
    }
    const result = this.#run(name);
    if (!isPromiseLike(result)) return result as R;
    return await this.#track(name, result) as R;
  }

  /**
   * Tells whether a name is registered.
   *
   * @param name The service name.
   * @returns `true` when a factory or an instance is registered under it.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator().register("a", () => 1);
   * locator.has("a"); // true
   * locator.has("b"); // false
   * ```
   */
  has(name: string): boolean {
    return this.#state.factories.has(name) || this.#state.instances.has(name);
  }

  /**
   * Removes a registration and forgets its instance (without disposing it).
   *
   * @param name The service name.
   * @returns `true` when something was registered under it.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator().register("a", () => 1);
   * locator.unregister("a"); // true
   * locator.unregister("a"); // false
   * ```
   */
  unregister(name: string): boolean {
    const state = this.#state;
    const known = this.has(name);
    state.factories.delete(name);
    state.lifetimes.delete(name);
    state.eager.delete(name);
    state.instances.delete(name);
    state.pending.delete(name);
    state.created = state.created.filter((entry) => entry.name !== name);
    return known;
  }

  /**
   * Makes a scope by hand, for work that is not a request through
   * `app.handle()` (which makes one per request): a queue message, a
   * scheduled job. Each scoped service is created once in it and disposed,
   * newest first, when the scope is; `await using` disposes it at the end
   * of the block. `scope.run(fn)` makes it current for `services.get()`
   * calls inside `fn`.
   *
   * @returns The scope.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const services = new ServiceLocator();
   * services.register("unitOfWork", () => ({ dispose: () => {} }), {
   *   lifetime: "scoped",
   * });
   * async function onMessage(): Promise<void> {
   *   await using scope = services.createScope();
   *   scope.get("unitOfWork");
   * } // disposed here
   * await onMessage();
   * ```
   */
  createScope(): ServiceScope<TServices> {
    const state = this.#state;
    const scope = new Scope(state, "disposed", state.stopSignal);
    const view = new ServiceLocator<TServices>();
    view.#state = state;
    view.#scope = scope;
    return new ScopeHandle(scope, view);
  }

  /**
   * Disposes every service this locator created, newest first, calling
   * `[Symbol.asyncDispose]`, `[Symbol.dispose]` or `dispose()` where present.
   * Creations still in flight are awaited first. Every service gets its turn
   * even when one fails; failures are collected into one `AggregateError`.
   * Registrations stay, so a later `get` creates a fresh instance.
   *
   * @returns A promise that settles when every service had its turn.
   * @throws {AggregateError} When one or more services failed to dispose.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator();
   * locator.register("conn", () => ({ dispose: () => console.log("closed") }));
   * locator.get("conn");
   * await locator.dispose(); // logs "closed"
   * ```
   */
  async dispose(): Promise<void> {
    const state = this.#state;
    while (state.pending.size > 0) {
      await Promise.allSettled([...state.pending.values()]);
    }
    const created = this.#takeCreated();
    const errors: unknown[] = [];
    const failed: string[] = [];
    for (let i = created.length - 1; i >= 0; i--) {
      const { name, value } = created[i];
      try {
        await disposeValue(value);
      } catch (error) {
        errors.push(error);
        failed.push(name);
      }
    }
    if (errors.length > 0) {
      throw new AggregateError(
        errors,
        `Failed to dispose ${errors.length} service(s): ${failed.join(", ")}`,
      );
    }
  }

  /**
   * The same as {@linkcode ServiceLocator.prototype.dispose}, so that
   * `await using locator = new ServiceLocator()` disposes at scope end.
   *
   * @returns A promise that settles when every service had its turn.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  // Hands over (and forgets) what this locator created, oldest first.
  #takeCreated(): CreatedService[] {
    const state = this.#state;
    const created = state.created;
    state.created = [];
    for (const { name, value } of created) {
      if (state.instances.get(name) === value) state.instances.delete(name);
    }
    return created;
  }

  #create(name: string): unknown {
    const state = this.#state;
    if (state.instances.has(name)) return state.instances.get(name);
    if (state.pending.has(name)) {
      if (this.#path.includes(name)) {
        throw new CircularDependencyError([...this.#path, name]);
      }
      throw new AsyncServiceError(name);
    }
    const result = this.#run(name);
    if (!isPromiseLike(result)) return result;
    // An async factory reached through get(): keep the creation going so a
    // getAsync() shares it, and tell the caller to await it.
    this.#track(name, result).catch(() => {});
    throw new AsyncServiceError(name);
  }

  // Runs the factory of `name` synchronously with cycle detection. A plain
  // result is stored; a promise is returned for the caller to track.
  #run(name: string): unknown {
    const state = this.#state;
    const factory = state.factories.get(name);
    if (factory === undefined) {
      // The services being created when this one was asked for: through the
      // locator handed to the factory (async factories too), else the
      // synchronous creations under way.
      const creating = this.#path.length > 0 ? this.#path : state.resolving;
      throw new ServiceNotFoundError(
        name,
        suggest(name, [...state.factories.keys(), ...state.instances.keys()]),
        creating,
      );
    }
    const started = performance.now();
    // Outside the caller's request context (and span): a singleton outlives
    // the request that happened to create it, and its timers and callbacks
    // must not carry that request's id.
    const result = this.#invoke(
      name,
      () => RequestContext.detach(() => factory(this.#scoped(name))),
    );
    if (!isPromiseLike(result)) this.#store(name, result, factory, started);
    else this.#started.set(result, started);
    return result;
  }

  // Calls a factory (through `call`) with cycle detection, unless the
  // application has stopped.
  #invoke(name: string, call: () => unknown): unknown {
    const state = this.#state;
    if (state.resolving.includes(name)) {
      throw new CircularDependencyError([...state.resolving, name]);
    }
    if (state.closed !== undefined) {
      throw new Error(`Service '${name}' cannot be created: ${state.closed}`);
    }
    state.resolving.push(name);
    try {
      return call();
    } finally {
      state.resolving.pop();
    }
  }

  // When each async factory's promise was started, for serviceCreated.
  #started = new WeakMap<object, number>();

  #track(name: string, result: PromiseLike<unknown>): Promise<unknown> {
    const state = this.#state;
    const factory = state.factories.get(name);
    const started = this.#started.get(result) ?? performance.now();
    const promise: Promise<unknown> = Promise.resolve(result).then(
      (value) => {
        if (state.pending.get(name) === promise) {
          state.pending.delete(name);
          this.#store(name, value, factory, started);
        }
        return value;
      },
      (error: unknown) => {
        if (state.pending.get(name) === promise) state.pending.delete(name);
        throw error;
      },
    );
    state.pending.set(name, promise);
    return promise;
  }

  #store(
    name: string,
    value: unknown,
    factory: ServiceFactory | undefined,
    started: number,
  ): void {
    const state = this.#state;
    // A registration replaced while its factory ran does not get the old value.
    if (state.factories.get(name) !== factory) return;
    state.instances.set(name, value);
    if (isDisposable(value)) state.created.push({ name, value });
    if (state.serviceCreated.size > 0) {
      state.serviceCreated.dispatch({
        name,
        service: value,
        durationMs: performance.now() - started,
      });
    }
  }

  #scoped(name: string, scope?: Scope): ServiceLocator<TServices> {
    const view = new ServiceLocator<TServices>();
    view.#state = this.#state;
    view.#path = [...this.#path, name];
    view.#scope = scope;
    return view;
  }

  // A scoped or transient service. `wait`: a promise from an async factory
  // is returned (getAsync) instead of an AsyncServiceError (get).
  #other(
    name: string,
    lifetime: "scoped" | "transient",
    wait: boolean,
  ): unknown {
    const state = this.#state;
    let scope: Scope | undefined;
    if (lifetime === "scoped") {
      // The service being created that asks for this one, if any: through
      // the locator its factory received, else the synchronous creations.
      const dependent = this.#path.at(-1) ?? state.resolving.at(-1);
      if (dependent !== undefined) {
        const kind = state.lifetimes.get(dependent) ?? "singleton";
        if (kind !== "scoped") {
          throw new ServiceLifetimeError("captive", name, {
            name: dependent,
            lifetime: kind,
          });
        }
      }
      const found = this.#scope ??
        scopeOfContext(state, state.stopSignal);
      if (typeof found === "string") {
        throw new ServiceLifetimeError(found, name);
      }
      if (found.disposed) throw new ServiceLifetimeError(found.ended, name);
      scope = found;
      const instance = scope.instances.get(name);
      if (instance !== undefined || scope.instances.has(name)) return instance;
      const pending = scope.pending.get(name);
      if (pending !== undefined) {
        if (this.#path.includes(name)) {
          throw new CircularDependencyError([...this.#path, name]);
        }
        if (wait) return pending;
        throw new AsyncServiceError(name);
      }
    }
    const factory = state.factories.get(name)!;
    // In the caller's context: the service belongs to it. Its factory
    // resolves scoped dependencies from the same scope.
    const result = this.#invoke(
      name,
      () => factory(this.#scoped(name, scope ?? this.#scope)),
    );
    if (!isPromiseLike(result)) {
      scope?.store(name, result);
      return result;
    }
    let promise: Promise<unknown> = Promise.resolve(result);
    if (scope !== undefined) {
      const owner = scope;
      promise = promise.then(
        (value) => {
          if (owner.pending.get(name) === promise) {
            owner.pending.delete(name);
            owner.store(name, value);
          }
          return value;
        },
        (error: unknown) => {
          if (owner.pending.get(name) === promise) owner.pending.delete(name);
          throw error;
        },
      );
      owner.pending.set(name, promise);
    }
    if (wait) return promise;
    promise.catch(() => {});
    throw new AsyncServiceError(name);
  }
}
