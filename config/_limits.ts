// Limits of the configuration package, shared by the file providers, the
// JSON reader and the tree builder.

/** The most segments a configuration key may have (its nesting depth). */
export const MAX_DEPTH = 200;

/** The default largest file a file provider reads: 10 MiB. */
export const DEFAULT_MAX_FILE_SIZE: number = 10 * 1024 * 1024;

/** The default longest a file provider waits for one file read: 10 s. */
export const DEFAULT_READ_TIMEOUT = 10_000;

/**
 * A limit in bytes as messages show it: `10 MiB` when whole mebibytes,
 * else `1000 bytes`.
 */
export function describeSize(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) && mib >= 1
    ? `${mib} MiB`
    : `${bytes} byte${bytes === 1 ? "" : "s"}`;
}

/**
 * Shortens a long key path for an error message: its start and its end,
 * with `…` between.
 */
export function shortenPath(path: string): string {
  return path.length <= 120 ? path : `${path.slice(0, 60)}…${path.slice(-40)}`;
}

/**
 * Finds the first value whose key path has more than `MAX_DEPTH` segments, walking it without recursion (so any depth is safe). A property
 * name holding colons counts one level per segment.
 *
 * @returns The key path of the value that is too deep, or `undefined`.
 */
export function findTooDeep(root: unknown): string | undefined {
  interface Frame {
    readonly value: unknown;
    readonly depth: number;
    readonly key: string;
    readonly parent: Frame | undefined;
  }
  const stack: Frame[] = [{
    value: root,
    depth: 0,
    key: "",
    parent: undefined,
  }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value, depth } = frame;
    if (depth > MAX_DEPTH) return pathOf(frame);
    if (value === null || typeof value !== "object") continue;
    const keys = Object.keys(value);
    for (const key of keys) {
      stack.push({
        value: (value as Record<string, unknown>)[key],
        depth: depth + segmentCount(key),
        key,
        parent: frame,
      });
    }
  }
  return undefined;
}

function segmentCount(key: string): number {
  let count = 1;
  for (let i = key.indexOf(":"); i !== -1; i = key.indexOf(":", i + 1)) {
    count++;
  }
  return count;
}

function pathOf(frame: { key: string; parent: unknown }): string {
  const keys: string[] = [];
  let current = frame as { key: string; parent: unknown } | undefined;
  while (current !== undefined && current.parent !== undefined) {
    keys.push(current.key);
    current = current.parent as { key: string; parent: unknown } | undefined;
  }
  return keys.reverse().join(":");
}

/**
 * Checks a `maxFileSize` option.
 *
 * @throws {RangeError} When it is given and not a positive number.
 */
export function checkMaxFileSize(owner: string, value: unknown): void {
  if (
    value !== undefined &&
    (typeof value !== "number" || Number.isNaN(value) || value <= 0)
  ) {
    throw new RangeError(
      `${owner}: maxFileSize must be a positive number of bytes, got ${
        String(value)
      }`,
    );
  }
}

/**
 * Checks a `readTimeout` option.
 *
 * @throws {RangeError} When it is given and not a positive number.
 */
export function checkReadTimeout(owner: string, value: unknown): void {
  if (
    value !== undefined &&
    (typeof value !== "number" || Number.isNaN(value) || value <= 0)
  ) {
    throw new RangeError(
      `${owner}: readTimeout must be a positive number of milliseconds, got ${
        String(value)
      }`,
    );
  }
}
