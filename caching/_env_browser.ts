// Browser flavour of the caching module's environment access: a page has no
// environment variables.

/** A page has no environment variables. */
export function readEnv(_name: string): string | undefined {
  return undefined;
}
