// Node.js and Bun flavour of the caching module's environment access (chosen
// by scripts/build_npm.ts in place of _env_deno.ts).

interface NodeProcess {
  env: Record<string, string | undefined>;
}

/** An environment variable, or `undefined` when unset. */
export function readEnv(name: string): string | undefined {
  return (globalThis as { process?: NodeProcess }).process?.env[name];
}
