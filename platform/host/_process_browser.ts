// Browser flavour of the host's process access: a page has no signals, no
// process to end and no environment variables.
import type { ShutdownSignal } from "#platform/host/process";

export type { ShutdownSignal };

/** A page receives no shutdown signals: nothing to listen to. */
export function onShutdownSignal(
  _handler: (signal: ShutdownSignal) => void,
): () => void {
  return () => {};
}

/** A page has no process to end. */
export function exitProcess(_code: number): void {}
