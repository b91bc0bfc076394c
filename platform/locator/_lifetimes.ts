// The scoped and transient lifetimes of a ServiceLocator: a scoped service
// is made once per scope (the view's own, else the current request's) and
// may not be captured by a singleton or transient service; a transient one
// is made on every request and kept by nobody. Both run their factory in the
// caller's context. Not re-exported.
import { isPromiseLike } from "../../core/mod.ts";
import { AsyncServiceError } from "./async_service_error.ts";
import { CircularDependencyError } from "./circular_dependency_error.ts";
import type { LocatorState } from "./_locator_state.ts";
import { invokeFactory, type LocatorViews } from "./_resolution.ts";
import { type Scope, scopeOfContext } from "./_scope.ts";
import { ServiceLifetimeError } from "./service_lifetime_error.ts";
import type { ServiceLocator } from "./service_locator.ts";

/**
 * A scoped or transient service. `wait`: a promise from an async factory is
 * returned (getAsync) instead of an AsyncServiceError (get).
 *
 * @throws {ServiceLifetimeError} When a scoped service has no scope, its
 * scope ended, or a singleton or transient service depends on it.
 */
export function resolveScopedOrTransient(
  state: LocatorState,
  path: readonly string[],
  viewScope: Scope | undefined,
  name: string,
  lifetime: "scoped" | "transient",
  wait: boolean,
  owner: ServiceLocator,
  views: LocatorViews,
): unknown {
  let scope: Scope | undefined;
  if (lifetime === "scoped") {
    // The service being created that asks for this one, if any: through
    // the locator its factory received, else the synchronous creations.
    const dependent = path.at(-1) ?? state.resolving.at(-1);
    if (dependent !== undefined) {
      const kind = state.lifetimes.get(dependent) ?? "singleton";
      if (kind !== "scoped") {
        throw new ServiceLifetimeError("captive", name, {
          name: dependent,
          lifetime: kind,
        });
      }
    }
    const found = viewScope ?? scopeOfContext(state, state.stopSignal);
    if (typeof found === "string") {
      throw new ServiceLifetimeError(found, name);
    }
    if (found.disposed) throw new ServiceLifetimeError(found.ended, name);
    scope = found;
    const instance = scope.instances.get(name);
    if (instance !== undefined || scope.instances.has(name)) return instance;
    const pending = scope.pending.get(name);
    if (pending !== undefined) {
      if (path.includes(name)) {
        throw new CircularDependencyError([...path, name]);
      }
      if (wait) return pending;
      throw new AsyncServiceError(name);
    }
  }
  const factory = state.factories.get(name)!;
  // In the caller's context: the service belongs to it. Its factory
  // resolves scoped dependencies from the same scope.
  const result = invokeFactory(
    state,
    name,
    () => factory(views.child(owner, name, scope ?? viewScope)),
  );
  if (!isPromiseLike(result)) {
    scope?.store(name, result);
    return result;
  }
  let promise: Promise<unknown> = Promise.resolve(result);
  if (scope !== undefined) {
    const owningScope = scope;
    promise = promise.then(
      (value) => {
        if (owningScope.pending.get(name) === promise) {
          owningScope.pending.delete(name);
          owningScope.store(name, value);
        }
        return value;
      },
      (error: unknown) => {
        if (owningScope.pending.get(name) === promise) {
          owningScope.pending.delete(name);
        }
        throw error;
      },
    );
    owningScope.pending.set(name, promise);
  }
  if (wait) return promise;
  promise.catch(() => {});
  throw new AsyncServiceError(name);
}
