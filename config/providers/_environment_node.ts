// The environment adapter of the npm build (the twin of
// _environment_deno.ts): Node.js and Bun expose `process.env`; a browser has
// no environment.

interface ProcessLike {
  env?: Record<string, string | undefined>;
}

/** A snapshot of the environment, or why it could not be read. */
export interface EnvironmentSnapshot {
  readonly variables: Readonly<Record<string, string>>;
  /** Set when the runtime refused to give the environment. */
  readonly error?: string;
}

function processEnv(): Record<string, string | undefined> | undefined {
  return (globalThis as { process?: ProcessLike }).process?.env;
}

/** Reads every environment variable. Never throws. */
export function readEnvironment(): EnvironmentSnapshot {
  try {
    const variables: Record<string, string> = {};
    for (const [name, value] of Object.entries(processEnv() ?? {})) {
      if (typeof value === "string") variables[name] = value;
    }
    return { variables };
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
    return processEnv()?.[name];
  } catch {
    return undefined;
  }
}
