// npm flavour of the runtime error tracking (chosen by scripts/_variants.ts
// in place of _runtime_errors_deno.ts): Node.js and Bun process events. See
// _runtime_errors.ts for the rules.
import {
  installNode,
  type NodeProcessLike,
  type RuntimeErrorHooks,
} from "./_runtime_errors.ts";

/**
 * Installs error tracking for the current server runtime.
 *
 * @returns The uninstaller, or `undefined` when the runtime offers no hook.
 */
export function installRuntimeErrorTracking(
  hooks: RuntimeErrorHooks,
): (() => void) | undefined {
  const proc = (globalThis as unknown as { process?: NodeProcessLike })
    .process;
  if (
    proc !== undefined && typeof proc.on === "function" &&
    typeof proc.listenerCount === "function"
  ) {
    return installNode(proc, hooks);
  }
  return undefined;
}
