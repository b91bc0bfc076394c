// Browser flavour of the request context's storage: a page has no
// AsyncLocalStorage, and one page serves one user, so the context is one
// value per page. It is set while `run`'s callback runs (until its promise
// settles, for an async callback) and restored afterwards.
import type { ContextStore } from "./_async_context.ts";

const KEY = Symbol.for("@vendor/kit-platform/request-context");

interface PageContext {
  value: unknown;
}

/** The page-wide store of the current request context. */
export function contextStore<T>(): ContextStore<T> {
  const holder = globalThis as { [KEY]?: PageContext };
  const page = holder[KEY] ??= { value: undefined };
  return {
    run<R>(value: T, fn: () => R): R {
      const previous = page.value;
      page.value = value;
      let result: R;
      try {
        result = fn();
      } catch (error) {
        page.value = previous;
        throw error;
      }
      if (
        result !== null && typeof result === "object" &&
        typeof (result as { then?: unknown }).then === "function"
      ) {
        const restore = (): void => {
          if (page.value === value) page.value = previous;
        };
        (result as unknown as PromiseLike<unknown>).then(restore, restore);
      } else {
        page.value = previous;
      }
      return result;
    },
    get: () => page.value as T | undefined,
  };
}
