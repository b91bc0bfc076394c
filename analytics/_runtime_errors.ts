// Internal runtime adapter: error tracking on Deno, Node.js and Bun, reached by
// feature detection only (no static `node:` import, no `Deno.*` call), so a
// browser bundle of the module stays clean. The entry points are
// _runtime_errors_deno.ts (Deno and JSR: Deno events, else Node's) and
// _runtime_errors_node.ts (the npm build's twin: Node.js and Bun only).
//
// The rule is "track, never swallow": whatever the runtime would have done
// with the error without Kit (crash, warn, nothing) still happens. When the
// runtime would have crashed, Kit delays the crash just long enough to flush
// the `exception` event (at most `flushTimeout` ms), then re-raises the same
// value so the runtime prints it and exits with its usual code.
//
// Deno: listens to the global `error` and `unhandledrejection` events. Deno
//   crashes unless a listener calls preventDefault(). If the event is already
//   prevented when Kit sees it, Kit only tracks it. Otherwise Kit prevents it,
//   flushes, and re-raises (a rethrow from a timer, or a fresh rejected
//   promise with the same reason); listeners added after Kit's therefore see
//   the error twice, the first time already marked defaultPrevented, and the
//   re-raise is where their own preventDefault() keeps the process alive.
// Node.js/Bun: listens to `uncaughtException` and `unhandledRejection` on
//   `process`. Node decides from the number of listeners, so Kit counts the
//   others: if there are any, Kit only tracks (they decide, as without Kit).
//   If Kit is alone, Node would have crashed (`uncaughtException`, and
//   `unhandledRejection` in the default `--unhandled-rejections=throw`
//   mode): Kit flushes, removes its listeners and rethrows on the next tick.
//   In `warn` and `none` modes Kit only tracks; in `warn-with-error-code` it
//   also sets `process.exitCode = 1` and emits the warning, as Node would; in
//   `strict` mode Node raises the rejection as an uncaught exception first,
//   which the `uncaughtException` path handles.
import type { AnalyticsProperties } from "./analytics_event.ts";
import { exceptionProperties } from "./_browser_tracking.ts";

export interface RuntimeErrorHooks {
  /** Tracks an `exception` event. */
  report(properties: AnalyticsProperties): void;
  /** Flushes the providers. */
  flush(): Promise<unknown>;
  /** Longest wait for the flush before a crash goes on. */
  flushTimeout: number;
}

export interface CancelableEvent {
  readonly defaultPrevented: boolean;
  preventDefault(): void;
}

export interface GlobalEventTarget {
  addEventListener(type: string, listener: (event: never) => void): void;
  removeEventListener(type: string, listener: (event: never) => void): void;
}

export interface NodeProcessLike {
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  listenerCount(event: string): number;
  nextTick(callback: () => void): void;
  emitWarning?(warning: string, type?: string): void;
  exitCode?: number | string;
  execArgv?: string[];
  env?: Record<string, string | undefined>;
}

// Keeps the process alive (a ref'd timer) until the flush settles or the
// timeout passes, then runs `then` once.
export function flushThen(hooks: RuntimeErrorHooks, then: () => void): void {
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    then();
  };
  const timer = setTimeout(finish, hooks.flushTimeout);
  let flushing: Promise<unknown>;
  try {
    flushing = hooks.flush();
  } catch {
    flushing = Promise.resolve();
  }
  flushing.then(finish, finish);
}

function unhandledRejectionsMode(proc: NodeProcessLike): string {
  const args = [
    ...(proc.execArgv ?? []),
    ...(proc.env?.NODE_OPTIONS ?? "").split(/\s+/),
  ];
  let mode = "throw";
  for (let i = 0; i < args.length; i++) {
    const match = /^--unhandled-rejections(?:=(.*))?$/.exec(args[i]);
    if (match) mode = match[1] ?? args[i + 1] ?? mode;
  }
  return mode;
}

function rejectionError(reason: unknown): unknown {
  if (reason instanceof Error) return reason;
  const error = new Error(
    "This error originated either by throwing inside of an async function " +
      "without a catch block, or by rejecting a promise which was not " +
      `handled with .catch(). The promise rejected with the reason "${
        String(reason)
      }".`,
  );
  (error as Error & { code?: string }).code = "ERR_UNHANDLED_REJECTION";
  return error;
}

export function installNode(
  proc: NodeProcessLike,
  hooks: RuntimeErrorHooks,
): () => void {
  const mode = unhandledRejectionsMode(proc);
  // Rejections already handled on the uncaughtException path (strict mode).
  const seen = new Set<unknown>();
  let installed = true;
  const uninstall = (): void => {
    if (!installed) return;
    installed = false;
    proc.removeListener("uncaughtException", onUncaught);
    proc.removeListener("unhandledRejection", onRejection);
  };
  const crash = (value: unknown): void => {
    flushThen(hooks, () => {
      uninstall();
      proc.nextTick(() => {
        throw value;
      });
    });
  };
  const onUncaught = (error: unknown, origin?: string): void => {
    const alone = proc.listenerCount("uncaughtException") <= 1;
    const source = origin === "unhandledRejection"
      ? "unhandledRejection"
      : "uncaughtException";
    if (source === "unhandledRejection") seen.add(error);
    hooks.report(exceptionProperties(error, source, alone));
    if (alone) crash(error);
  };
  const onRejection = (reason: unknown): void => {
    if (seen.delete(reason)) return;
    const alone = proc.listenerCount("unhandledRejection") <= 1;
    const fatal = alone && mode === "throw";
    hooks.report(exceptionProperties(reason, "unhandledRejection", fatal));
    if (!alone) return;
    if (mode === "throw") {
      crash(rejectionError(reason));
    } else if (mode === "warn-with-error-code") {
      proc.exitCode = 1;
      proc.emitWarning?.(
        `Unhandled promise rejection: ${String(reason)}`,
        "UnhandledPromiseRejectionWarning",
      );
    }
  };
  proc.on("uncaughtException", onUncaught);
  proc.on("unhandledRejection", onRejection);
  return uninstall;
}
