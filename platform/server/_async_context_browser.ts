// Browser flavour of the request context's storage: a page has no
// AsyncLocalStorage, and one page serves one user, so the context is one
// value per page. It is set while `run`'s callback runs (until its promise
// settles, for an async callback); when runs overlap, the newest one still
// running is current, and when none is left there is no context.
import type { ContextStore } from "./_async_context_node.ts";

// Its own key: the server flavour keeps its AsyncLocalStorage under
// "@vendor/kit-platform/request-context/2".
const KEY = Symbol.for("@vendor/kit-platform/request-context/page/2");

interface PageContext {
  // The runs not finished yet, oldest first; the last one is current.
  live: { value: unknown }[];
}

/** The page-wide store of the current request context. */
export function contextStore<T>(): ContextStore<T> {
  const holder = globalThis as { [KEY]?: PageContext };
  const page = holder[KEY] ??= { live: [] };
  const enter = (value: unknown): () => void => {
    const token = { value };
    page.live.push(token);
    return () => {
      const index = page.live.lastIndexOf(token);
      if (index >= 0) page.live.splice(index, 1);
    };
  };
  return {
    run<R>(value: T, fn: () => R): R {
      const leave = enter(value);
      let result: R;
      try {
        result = fn();
      } catch (error) {
        leave();
        throw error;
      }
      if (
        result !== null && typeof result === "object" &&
        typeof (result as { then?: unknown }).then === "function"
      ) {
        (result as unknown as PromiseLike<unknown>).then(leave, leave);
      } else {
        leave();
      }
      return result;
    },
    exit<R>(fn: () => R): R {
      const saved = page.live;
      page.live = [];
      try {
        return fn();
      } finally {
        page.live = saved;
      }
    },
    get: () => page.live.at(-1)?.value as T | undefined,
  };
}
