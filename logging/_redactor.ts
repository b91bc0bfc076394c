// Masks secret properties and turns values JSON cannot carry (Error, bigint)
// into ones it can. Used by every built-in provider right before an entry
// leaves the process, and by the public redactProperties(). Which keys and
// values are secret is core's secret rule, the one the configuration uses.
import {
  createSecretMatcher,
  maskSecretText,
  SECRET_MASK,
  secretKeyWords,
  type SecretMatcher,
  secretValueKeyWords,
} from "../core/mod.ts";
import {
  entryErrorBudget,
  type ErrorBudget,
  serializeError,
} from "./_serialize_error.ts";

/** Keys masked by default (secrets never reach a log). */
export const DEFAULT_KEYS: readonly string[] = Object.freeze([
  ...secretKeyWords,
  ...secretValueKeyWords,
]);

// Nested plain objects and arrays are followed at any depth. Down to
// MAX_DEPTH the walk keeps no state (the common case allocates nothing);
// deeper, it tracks the objects on the current path, so a cycle is written
// as "[Circular]" (secrets beside it still masked), and beyond MAX_NESTING a
// value is written as "[Truncated]" rather than risk the stack.
const MAX_DEPTH = 8;
const MAX_NESTING = 100;
const CIRCULAR = "[Circular]";
const TRUNCATED = "[Truncated]";
const MAX_CACHED_KEYS = 2048;
const NONE = 0;
const VALUE = 1;
const ALL = 2;

/** The secret rule with the provider's extra keys, compiled. */
export class Redactor {
  readonly #matcher: SecretMatcher;
  // The matcher's decision per key as a number (0 none, 1 value, 2 all), so
  // the walk costs one Map.get per key; a flood of distinct keys resets the
  // cache instead of growing it without bound.
  readonly #levels = new Map<string, number>();
  // The budget of the entry being prepared (see prepare()).
  #errors: ErrorBudget | undefined;

  constructor(extra: readonly (string | RegExp)[] = []) {
    this.#matcher = createSecretMatcher(extra);
  }

  /**
   * Core's secret rule: a key is secret when one of its `:` segments ends
   * with a secret word (`dbPassword`, `X-Api-Key`, `DB_CONNECTION_STRING`,
   * `aws:secretAccessKey`), when its last segment ends with `session`,
   * `cookie` or `private`, or when a RegExp pattern matches it as written.
   */
  isSecret(key: string): boolean {
    return this.#matcher.isSecret(key);
  }

  #level(key: string): number {
    const levels = this.#levels;
    let level = levels.get(key);
    if (level === undefined) {
      const match = this.#matcher.match(key);
      level = match === "all" ? ALL : match === "value" ? VALUE : NONE;
      if (levels.size >= MAX_CACHED_KEYS) levels.clear();
      levels.set(key, level);
    }
    return level;
  }

  /** Masks the secrets a text carries by shape (URL passwords, Bearer…). */
  maskText(text: string): string {
    return maskSecretText(text);
  }

  /**
   * Returns the properties ready for JSON: secrets masked, errors and bigints
   * converted. The same object comes back when nothing had to change, so the
   * common case allocates nothing. Errors among them are bounded as the
   * entry's own error is (see _serialize_error.ts), drawing on `errors`,
   * the entry's budget, when given.
   */
  prepare(
    properties: Readonly<Record<string, unknown>>,
    errors?: ErrorBudget,
  ): Record<string, unknown> {
    // Saved and restored for a getter that logs while it is read; every
    // call sets its own budget first, so a throw leaves nothing behind.
    const saved = this.#errors;
    this.#errors = errors;
    const prepared = this.#object(properties, 0) as Record<string, unknown>;
    this.#errors = saved;
    return prepared;
  }

  #value(value: unknown, depth: number, path?: WeakSet<object>): unknown {
    if (typeof value === "object") {
      if (value === null) return value;
      if (value instanceof Error) {
        // The budget is made at the first error: most entries have none.
        return serializeError(value, this.#errors ??= entryErrorBudget());
      }
      const isArray = Array.isArray(value);
      if (!isArray) {
        if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
          return value;
        }
        if (
          ArrayBuffer.isView(value) || value instanceof Map ||
          value instanceof Set
        ) {
          return value;
        }
      }
      if (depth < MAX_DEPTH) {
        return isArray
          ? this.#array(value, depth + 1, path)
          : this.#object(value as Record<string, unknown>, depth + 1, path);
      }
      if (depth >= MAX_NESTING) return TRUNCATED;
      path ??= new WeakSet<object>();
      if (path.has(value)) return CIRCULAR;
      path.add(value);
      try {
        return isArray
          ? this.#array(value, depth + 1, path)
          : this.#object(value as Record<string, unknown>, depth + 1, path);
      } finally {
        path.delete(value);
      }
    }
    if (typeof value === "string") return maskSecretText(value);
    if (typeof value === "bigint") return value.toString();
    return value;
  }

  #object(
    source: Readonly<Record<string, unknown>>,
    depth: number,
    path?: WeakSet<object>,
  ): unknown {
    let copy: Record<string, unknown> | undefined;
    for (const key in source) {
      if (!Object.hasOwn(source, key)) continue;
      const value = source[key];
      const level = this.#level(key);
      const next = level === ALL || (level === VALUE && isValueOrList(value))
        ? SECRET_MASK
        : this.#value(value, depth, path);
      if (next !== value && copy === undefined) {
        copy = {};
        for (const earlier in source) {
          if (earlier === key) break;
          if (Object.hasOwn(source, earlier)) copy[earlier] = source[earlier];
        }
      }
      if (copy !== undefined) copy[key] = next;
    }
    return copy ?? source;
  }

  #array(
    source: readonly unknown[],
    depth: number,
    path?: WeakSet<object>,
  ): unknown {
    let copy: unknown[] | undefined;
    for (let i = 0; i < source.length; i++) {
      const value = source[i];
      const next = this.#value(value, depth, path);
      if (next !== value && copy === undefined) copy = source.slice(0, i);
      if (copy !== undefined) copy.push(next);
    }
    return copy ?? source;
  }
}

// What a "value" match of the secret rule (session, cookie, private) masks:
// a string, a number or a list, not a group of settings nor a flag.
function isValueOrList(value: unknown): boolean {
  return value !== null && value !== undefined &&
    typeof value !== "boolean" &&
    (typeof value !== "object" || Array.isArray(value));
}
