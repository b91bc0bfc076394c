// Environment variable naming: `<PREFIX>_<SECTION>__<SUB>__<PROP>`,
// `__` one level, each segment UPPER_SNAKE → camelCase.
import { toCamelCase } from "../../core/mod.ts";

/** Normalises a prefix: `"APP"`, `"APP_"` and `"app"` all become `"APP_"`. */
export function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined) return "";
  const trimmed = prefix.trim().replace(/_+$/, "");
  return trimmed === "" ? "" : `${trimmed.toUpperCase()}_`;
}

/**
 * The part of `name` after the prefix, or `undefined` when the name does not
 * carry it (compared ignoring letter case).
 */
export function stripPrefix(name: string, prefix: string): string | undefined {
  if (prefix === "") return name;
  if (name.length <= prefix.length) return undefined;
  return name.slice(0, prefix.length).toUpperCase() === prefix
    ? name.slice(prefix.length)
    : undefined;
}

/**
 * Maps a variable name (without its prefix) to a colon key:
 * `DATABASE__CONNECTION_STRING` → `database:connectionString`. `undefined`
 * when a segment is empty or has no letters or digits.
 */
export function variableToKey(rest: string): string | undefined {
  const parts = rest.split("__");
  const segments: string[] = [];
  for (const part of parts) {
    const segment = toCamelCase(part);
    if (segment === "") return undefined;
    segments.push(segment);
  }
  return segments.join(":");
}

/** The variable name (without prefix) that a key maps from. */
export function keyToVariable(segments: readonly string[]): string {
  return segments.map((segment) =>
    segment.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()
  ).join("__");
}
