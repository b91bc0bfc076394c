// Deno flavour of the caching module's environment access
// (scripts/build_npm.ts ships _env_node.ts in its place; browsers get
// _env_browser.ts).

/**
 * An environment variable, or `undefined` when unset or not permitted. The
 * permission is queried first, so a program run without `--allow-env` is
 * never prompted for it by the cache.
 */
export function readEnv(name: string): string | undefined {
  try {
    const permission = Deno.permissions.querySync({
      name: "env",
      variable: name,
    });
    return permission.state === "granted" ? Deno.env.get(name) : undefined;
  } catch {
    return undefined;
  }
}
