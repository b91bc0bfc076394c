import type {
  ResolvedService,
  ServiceMap,
  ServiceName,
} from "./service_registration.ts";

/**
 * A scope made by hand with {@linkcode ServiceLocator.createScope}, for work
 * that is not a request through `app.handle()` (a queue message, a
 * scheduled job): each service registered with `{ lifetime: "scoped" }` is
 * created once in it, and disposed, newest first, when the scope is
 * (`await using` does it at the end of the block). Singletons and transient
 * services resolve through it as through the locator.
 *
 * @typeParam TServices The locator's map of names to service types.
 *
 * @example Usage
 * ```ts
 * import { ServiceLocator } from "@vendor/kit/platform";
 *
 * const services = new ServiceLocator();
 * services.register("unitOfWork", () => ({ dispose: () => {} }), {
 *   lifetime: "scoped",
 * });
 * {
 *   await using scope = services.createScope();
 *   scope.get("unitOfWork") === scope.get("unitOfWork"); // true
 * } // disposed here
 * ```
 */
export interface ServiceScope<TServices extends object = ServiceMap>
  extends AsyncDisposable {
  /**
   * Returns a service: a scoped one from this scope (created on first
   * request), any other as the locator gives it.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @returns The service.
   * @throws {ServiceLifetimeError} When the scope has been disposed, or a
   * singleton or transient service depends on a scoped one.
   * @throws {AsyncServiceError} When its factory is asynchronous and it is
   * not created yet.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const services = new ServiceLocator();
   * services.register("tx", () => ({ id: 1 }), { lifetime: "scoped" });
   * await using scope = services.createScope();
   * scope.get<{ id: number }>("tx").id; // 1
   * ```
   */
  get<T = never, K extends ServiceName<TServices> = ServiceName<TServices>>(
    name: K,
  ): ResolvedService<T, TServices, K>;

  /**
   * Returns a service, awaiting its factory when that returns a promise;
   * concurrent first requests in one scope share one creation.
   *
   * @typeParam T The type of the service.
   * @param name The service name.
   * @returns A promise for the service.
   * @throws {ServiceLifetimeError} As {@linkcode ServiceScope.get}.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const services = new ServiceLocator();
   * services.register("db", async () => ({ ok: true }), { lifetime: "scoped" });
   * await using scope = services.createScope();
   * (await scope.getAsync<{ ok: boolean }>("db")).ok; // true
   * ```
   */
  getAsync<
    T = never,
    K extends ServiceName<TServices> = ServiceName<TServices>,
  >(name: K): Promise<ResolvedService<T, TServices, K>>;

  /**
   * Runs `fn` with this scope current: inside it (after `await`s too),
   * `services.get()` of a scoped service resolves from this scope, as in a
   * request. The request context's values stay those of the caller.
   *
   * @typeParam R What `fn` returns.
   * @param fn The work to run.
   * @returns What `fn` returned.
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const services = new ServiceLocator();
   * services.register("tx", () => ({}), { lifetime: "scoped" });
   * await using scope = services.createScope();
   * await scope.run(async () => services.get("tx")); // the scope's tx
   * ```
   */
  run<R>(fn: () => R): R;

  /**
   * Disposes the scoped services this scope created, newest first (once;
   * later calls return the same promise), once the creations in flight
   * settled. A `dispose(options)` method receives `{ signal }`: the given
   * one, else one that aborts when the application stops. The signal bounds
   * the disposal itself: when it aborts, a creation or a disposal still
   * running is given up on (a creation given up on is disposed when it
   * settles) and the promise settles.
   *
   * @param options `signal`: tells slow disposals to give up, and when to
   * stop waiting for them.
   * @returns A promise that settles when every service had its turn.
   * @throws {AggregateError} When one or more services failed to dispose, or
   * were given up on (`Failed to dispose 1 scoped service(s): db (still being
   * created when the signal aborted)`).
   *
   * @example Usage
   * ```ts
   * import { ServiceLocator } from "@vendor/kit/platform";
   *
   * const scope = new ServiceLocator().createScope();
   * await scope.dispose({ signal: AbortSignal.timeout(1000) });
   * ```
   */
  dispose(options?: { signal?: AbortSignal }): Promise<void>;

  /** `true` once {@linkcode ServiceScope.dispose} was called. */
  readonly disposed: boolean;
}
