// One scope: the scoped services it created, and their disposal. The
// locator creates and fills it (service_locator.ts); app.handle() disposes
// the request's scopes when the response is done; createScope() hands one
// out wrapped in a ServiceScope.
import { disposeValue, isDisposable } from "./_dispose.ts";
import type { CreatedService } from "./_locator_hooks.ts";
import { ContextFrame, frames } from "./_async_context_frame.ts";
import type { ServiceLocator } from "./service_locator.ts";
import type {
  ResolvedService,
  ServiceMap,
  ServiceName,
} from "./service_registration.ts";
import type { ServiceScope } from "./service_scope.ts";
import type { ServiceLifetimeProblem } from "./service_lifetime_error.ts";

/** The cache and the disposal of one scope. */
export class Scope {
  readonly instances: Map<string, unknown> = new Map();
  readonly pending: Map<string, Promise<unknown>> = new Map();
  // Disposable services, in creation order: disposal walks it backwards.
  #created: CreatedService[] = [];
  #disposing: Promise<void> | undefined;

  /**
   * @param state The locator state it belongs to (its identity).
   * @param ended The problem to report once disposed.
   * @param signal The signal disposal passes on when none is given.
   */
  constructor(
    readonly state: object,
    readonly ended: ServiceLifetimeProblem,
    readonly signal: () => AbortSignal,
  ) {}

  get disposed(): boolean {
    return this.#disposing !== undefined;
  }

  store(name: string, value: unknown): void {
    this.instances.set(name, value);
    if (isDisposable(value)) this.#created.push({ name, value });
  }

  /** Disposes once; later calls return the same promise. */
  dispose(signal?: AbortSignal): Promise<void> {
    return this.#disposing ??= this.#dispose(signal ?? this.signal());
  }

  async #dispose(signal: AbortSignal): Promise<void> {
    while (this.pending.size > 0) {
      await Promise.allSettled([...this.pending.values()]);
    }
    const created = this.#created;
    this.#created = [];
    this.instances.clear();
    const errors: unknown[] = [];
    const failed: string[] = [];
    for (let i = created.length - 1; i >= 0; i--) {
      try {
        await disposeValue(created[i].value, signal);
      } catch (error) {
        errors.push(error);
        failed.push(created[i].name);
      }
    }
    if (errors.length > 0) {
      throw new AggregateError(
        errors,
        `Failed to dispose ${errors.length} scoped service(s): ${
          failed.join(", ")
        }`,
      );
    }
  }
}

/** The scope of `state` in the current context, if one exists already. */
export function currentScope(state: object): Scope | undefined {
  const owner = frames.get()?.owner;
  if (owner === undefined) return undefined;
  const scope = owner.scope;
  if (scope === undefined || scope.state === state) {
    return scope as Scope | undefined;
  }
  return owner.more?.find((other) => other.state === state) as
    | Scope
    | undefined;
}

/**
 * The scope of `state` in the current context, created when the context
 * allows it; else the problem.
 */
export function scopeOfContext(
  state: object,
  signal: () => AbortSignal,
): Scope | ServiceLifetimeProblem {
  const owner = frames.get()?.owner;
  if (owner === undefined) return "no-scope";
  const found = currentScope(state);
  if (found !== undefined) return found;
  if (owner.closed !== undefined) {
    return owner.closed === "ended" ? "ended" : "no-scope";
  }
  const scope = new Scope(state, "ended", signal);
  if (owner.scope === undefined) owner.scope = scope;
  else (owner.more ??= []).push(scope);
  return scope;
}

/** Disposes the scopes of a request's frame, newest first. */
export async function disposeFrameScopes(
  frame: ContextFrame,
  failed: (error: unknown) => void,
): Promise<void> {
  frame.closed = "ended";
  const scopes = [frame.scope as Scope, ...(frame.more ?? []) as Scope[]];
  for (let i = scopes.length - 1; i >= 0; i--) {
    try {
      await scopes[i].dispose();
    } catch (error) {
      failed(error);
    }
  }
}

/** What createScope() returns. */
export class ScopeHandle<TServices extends object = ServiceMap>
  implements ServiceScope<TServices> {
  readonly #scope: Scope;
  readonly #resolver: ServiceLocator<TServices>;

  constructor(scope: Scope, resolver: ServiceLocator<TServices>) {
    this.#scope = scope;
    this.#resolver = resolver;
  }

  get<T = never, K extends ServiceName<TServices> = ServiceName<TServices>>(
    name: K,
  ): ResolvedService<T, TServices, K> {
    // A scoped service this scope made already: one Map lookup.
    const made = this.#scope.instances.get(name);
    if (made !== undefined) return made as ResolvedService<T, TServices, K>;
    return this.#resolver.get<T, K>(name);
  }

  getAsync<
    T = never,
    K extends ServiceName<TServices> = ServiceName<TServices>,
  >(name: K): Promise<ResolvedService<T, TServices, K>> {
    return this.#resolver.getAsync<T, K>(name);
  }

  get disposed(): boolean {
    return this.#scope.disposed;
  }

  run<R>(fn: () => R): R {
    const frame = new ContextFrame(frames.get()?.values, null);
    frame.scope = this.#scope;
    frame.closed = "fixed";
    return frames.run(frame, fn);
  }

  dispose(options?: { signal?: AbortSignal }): Promise<void> {
    return this.#scope.dispose(options?.signal);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
