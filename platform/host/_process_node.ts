// Node.js and Bun flavour of the host's process access (chosen by
// scripts/_variants.ts in place of _process_deno.ts).

/** The signals the host handles. */
export type ShutdownSignal = "SIGINT" | "SIGTERM";

interface NodeProcess {
  on(event: string, listener: () => void): unknown;
  off(event: string, listener: () => void): unknown;
  exit(code: number): void;
}

function nodeProcess(): NodeProcess | undefined {
  return (globalThis as { process?: NodeProcess }).process;
}

/**
 * Calls `handler` for each SIGINT or SIGTERM until the returned function is
 * called. Listening does not keep the process alive on its own.
 */
export function onShutdownSignal(
  handler: (signal: ShutdownSignal) => void,
): () => void {
  const process = nodeProcess();
  if (process === undefined) return () => {};
  const onInt = (): void => handler("SIGINT");
  const onTerm = (): void => handler("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
}

/** Ends the process with `code`. */
export function exitProcess(code: number): void {
  nodeProcess()?.exit(code);
}
