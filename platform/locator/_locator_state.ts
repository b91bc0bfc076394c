// The registry of one ServiceLocator (shared by the views handed to its
// factories and by its scopes' views): the registrations and their
// lifetimes, the singletons created and in creation, and whether the
// application host closed it. Registration is checked here. Not re-exported.
import { Signal } from "../signal.ts";
import type {
  ServiceCreatedEvent,
  ServiceFactory,
  ServiceRegistrationOptions,
} from "./service_registration.ts";

const LIFETIMES: readonly string[] = ["singleton", "scoped", "transient"];

/** Everything a locator knows. */
export class LocatorState {
  readonly factories = new Map<string, ServiceFactory>();
  // The names registered as scoped or transient (singletons are absent).
  readonly lifetimes = new Map<string, "scoped" | "transient">();
  // Names registered with { eager } or { hosted }, in registration order.
  readonly eager = new Map<string, ServiceRegistrationOptions>();
  readonly serviceCreated = new Signal<ServiceCreatedEvent>();
  readonly instances = new Map<string, unknown>();
  readonly pending = new Map<string, Promise<unknown>>();
  // When each async factory's promise was started, for serviceCreated.
  readonly started = new WeakMap<object, number>();
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

  /** Tells whether a factory or an instance is registered under `name`. */
  has(name: string): boolean {
    return this.factories.has(name) || this.instances.has(name);
  }

  /**
   * Registers a factory, replacing the registration of `name` and
   * forgetting a singleton created from it.
   *
   * @throws {TypeError} When the factory, lifetime or eagerness is wrong.
   */
  register(
    name: string,
    factory: ServiceFactory,
    options: ServiceRegistrationOptions | undefined,
  ): void {
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
    this.instances.delete(name);
    this.pending.delete(name);
    this.factories.set(name, factory);
    this.eager.delete(name);
    if (lifetime === "singleton") this.lifetimes.delete(name);
    else this.lifetimes.set(name, lifetime);
    if (eager) this.eager.set(name, { ...options });
  }

  /** Registers an existing value, which the locator does not own. */
  registerInstance(name: string, instance: unknown): void {
    this.factories.delete(name);
    this.lifetimes.delete(name);
    this.eager.delete(name);
    this.pending.delete(name);
    this.instances.set(name, instance);
  }

  /** Removes a registration and forgets its instance (without disposing). */
  unregister(name: string): boolean {
    const known = this.has(name);
    this.factories.delete(name);
    this.lifetimes.delete(name);
    this.eager.delete(name);
    this.instances.delete(name);
    this.pending.delete(name);
    this.created = this.created.filter((entry) => entry.name !== name);
    return known;
  }
}
