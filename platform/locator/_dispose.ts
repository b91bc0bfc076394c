// Disposes one value the way `await using` would, falling back to a plain
// `dispose()` method. Values without any of these are left alone.
import { isPromiseLike } from "../../core/mod.ts";

const asyncDisposeSymbol: symbol | undefined =
  (Symbol as { asyncDispose?: symbol }).asyncDispose;
const disposeSymbol: symbol | undefined =
  (Symbol as { dispose?: symbol }).dispose;

type Disposer = (...args: unknown[]) => unknown;

function method(
  value: object,
  key: PropertyKey | undefined,
): Disposer | undefined {
  if (key === undefined) return undefined;
  const candidate = (value as Record<PropertyKey, unknown>)[key];
  return typeof candidate === "function" ? candidate as Disposer : undefined;
}

/** Returns true when `value` has something to dispose. */
export function isDisposable(value: unknown): boolean {
  if (
    (typeof value !== "object" && typeof value !== "function") || value === null
  ) {
    return false;
  }
  return method(value, asyncDisposeSymbol) !== undefined ||
    method(value, disposeSymbol) !== undefined ||
    method(value, "dispose") !== undefined;
}

/**
 * Calls `[Symbol.asyncDispose]`, `[Symbol.dispose]` or `dispose()`, first
 * found. With `signal` (the application host's shutdown deadline) a
 * `dispose(options)` method comes first and receives `{ signal }`, so Kit's
 * batching providers stop retrying when the deadline passes.
 */
export async function disposeValue(
  value: unknown,
  signal?: AbortSignal,
): Promise<void> {
  await disposeValueNow(value, signal);
}

/**
 * {@linkcode disposeValue} in the same turn when the disposer is
 * synchronous: `undefined` once it returned something that is not a promise
 * (it throws what the disposer throws), else a promise for its end.
 */
export function disposeValueNow(
  value: unknown,
  signal?: AbortSignal,
): Promise<void> | undefined {
  if (
    (typeof value !== "object" && typeof value !== "function") || value === null
  ) {
    return undefined;
  }
  let result: unknown;
  const dispose = signal === undefined ? undefined : method(value, "dispose");
  if (dispose !== undefined) {
    result = dispose.call(value, { signal });
  } else {
    const disposer = method(value, asyncDisposeSymbol) ??
      method(value, disposeSymbol) ?? method(value, "dispose");
    if (disposer === undefined) return undefined;
    result = disposer.call(value);
  }
  return isPromiseLike(result)
    ? Promise.resolve(result).then(() => {})
    : undefined;
}
