// Runtime adapter: is standard output a terminal? Feature detection only, so
// the console provider stays importable in browsers (where it is never one).
// The npm build uses the twin _terminal_node.ts, which has no Deno branch.
interface ProcessLike {
  stdout?: { isTTY?: boolean };
}
interface DenoLike {
  stdout?: { isTerminal?: () => boolean };
}

/** `true` when standard output is an interactive terminal. */
export function stdoutIsTerminal(): boolean {
  const global = globalThis as { process?: ProcessLike; Deno?: DenoLike };
  try {
    const tty = global.process?.stdout?.isTTY;
    if (tty !== undefined) return tty === true;
    const isTerminal = global.Deno?.stdout?.isTerminal;
    if (typeof isTerminal === "function") {
      return isTerminal.call(global.Deno?.stdout) === true;
    }
  } catch {
    // A sandbox that forbids the check: treat it as not a terminal.
  }
  return false;
}
