// Browser flavour of the process-exit hooks (see _exit_deno.ts): a page has
// no process to end, so nothing is installed.

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

/** Does nothing in a browser. */
export function onProcessExit(_hooks: ExitHooks): void {}
