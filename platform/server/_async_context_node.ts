// Server flavour of the request context's storage: AsyncLocalStorage, which
// Deno, Node.js and Bun all provide through node:async_hooks. The browser
// build replaces this file with _async_context_browser.ts.
import { AsyncLocalStorage } from "node:async_hooks";

/** Where the current context lives. */
export interface ContextStore<T> {
  run<R>(value: T, fn: () => R): R;
  /** Runs `fn` outside any context (a service created during a request). */
  exit<R>(fn: () => R): R;
  get(): T | undefined;
}

// One storage per process even when two copies of the platform package are
// installed (a nested node_modules), so a context set through one is seen
// through the other. "/2": it holds a ContextFrame (values and scope), not
// the values themselves as earlier versions did.
const KEY = Symbol.for("@vendor/kit-platform/request-context/2");

/** The process-wide store of the current request context. */
export function contextStore<T>(): ContextStore<T> {
  const holder = globalThis as { [KEY]?: AsyncLocalStorage<T> };
  const storage = holder[KEY] ??= new AsyncLocalStorage<T>();
  return {
    run: (value, fn) => storage.run(value, fn),
    exit: (fn) => storage.exit(fn),
    get: () => storage.getStore(),
  };
}
