// Deno flavour of the runtime error tracking (the npm build uses
// _runtime_errors_node.ts instead): Deno's global error events, else the
// Node.js/Bun process events. See _runtime_errors.ts for the rules.
import {
  type CancelableEvent,
  flushThen,
  type GlobalEventTarget,
  installNode,
  type NodeProcessLike,
  type RuntimeErrorHooks,
} from "./_runtime_errors.ts";
import { exceptionProperties } from "./_browser_tracking.ts";

/**
 * Installs error tracking for the current server runtime.
 *
 * @returns The uninstaller, or `undefined` when the runtime offers no hook.
 */
export function installRuntimeErrorTracking(
  hooks: RuntimeErrorHooks,
): (() => void) | undefined {
  const g = globalThis as unknown as {
    Deno?: unknown;
    process?: NodeProcessLike;
    addEventListener?: unknown;
  };
  if (g.Deno !== undefined && typeof g.addEventListener === "function") {
    return installDeno(globalThis as unknown as GlobalEventTarget, hooks);
  }
  const proc = g.process;
  if (
    proc !== undefined && typeof proc.on === "function" &&
    typeof proc.listenerCount === "function"
  ) {
    return installNode(proc, hooks);
  }
  return undefined;
}

function installDeno(
  target: GlobalEventTarget,
  hooks: RuntimeErrorHooks,
): () => void {
  // Values being re-raised by Kit: let them through untouched.
  const reraising = new Set<unknown>();
  const handle = (
    value: unknown,
    source: "uncaughtException" | "unhandledRejection",
    event: CancelableEvent,
  ): void => {
    if (reraising.delete(value)) return;
    const fatal = !event.defaultPrevented;
    hooks.report(exceptionProperties(value, source, fatal));
    if (!fatal) return;
    event.preventDefault();
    flushThen(hooks, () => {
      reraising.add(value);
      if (source === "uncaughtException") {
        setTimeout(() => {
          throw value;
        }, 0);
      } else {
        void Promise.reject(value);
      }
    });
  };
  const onError = (event: CancelableEvent & { readonly error?: unknown }) =>
    handle(event.error, "uncaughtException", event);
  const onRejection = (
    event: CancelableEvent & { readonly reason?: unknown },
  ) => handle(event.reason, "unhandledRejection", event);
  target.addEventListener("error", onError);
  target.addEventListener("unhandledrejection", onRejection);
  return () => {
    target.removeEventListener("error", onError);
    target.removeEventListener("unhandledrejection", onRejection);
  };
}
