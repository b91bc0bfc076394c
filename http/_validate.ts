// Option checks of HttpClient: clear errors at construction.

/** The longest delay a timer takes (2^31 - 1 ms). */
export const MAX_TIMER = 2_147_483_647;

/**
 * Validates a duration. For a timeout (`off` true) `Infinity` means no limit
 * and is stored as 0; a delay or cap may be `Infinity` as it is.
 */
export function milliseconds(
  name: string,
  value: number | undefined,
  fallback: number,
  off = false,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new RangeError(
      `Invalid ${name}: ${value}; expected a number of milliseconds >= 0`,
    );
  }
  if (value === Infinity) return off ? 0 : Infinity;
  if (value > MAX_TIMER) {
    throw new RangeError(
      `Invalid ${name}: ${value}; the largest timer is ${MAX_TIMER}ms`,
    );
  }
  return value;
}

export function count(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(
      `Invalid ${name}: ${value}; expected a whole number >= 0`,
    );
  }
  return value;
}

/** Validates a size in bytes; `Infinity` means no limit and is stored as 0. */
export function byteCount(
  name: string,
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (value === Infinity) return 0;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Invalid ${name}: ${value}; expected a whole number of bytes >= 0`,
    );
  }
  return value;
}
