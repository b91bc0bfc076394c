import { readEnv } from "#internal/settings/env";

/**
 * Reads an environment variable in Deno, Node.js and Bun; `undefined` when it
 * is unset, in a browser, or in Deno without permission to read it (the
 * permission is queried first, so a program run without `--allow-env` is
 * never prompted). Kit reads its own switches through it, such as
 * `KIT_LOG_LEVEL`.
 *
 * @param name The variable's name.
 * @returns Its value, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { readEnvironmentVariable } from "./environment.ts";
 *
 * const level = readEnvironmentVariable("KIT_LOG_LEVEL") ?? "info";
 * ```
 */
export function readEnvironmentVariable(name: string): string | undefined {
  return readEnv(name);
}
