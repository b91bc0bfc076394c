// Providers that hold undelivered entries, and the process-exit hooks that
// deal with them when a script ends without dispose(): on `beforeExit` each
// starts a bounded flush (which keeps the process alive while it runs); on
// the final `exit` each reports on stderr what is still undelivered. The
// hooks are installed on the first registration, so merely importing the
// logging module adds no listener.
import { type ExitHooks, onProcessExit } from "#logging/exit";

const live = new Set<ExitHooks>();
let installed = false;

/** Adds a provider's hooks (idempotent). */
export function registerForExit(hooks: ExitHooks): void {
  if (!installed) {
    installed = true;
    onProcessExit({
      beforeExit: () => {
        let started = false;
        each((item) => {
          if (item.beforeExit()) started = true;
        });
        return started;
      },
      exit: () => each((item) => item.exit()),
    });
  }
  live.add(hooks);
}

/** Removes a provider's hooks (after dispose()). */
export function unregisterForExit(hooks: ExitHooks): void {
  live.delete(hooks);
}

function each(run: (hooks: ExitHooks) => void): void {
  for (const hooks of [...live]) {
    try {
      run(hooks);
    } catch {
      // One provider's failure must not keep the others from their turn.
    }
  }
}
