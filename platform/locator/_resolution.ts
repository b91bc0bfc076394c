// The creation of singletons for a ServiceLocator, with cycle detection: a
// factory runs outside the caller's request context, a plain result is
// stored, a promise is tracked so that concurrent requests share it and a
// failure is not cached, and serviceCreated is dispatched. The scoped and
// transient lifetimes are in _lifetimes.ts. Not re-exported.
import { isPromiseLike } from "../../core/mod.ts";
import { AsyncServiceError } from "./async_service_error.ts";
import { CircularDependencyError } from "./circular_dependency_error.ts";
import { isDisposable } from "./_dispose.ts";
import type { LocatorState } from "./_locator_state.ts";
import type { Scope } from "./_scope.ts";
import { RequestContext } from "../server/request_context.ts";
import type { ServiceFactory } from "./service_registration.ts";
import type { ServiceLocator } from "./service_locator.ts";
import type { ServiceNotFoundError } from "./service_not_found_error.ts";

/** What only the locator's class can make. */
export interface LocatorViews {
  /**
   * The locator handed to the factory of `name`: a view of `owner`'s state
   * whose chain of services being created ends with `name`, resolving
   * scoped services from `scope`.
   */
  child(
    owner: ServiceLocator,
    name: string,
    scope: Scope | undefined,
  ): ServiceLocator;
  /**
   * The error for a name nothing is registered under, made in the locator's
   * own file so that an uncaught one points there.
   */
  notFound(
    state: LocatorState,
    path: readonly string[],
    name: string,
  ): ServiceNotFoundError;
}

/**
 * A singleton through `get()`: created now when its factory is synchronous.
 *
 * @throws {AsyncServiceError} When its factory returns a promise (the
 * creation goes on, for a `getAsync` to share).
 */
export function createSingleton(
  state: LocatorState,
  path: readonly string[],
  name: string,
  owner: ServiceLocator,
  views: LocatorViews,
): unknown {
  if (state.instances.has(name)) return state.instances.get(name);
  if (state.pending.has(name)) {
    if (path.includes(name)) {
      throw new CircularDependencyError([...path, name]);
    }
    throw new AsyncServiceError(name);
  }
  const result = runFactory(state, path, name, owner, views);
  if (!isPromiseLike(result)) return result;
  // An async factory reached through get(): keep the creation going so a
  // getAsync() shares it, and tell the caller to await it.
  trackCreation(state, name, result).catch(() => {});
  throw new AsyncServiceError(name);
}

/**
 * Runs the factory of `name` synchronously with cycle detection. A plain
 * result is stored; a promise is returned for the caller to track.
 *
 * @throws {ServiceNotFoundError} When nothing is registered under `name`.
 */
export function runFactory(
  state: LocatorState,
  path: readonly string[],
  name: string,
  owner: ServiceLocator,
  views: LocatorViews,
): unknown {
  const factory = state.factories.get(name);
  if (factory === undefined) throw views.notFound(state, path, name);
  const started = performance.now();
  // Outside the caller's request context (and span): a singleton outlives
  // the request that happened to create it, and its timers and callbacks
  // must not carry that request's id.
  const result = invokeFactory(
    state,
    name,
    () =>
      RequestContext.detach(() => factory(views.child(owner, name, undefined))),
  );
  if (!isPromiseLike(result)) store(state, name, result, factory, started);
  else state.started.set(result, started);
  return result;
}

/**
 * Calls a factory (through `call`) with cycle detection, unless the
 * application has stopped.
 *
 * @throws {CircularDependencyError} When `name` is being created already.
 */
export function invokeFactory(
  state: LocatorState,
  name: string,
  call: () => unknown,
): unknown {
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

/**
 * Keeps the promise of an async factory as the pending creation of `name`
 * and stores its value once it resolves (a failure is not cached).
 */
export function trackCreation(
  state: LocatorState,
  name: string,
  result: PromiseLike<unknown>,
): Promise<unknown> {
  const factory = state.factories.get(name);
  const started = state.started.get(result) ?? performance.now();
  const promise: Promise<unknown> = Promise.resolve(result).then(
    (value) => {
      if (state.pending.get(name) === promise) {
        state.pending.delete(name);
        store(state, name, value, factory, started);
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

function store(
  state: LocatorState,
  name: string,
  value: unknown,
  factory: ServiceFactory | undefined,
  started: number,
): void {
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
