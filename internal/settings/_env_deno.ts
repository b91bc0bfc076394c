// Deno flavour of reading an environment variable (scripts/build_npm.ts
// ships _env_node.ts in its place).

/**
 * An environment variable, or `undefined` when unset or not permitted. The
 * permission is queried first, so a program run without `--allow-env` is
 * never prompted for it.
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
