// Masks secret properties and turns values JSON cannot carry (Error, bigint)
// into ones it can. Used by every built-in provider right before an entry
// leaves the process, and by the public redactProperties().

/** Keys masked by default (spec §5 rule 4: secrets never reach a log). */
export const DEFAULT_KEYS: readonly string[] = [
  "password",
  "secret",
  "apiKey",
  "token",
  "authorization",
  "connectionString",
];

/** What a masked value is written as. */
export const MASK = "***";

// Nested plain objects and arrays are followed at any depth. Down to
// MAX_DEPTH the walk keeps no state (the common case allocates nothing);
// deeper, it tracks the objects on the current path, so a cycle is written
// as "[Circular]" (secrets beside it still masked), and beyond MAX_NESTING a
// value is written as "[Truncated]" rather than risk the stack.
const MAX_DEPTH = 8;
const MAX_NESTING = 100;
const CIRCULAR = "[Circular]";
const TRUNCATED = "[Truncated]";
// The decision per key is cached; a flood of distinct keys resets the cache
// instead of growing it without bound.
const MAX_CACHED_KEYS = 2048;

function normalize(key: string): string {
  return key.toLowerCase().replace(/[\s_.\-]/g, "");
}

/** A pattern list, compiled. */
export class Redactor {
  readonly #needles: string[];
  readonly #patterns: RegExp[];
  readonly #cache = new Map<string, boolean>();

  constructor(extra: readonly (string | RegExp)[] = []) {
    const needles = DEFAULT_KEYS.map(normalize);
    const patterns: RegExp[] = [];
    for (const key of extra) {
      if (typeof key === "string") {
        const needle = normalize(key);
        if (needle !== "" && !needles.includes(needle)) needles.push(needle);
      } else patterns.push(key);
    }
    this.#needles = needles;
    this.#patterns = patterns;
  }

  /**
   * A key is secret when, lower-cased and without `_`, `-`, `.` and blanks,
   * it contains one of the needles (`dbPassword`, `X-Api-Key`,
   * `DB_CONNECTION_STRING`), or when a RegExp pattern matches it as written.
   */
  isSecret(key: string): boolean {
    const cache = this.#cache;
    let secret = cache.get(key);
    if (secret !== undefined) return secret;
    secret = false;
    const normalized = normalize(key);
    for (const needle of this.#needles) {
      if (normalized.includes(needle)) {
        secret = true;
        break;
      }
    }
    if (!secret) {
      for (const pattern of this.#patterns) {
        pattern.lastIndex = 0;
        if (pattern.test(key)) {
          secret = true;
          break;
        }
      }
    }
    if (cache.size >= MAX_CACHED_KEYS) cache.clear();
    cache.set(key, secret);
    return secret;
  }

  /**
   * Returns the properties ready for JSON: secrets masked, errors and bigints
   * converted. The same object comes back when nothing had to change, so the
   * common case allocates nothing.
   */
  prepare(
    properties: Readonly<Record<string, unknown>>,
  ): Record<string, unknown> {
    return this.#object(properties, 0) as Record<string, unknown>;
  }

  #value(value: unknown, depth: number, path?: WeakSet<object>): unknown {
    if (typeof value === "object") {
      if (value === null) return value;
      if (value instanceof Error) return serializeError(value);
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
      const next = this.isSecret(key) ? MASK : this.#value(value, depth, path);
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

/** The JSON shape of an error: name, message, stack and cause. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  cause?: unknown;
}

/** Turns an error (and its cause chain, a few levels deep) into plain data. */
export function serializeError(error: Error, depth = 0): SerializedError {
  const out: SerializedError = { name: error.name, message: error.message };
  if (error.stack !== undefined) out.stack = error.stack;
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined && depth < 3) {
    out.cause = cause instanceof Error
      ? serializeError(cause, depth + 1)
      : cause;
  }
  return out;
}
