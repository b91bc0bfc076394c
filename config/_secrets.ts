// Decides which keys are secret (see defaultSecretKeys) and masks values.
import { defaultSecretKeys } from "./secret_keys.ts";

/** The text a secret value prints as. */
export const MASK = "***";

const NUMERIC = /^\d+$/;

function normalize(segment: string): string {
  return segment.toLowerCase().replace(/[_-]/g, "");
}

/** Builds the secret test for the default words plus `extra`. */
export function createSecretMatcher(
  extra: readonly (string | RegExp)[] = [],
): (key: string) => boolean {
  const words = [...defaultSecretKeys, ...extra.filter(isString)]
    .map(normalize)
    .filter((word) => word !== "");
  const patterns = extra.filter((item): item is RegExp =>
    item instanceof RegExp
  );
  const segmentIsSecret = (segment: string): boolean => {
    if (NUMERIC.test(segment)) return false;
    const normalized = normalize(segment);
    const singular = normalized.endsWith("s")
      ? normalized.slice(0, -1)
      : normalized;
    for (const word of words) {
      if (normalized.endsWith(word) || singular.endsWith(word)) return true;
    }
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      if (pattern.test(segment)) return true;
    }
    return false;
  };
  return (key: string): boolean => key.split(":").some(segmentIsSecret);
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

/** A copy of plain data with the values of secret keys replaced by `***`. */
export function maskTree(
  value: unknown,
  key: string,
  isSecret: (key: string) => boolean,
): unknown {
  if (key !== "" && isSecret(key)) return MASK;
  if (Array.isArray(value)) {
    return value.map((item, i) =>
      maskTree(item, key === "" ? String(i) : `${key}:${i}`, isSecret)
    );
  }
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      copy[name] = maskTree(
        item,
        key === "" ? name : `${key}:${name}`,
        isSecret,
      );
    }
    return copy;
  }
  return value;
}
