// The check of a timeout option, shared by CachePolicy and the per-call
// options of getOrSet so that both say the same thing about a bad value.

/**
 * Returns `value` when it is `undefined` or a finite number of milliseconds,
 * 0 allowed when `zero` is true; throws a RangeError naming `owner name`
 * otherwise.
 */
export function checkTimeout(
  owner: string,
  name: string,
  value: number | undefined,
  zero: boolean,
): number | undefined {
  if (
    value !== undefined &&
    (typeof value !== "number" || !Number.isFinite(value) ||
      !(zero ? value >= 0 : value > 0))
  ) {
    throw new RangeError(
      `${owner} ${name} must be ${
        zero ? "0 or a positive" : "a positive"
      } number of milliseconds: ${value}`,
    );
  }
  return value;
}
