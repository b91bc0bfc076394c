// Node.js, Bun and browser flavour of reading an environment variable (chosen
// by scripts/_variants.ts in place of _env_deno.ts): `process.env` where
// there is a process, nothing in a page.

interface NodeProcess {
  env: Record<string, string | undefined>;
}

/** An environment variable, or `undefined` when unset or in a browser. */
export function readEnv(name: string): string | undefined {
  return (globalThis as { process?: NodeProcess }).process?.env[name];
}
