// One scope: the scoped services it created, and their disposal. The
// locator creates and fills it (service_locator.ts); app.handle() disposes
// the request's scopes when the response is done; createScope() hands one
// out wrapped in a ServiceScope.
import { disposeValueNow, isDisposable } from "./_dispose.ts";
import {
  abandonAfter,
  consoleLine,
  messageOf,
} from "../host/_application_support.ts";
import { hostLogger } from "../host/host_logger.ts";
import type { CreatedService } from "./_locator_hooks.ts";
import { ContextFrame, frames } from "../server/_async_context_frame.ts";
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
  // Set once disposal took the services created: a creation it gave up on
  // that settles later is disposed at once.
  #sealed = false;
  /** Reports a failed disposal of a creation that settled after disposal. */
  reportLate: (error: unknown) => void = reportLateFailure;

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
    if (this.#sealed) {
      this.#disposeLate(name, value);
      return;
    }
    this.instances.set(name, value);
    if (isDisposable(value)) this.#created.push({ name, value });
  }

  /** Disposes once; later calls return the same promise. */
  dispose(signal?: AbortSignal): Promise<void> {
    if (this.#disposing === undefined) this.disposeNow(signal);
    return this.#disposing!;
  }

  /**
   * Disposes once, in this turn as far as every step is synchronous:
   * `undefined` when all was disposed so, the error when a synchronous
   * disposal failed, else a promise (rejected with the error). Creations in
   * flight are awaited first and disposals in turn, newest first, each until
   * `signal` aborts: what is still under way then is given up on, named in
   * the error (a creation given up on is disposed once it settles).
   */
  disposeNow(signal?: AbortSignal): AggregateError | Promise<void> | undefined {
    if (this.#disposing !== undefined) return this.#disposing;
    const given = signal ?? this.signal();
    const outcome = this.pending.size > 0
      ? this.#disposeAfterCreations(given)
      : this.#disposeCreated(given, this.#seal(), [], []);
    this.#disposing = outcome === undefined
      ? Promise.resolve()
      : outcome instanceof Promise
      ? outcome
      : Promise.reject(outcome);
    // The promise is for later callers; a caller of disposeNow has the
    // outcome itself.
    this.#disposing.catch(() => {});
    return outcome;
  }

  // Takes the services created, newest last; later creations are disposed
  // as they settle.
  #seal(): CreatedService[] {
    this.#sealed = true;
    const created = this.#created;
    this.#created = [];
    this.instances.clear();
    return created;
  }

  // Creations in flight first, until `signal` aborts: what they make is
  // disposed with the rest.
  async #disposeAfterCreations(signal: AbortSignal): Promise<void> {
    const errors: unknown[] = [];
    const failed: string[] = [];
    while (this.pending.size > 0) {
      const settled = Promise.allSettled([...this.pending.values()]);
      if (!await abandonAfter(settled, signal)) {
        for (const name of this.pending.keys()) {
          errors.push(gaveUp(name, "was still being created", signal));
          failed.push(`${name} (still being created when the signal aborted)`);
        }
        break;
      }
    }
    const outcome = this.#disposeCreated(signal, this.#seal(), errors, failed);
    if (outcome instanceof Promise) return await outcome;
    if (outcome !== undefined) throw outcome;
  }

  // Disposes `created` from its end, in this turn until a disposer returns
  // a promise.
  #disposeCreated(
    signal: AbortSignal,
    created: CreatedService[],
    errors: unknown[],
    failed: string[],
  ): AggregateError | Promise<void> | undefined {
    while (created.length > 0) {
      const { name, value } = created.pop()!;
      let running: Promise<void> | undefined;
      try {
        running = disposeValueNow(value, signal);
      } catch (error) {
        errors.push(error);
        failed.push(name);
        continue;
      }
      if (running !== undefined) {
        return this.#disposeRest(signal, created, errors, failed, {
          name,
          running,
        });
      }
    }
    return failure(errors, failed);
  }

  // The rest of #disposeCreated once a disposal went asynchronous.
  async #disposeRest(
    signal: AbortSignal,
    created: CreatedService[],
    errors: unknown[],
    failed: string[],
    first: { name: string; running: Promise<void> },
  ): Promise<void> {
    await this.#awaitDisposal(
      first.name,
      first.running,
      signal,
      errors,
      failed,
    );
    while (created.length > 0) {
      const { name, value } = created.pop()!;
      try {
        const running = disposeValueNow(value, signal);
        if (running !== undefined) {
          await this.#awaitDisposal(name, running, signal, errors, failed);
        }
      } catch (error) {
        errors.push(error);
        failed.push(name);
      }
    }
    const error = failure(errors, failed);
    if (error !== undefined) throw error;
  }

  // Waits for one disposal until `signal` aborts.
  async #awaitDisposal(
    name: string,
    running: Promise<void>,
    signal: AbortSignal,
    errors: unknown[],
    failed: string[],
  ): Promise<void> {
    try {
      if (!await abandonAfter(running, signal)) {
        errors.push(gaveUp(name, "was still disposing", signal));
        failed.push(`${name} (still disposing when the signal aborted)`);
        running.catch(() => {});
      }
    } catch (error) {
      errors.push(error);
      failed.push(name);
    }
  }

  // A creation the disposal gave up on settled: its service is disposed now.
  #disposeLate(name: string, value: unknown): void {
    const report = (error: unknown): void =>
      this.reportLate(
        new AggregateError(
          [error],
          `Failed to dispose 1 scoped service(s): ${name} (created after its scope was disposed)`,
        ),
      );
    try {
      disposeValueNow(value, this.signal())?.catch(report);
    } catch (error) {
      report(error);
    }
  }
}

// The error of a disposal, if anything failed or was given up on.
function failure(
  errors: unknown[],
  failed: string[],
): AggregateError | undefined {
  return errors.length === 0 ? undefined : new AggregateError(
    errors,
    `Failed to dispose ${errors.length} scoped service(s): ${
      failed.join(", ")
    }`,
  );
}

function gaveUp(name: string, what: string, signal: AbortSignal): Error {
  return new Error(
    `Scoped service '${name}' ${what} when the signal of its scope's disposal aborted`,
    { cause: signal.reason },
  );
}

// Where the failed disposal of a late creation goes by default: the running
// application's logging, else the console (a request's scope reports it
// with the request instead).
function reportLateFailure(error: unknown): void {
  const message = messageOf(error);
  const logger = hostLogger("kit.application");
  if (logger !== undefined) logger.error(message, { error });
  else console.error(consoleLine(message, { error }));
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

/**
 * Disposes the scopes of a request's frame, newest first, each failure (and
 * that of a late creation) reported to `failed`: `undefined` when it was all
 * done in this turn, else a promise that settles (never rejects) when done.
 */
export function disposeFrameScopes(
  frame: ContextFrame,
  failed: (error: unknown) => void,
): Promise<void> | undefined {
  frame.closed = "ended";
  const scopes = [frame.scope as Scope, ...(frame.more ?? []) as Scope[]];
  for (let i = scopes.length - 1; i >= 0; i--) {
    scopes[i].reportLate = failed;
    const outcome = scopes[i].disposeNow();
    if (outcome instanceof Promise) {
      return disposeRest(outcome, scopes.slice(0, i), failed);
    }
    if (outcome !== undefined) failed(outcome);
  }
  return undefined;
}

async function disposeRest(
  first: Promise<void>,
  rest: Scope[],
  failed: (error: unknown) => void,
): Promise<void> {
  try {
    await first;
  } catch (error) {
    failed(error);
  }
  for (let i = rest.length - 1; i >= 0; i--) {
    rest[i].reportLate = failed;
    try {
      await rest[i].dispose();
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
