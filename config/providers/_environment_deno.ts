// The environment adapter: the one place that reads environment variables.
// Deno 2, Node.js and Bun all expose `globalThis.process.env`; Deno without
// that global falls back to `Deno.env`; a browser has no environment. The npm
// build uses the twin _environment_node.ts, which has no Deno fallback.

interface ProcessLike {
  env?: Record<string, string | undefined>;
}

interface DenoLike {
  env?: {
    toObject(): Record<string, string>;
    get(name: string): string | undefined;
  };
}

/** A snapshot of the environment, or why it could not be read. */
export interface EnvironmentSnapshot {
  readonly variables: Readonly<Record<string, string>>;
  /** Set when the runtime refused (for example Deno without --allow-env). */
  readonly error?: string;
}

/** Reads every environment variable. Never throws. */
export function readEnvironment(): EnvironmentSnapshot {
  try {
    const process = (globalThis as { process?: ProcessLike }).process;
    if (process?.env !== undefined) {
      const variables: Record<string, string> = {};
      for (const [name, value] of Object.entries(process.env)) {
        if (typeof value === "string") variables[name] = value;
      }
      return { variables };
    }
    const deno = (globalThis as { Deno?: DenoLike }).Deno;
    if (deno?.env !== undefined) return { variables: deno.env.toObject() };
    return { variables: {} };
  } catch (error) {
    return {
      variables: {},
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** Reads one environment variable; `undefined` when unset or unreadable. */
export function getEnvironmentVariable(name: string): string | undefined {
  try {
    const process = (globalThis as { process?: ProcessLike }).process;
    if (process?.env !== undefined) return process.env[name];
    const deno = (globalThis as { Deno?: DenoLike }).Deno;
    return deno?.env?.get(name);
  } catch {
    return undefined;
  }
}
