// Longer than ~600 lines (about 730), for a reason: about 430 of them are
// the JSDoc and examples of the public API (the class, 9 static and 13
// instance members, each with an example), which stay with the class; its
// code is about 260 lines. It is a façade: the registry and its checks are in
// _locator_state.ts, the creation of singletons and cycle detection in
// _resolution.ts, the scoped and transient lifetimes in _lifetimes.ts, which
// locator the static methods read in _running_locators.ts, disposal in
// _locator_disposal.ts, scopes in _scope.ts, the public types in
// service_registration.ts. The paths of `get` that find a service already
// created stay here, inline: they are the hot path.
import { isPromiseLike } from "../../core/mod.ts";
import { CircularDependencyError } from "./circular_dependency_error.ts";
import { ServiceCreationError } from "./service_creation_error.ts";
import type { Signal } from "../signal.ts";
import { disposeCreated, takeCreated } from "./_locator_disposal.ts";
import { type CreatedService, locatorHooks } from "./_locator_hooks.ts";
import { LocatorState } from "./_locator_state.ts";
import { resolveScopedOrTransient } from "./_lifetimes.ts";
import {
  closeRunning,
  explainNotRunning,
  newestRunning,
  openRunning,
} from "./_running_locators.ts";
import {
  createSingleton,
  type LocatorViews,
  runFactory,
  trackCreation,
} from "./_resolution.ts";
import { ServiceNotFoundError } from "./service_not_found_error.ts";
import { suggest } from "./_suggest.ts";
import type { ServiceScope } from "./service_scope.ts";
import { currentScope, Scope, ScopeHandle } from "./_scope.ts";
import type {
  NewServiceName,
  ResolvedService,
  ServiceCreatedEvent,
  ServiceFactory,
  ServiceMap,
  ServiceName,
  ServiceRegistrationOptions,
  WithService,
} from "./service_registration.ts";

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
      takeCreated: (): CreatedService[] => takeCreated(this.#state),
      close: (reason: string): void => {
        this.#state.close(reason);
        closeRunning(this);
      },
      open: (): void => openRunning(this),
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
    const app = newestRunning<ServiceLocator>();
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
      throw explainNotRunning(error);
    }
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
      throw explainNotRunning(error);
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
   * The locator it returns is this one, typed with the new service: chain
   * the registrations (and return the chain from a start-up step) and
   * `get(name)` knows each one's type, with no map written by hand; a name
   * never registered is then a compile error. A name the locator's declared
   * map already has must get a factory of its declared type.
   *
   * @typeParam K The service name.
   * @typeParam R What the factory returns (a promise's value is the
   * service).
   * @param name The service name.
   * @param factory Creates the service on first request; it receives this
   * locator to get its dependencies.
   * @param options Its lifetime; whether it is eager or hosted.
   * @returns This locator, for chaining, typed with the new service.
   * @throws {TypeError} When `factory` is not a function, `lifetime` is not
   * one of the three, or a scoped or transient service is eager or hosted.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator()
   *   .register("a", () => 1)
   *   .register("b", (l) => l.get("a") + 1);
   * locator.get("b"); // 2, typed as a number
   * ```
   */
  register<K extends string, R>(
    name: K & NewServiceName<TServices, K>,
    factory: (locator: ServiceLocator<TServices>) => R,
    options?: ServiceRegistrationOptions,
  ): ServiceLocator<WithService<TServices, K, Awaited<R>>>;
  /**
   * Registers a lazily created service under a name of the locator's
   * declared map, or with the service's type given: its factory must return
   * that type.
   *
   * @typeParam T The type of the service.
   * @typeParam K The service name.
   * @param name The service name.
   * @param factory Creates the service on first request.
   * @param options Its lifetime; whether it is eager or hosted.
   * @returns This locator, for chaining.
   * @throws {TypeError} When `factory` is not a function, `lifetime` is not
   * one of the three, or a scoped or transient service is eager or hosted.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator<{ port: number }>();
   * locator.register("port", () => 3000);
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
  ): this;
  register(
    name: string,
    factory: ServiceFactory<unknown, TServices>,
    options?: ServiceRegistrationOptions,
  ): unknown {
    this.#state.register(
      name,
      factory as unknown as ServiceFactory,
      options,
    );
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
   * leaves it alone. The locator it returns is this one, typed with the new
   * service, as for {@linkcode ServiceLocator.register}.
   *
   * @typeParam K The service name.
   * @typeParam T The type of the service.
   * @param name The service name.
   * @param instance The service itself.
   * @returns This locator, for chaining, typed with the new service.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator().registerInstance("port", 3000);
   * locator.get("port"); // 3000, typed as a number
   * ```
   */
  registerInstance<K extends string, T>(
    name: K & NewServiceName<TServices, K>,
    instance: T,
  ): ServiceLocator<WithService<TServices, K, T>>;
  /**
   * Registers an existing value under a name of the locator's declared
   * map, or with the service's type given.
   *
   * @typeParam T The type of the service.
   * @typeParam K The service name.
   * @param name The service name.
   * @param instance The service itself.
   * @returns This locator, for chaining.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const locator = new ServiceLocator<{ port: number }>();
   * locator.registerInstance("port", 3000);
   * ```
   */
  registerInstance<
    T = never,
    K extends ServiceName<TServices> = ServiceName<TServices>,
  >(name: K, instance: ResolvedService<T, TServices, K>): this;
  registerInstance(name: string, instance: unknown): unknown {
    this.#state.registerInstance(name, instance);
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
      return resolveScopedOrTransient(
        this.#state,
        this.#path,
        this.#scope,
        name,
        lifetime,
        false,
        this as ServiceLocator,
        ServiceLocator.#views,
      ) as ResolvedService<T, TServices, K>;
    }
    return createSingleton(
      this.#state,
      this.#path,
      name,
      this as ServiceLocator,
      ServiceLocator.#views,
    ) as ResolvedService<T, TServices, K>;
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
      return await resolveScopedOrTransient(
        state,
        this.#path,
        this.#scope,
        name,
        lifetime,
        true,
        this as ServiceLocator,
        ServiceLocator.#views,
      ) as R;
    }
    const pending = state.pending.get(name);
    if (pending !== undefined) {
      if (this.#path.includes(name)) {
        throw new CircularDependencyError([...this.#path, name]);
      }
      return await pending as R;
    }
    const result = runFactory(
      state,
      this.#path,
      name,
      this as ServiceLocator,
      ServiceLocator.#views,
    );
    if (!isPromiseLike(result)) return result as R;
    return await trackCreation(state, name, result) as R;
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
    return this.#state.has(name);
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
    return this.#state.unregister(name);
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
    await disposeCreated(this.#state);
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

  // What the creation of services (_resolution.ts, _lifetimes.ts) needs the
  // class for: the locator handed to a factory (a view of the same state,
  // with `name` on its chain of creations), and the "not found" error, made
  // here so that an uncaught one points at this file.
  static #views: LocatorViews = {
    child: (owner, name, scope): ServiceLocator => {
      const view = new ServiceLocator();
      view.#state = owner.#state;
      view.#path = [...owner.#path, name];
      view.#scope = scope;
      return view;
    },
    notFound: (state, path, name): ServiceNotFoundError => {
      // The services being created when this one was asked for: through the
      // locator handed to the factory (async factories too), else the
      // synchronous creations under way.
      const creating = path.length > 0 ? path : state.resolving;
      return new ServiceNotFoundError(
        name,
        suggest(name, [...state.factories.keys(), ...state.instances.keys()]),
        creating,
      );
    },
  };
}
