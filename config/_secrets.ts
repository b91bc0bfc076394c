// Masks configuration values with core's secret rule (the one logging uses).
import {
  isPlainObject,
  maskSecretText,
  SECRET_MASK,
  type SecretMatcher,
} from "../core/mod.ts";

/**
 * A copy of plain data with secret values replaced by `***`: by key name
 * (a secret word anywhere in the path masks the whole subtree; `session`,
 * `cookie`, `private` mask a value or list but not a group of settings),
 * and by shape inside every other string (URL passwords, Bearer tokens).
 */
export function maskTree(
  value: unknown,
  key: string,
  secrets: SecretMatcher,
): unknown {
  const match = key === "" ? "none" : secrets.match(key);
  if (Array.isArray(value)) {
    if (match !== "none") return SECRET_MASK;
    return value.map((item, i) =>
      maskTree(item, key === "" ? String(i) : `${key}:${i}`, secrets)
    );
  }
  if (isPlainObject(value)) {
    if (match === "all") return SECRET_MASK;
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      copy[name] = maskTree(
        item,
        key === "" ? name : `${key}:${name}`,
        secrets,
      );
    }
    return copy;
  }
  if (key === "") {
    return typeof value === "string" ? maskSecretText(value) : value;
  }
  return secrets.maskValue(key, value);
}

/**
 * The string values of secret keys in a list of leaves (at least four
 * characters long), for masking wherever else they might be quoted.
 */
export function secretLiterals(
  leaves: readonly { readonly key: string; readonly value: unknown }[],
  secrets: SecretMatcher,
): string[] {
  const literals: string[] = [];
  for (const leaf of leaves) {
    if (
      typeof leaf.value === "string" && leaf.value.length >= 4 &&
      secrets.isSecret(leaf.key)
    ) {
      literals.push(leaf.value);
    }
  }
  return literals;
}
