// Node.js and Bun flavour of the process-exit hooks (see _exit_deno.ts).
// `beforeExit` fires when the event loop is empty (not on process.exit());
// work started there keeps the process running. `exit` fires last, also on
// process.exit(), when only synchronous work is possible.
//
// The global `process`, not `import process from "node:process"`: importing
// that built-in as an ES module enumerates every property of `process`,
// which runs its lazy getters and lengthens every cold start (figure in
// BENCHMARKS.md, "Cold import in Node").
import type * as NodeProcess from "node:process";

const process = (globalThis as unknown as { process: typeof NodeProcess })
  .process;

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
  process.on("beforeExit", () => hooks.beforeExit());
  process.on("exit", () => hooks.exit());
}
