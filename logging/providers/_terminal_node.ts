// Runtime adapter of the npm build (the twin of _terminal_deno.ts): is
// standard output a terminal? Node.js and Bun say so through
// `process.stdout.isTTY`; browsers have no terminal.
interface ProcessLike {
  stdout?: { isTTY?: boolean };
}

/** `true` when standard output is an interactive terminal. */
export function stdoutIsTerminal(): boolean {
  try {
    return (globalThis as { process?: ProcessLike }).process?.stdout?.isTTY ===
      true;
  } catch {
    // A sandbox that forbids the check: treat it as not a terminal.
    return false;
  }
}
