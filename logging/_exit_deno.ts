// Deno flavour of the process-exit hooks (the npm build uses _exit_node.ts,
// browsers _exit_browser.ts). `beforeunload` fires when the event loop has
// nothing left to do, and work started there keeps the process running;
// `unload` fires last (also on Deno.exit()), when only synchronous work is
// possible.

/** What to run when the process is about to end. */
export interface ExitHooks {
  /**
   * The event loop is empty: asynchronous work started here keeps it alive.
   * Returns `true` when it started some.
   */
  beforeExit(): boolean;
  /** The process ends now: synchronous work only. */
  exit(): void;
}

/** Installs the hooks for the rest of the process. */
export function onProcessExit(hooks: ExitHooks): void {
  const target = globalThis as {
    addEventListener?: (type: string, listener: (event: Event) => void) => void;
  };
  if (typeof target.addEventListener !== "function") return;
  target.addEventListener("beforeunload", (event) => {
    if (hooks.beforeExit()) event.preventDefault();
  });
  target.addEventListener("unload", () => hooks.exit());
}
