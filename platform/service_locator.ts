import { isPromiseLike } from "../core/mod.ts";
import { AsyncServiceError } from "./async_service_error.ts";
import { CircularDependencyError } from "./circular_dependency_error.ts";
import { ServiceNotFoundError } from "./service_not_found_error.ts";
import { disposeValue, isDisposable } from "./_dispose.ts";
import { suggest } from "./_suggest.ts";

/**
 * Creates a service. It receives the locator so it can `get` its own
 * dependencies; it may return the service or a promise for it (then ask for
 * the service with {@linkcode ServiceLocator.getAsync}).
 *
 * @typeParam T The type of the service.
 */
export type ServiceFactory<T = unknown> = (
  locator: ServiceLocator,
) => T | Promise<T>;

// Everything a locator knows. Factories receive a view of the same state that
// also carries the chain of services being created, so cycles through async
// factories are caught too.
class LocatorState {
  readonly factories = new Map<string, ServiceFactory>();
  readonly instances = new Map<string, unknown>();
  readonly pending = new Map<string, Promise<unknown>>();
  // Services this locator created (not registered instances), in creation
  // order: disposal walks it backwards.
  created: { name: string; value: unknown }[] = [];
  // Names whose factories are running synchronously right now, outermost first.
  readonly resolving: string[] = [];
}

/**
 * A named registry of lazily created singletons (spec §1 rule 2, §4.2).
 *
 * Register a factory under a name; the service is created on the first
 * `get` and the same instance is returned afterwards. Static methods act on
 * a process-wide default locator, as the spec writes them
 * (`ServiceLocator.get<ConfigurationManager>('config')`); `new
 * ServiceLocator()` gives an isolated one for tests and scopes.
 *
 * Creation is guarded: a cycle of factories throws
 * {@linkcode CircularDependencyError} naming the chain; a factory that throws
 * or rejects is not cached, so the next request tries again; concurrent
 * `getAsync` calls share one creation. `dispose()` (or `await using`) disposes
 * what the locator created, newest first.
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
export class ServiceLocator {
  // Created on first use: a static initializer that constructs the class
  // itself trips the CommonJS/ESM transpilers of the npm build.
  static #defaultLocator: ServiceLocator | undefined;

  #state: LocatorState = new LocatorState();
  #path: readonly string[] = [];

  /** The process-wide locator that the static methods act on. */
  static get default(): ServiceLocator {
    return ServiceLocator.#defaultLocator ??= new ServiceLocator();
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
   * `unknown`, spec §7).
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
    return ServiceLocator.default.get<T>(name);
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
  static getAsync<T = unknown>(name: string): Promise<T> {
    return ServiceLocator.default.getAsync<T>(name);
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
    return ServiceLocator.default.has(name);
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
   * Registers a lazily created singleton. Registering a name again replaces
   * the registration and forgets an instance created from the old one.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @param factory Creates the service on first request; it receives this
   * locator to get its dependencies.
   * @returns This locator, for chaining.
   * @throws {TypeError} When `factory` is not a function.
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
  register<T>(name: string, factory: ServiceFactory<T>): this {
    if (typeof factory !== "function") {
      throw new TypeError(
        `ServiceLocator.register('${name}'): the factory must be a function`,
      );
    }
    const state = this.#state;
    state.instances.delete(name);
    state.pending.delete(name);
    state.factories.set(name, factory as ServiceFactory);
    return this;
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
  registerInstance<T>(name: string, instance: T): this {
    const state = this.#state;
    state.factories.delete(name);
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
  get<T = unknown>(name: string): T {
    const instance = this.#state.instances.get(name);
    if (instance !== undefined) return instance as T;
    return this.#create(name) as T;
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
  async getAsync<T = unknown>(name: string): Promise<T> {
    const state = this.#state;
    const instance = state.instances.get(name);
    if (instance !== undefined || state.instances.has(name)) {
      return instance as T;
    }
    const pending = state.pending.get(name);
    if (pending !== undefined) {
      if (this.#path.includes(name)) {
        throw new CircularDependencyError([...this.#path, name]);
      }
      return await pending as T;
    }
    const result = this.#run(name);
    if (!isPromiseLike(result)) return result as T;
    return await this.#track(name, result) as T;
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
    state.instances.delete(name);
    state.pending.delete(name);
    state.created = state.created.filter((entry) => entry.name !== name);
    return known;
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
    const created = state.created;
    state.created = [];
    const errors: unknown[] = [];
    const failed: string[] = [];
    for (let i = created.length - 1; i >= 0; i--) {
      const { name, value } = created[i];
      if (state.instances.get(name) === value) state.instances.delete(name);
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
      throw new ServiceNotFoundError(
        name,
        suggest(name, [...state.factories.keys(), ...state.instances.keys()]),
      );
    }
    if (state.resolving.includes(name)) {
      throw new CircularDependencyError([...state.resolving, name]);
    }
    state.resolving.push(name);
    let result: unknown;
    try {
      result = factory(this.#scoped(name));
    } finally {
      state.resolving.pop();
    }
    if (!isPromiseLike(result)) this.#store(name, result, factory);
    return result;
  }

  #track(name: string, result: PromiseLike<unknown>): Promise<unknown> {
    const state = this.#state;
    const factory = state.factories.get(name);
    const promise: Promise<unknown> = Promise.resolve(result).then(
      (value) => {
        if (state.pending.get(name) === promise) {
          state.pending.delete(name);
          this.#store(name, value, factory);
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
  ): void {
    const state = this.#state;
    // A registration replaced while its factory ran does not get the old value.
    if (state.factories.get(name) !== factory) return;
    state.instances.set(name, value);
    if (isDisposable(value)) state.created.push({ name, value });
  }

  #scoped(name: string): ServiceLocator {
    const view = new ServiceLocator();
    view.#state = this.#state;
    view.#path = [...this.#path, name];
    return view;
  }
}
