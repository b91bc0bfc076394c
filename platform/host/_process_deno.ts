// Deno flavour of the host's process access (scripts/build_npm.ts ships
// _process_node.ts in its place; browsers get _process_browser.ts).

/** The signals the host handles. */
export type ShutdownSignal = "SIGINT" | "SIGTERM";

/**
 * Calls `handler` for each SIGINT or SIGTERM until the returned function is
 * called. Listening does not keep the process alive on its own.
 */
export function onShutdownSignal(
  handler: (signal: ShutdownSignal) => void,
): () => void {
  const removers: (() => void)[] = [];
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    const listener = (): void => handler(signal);
    try {
      Deno.addSignalListener(signal, listener);
      removers.push(() => Deno.removeSignalListener(signal, listener));
    } catch {
      // SIGTERM cannot be listened to on Windows; SIGINT still works.
    }
  }
  return () => {
    for (const remove of removers) remove();
  };
}

/** Ends the process with `code`. */
export function exitProcess(code: number): void {
  Deno.exit(code);
}
