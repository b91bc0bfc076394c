// The size limit of one translation resource, shared by the HTTP and the
// JSON file loaders: the default, the option check and the reason given when
// a resource is refused.

/** The default largest resource a loader reads: 10 MiB, as for configuration files. */
export const DEFAULT_MAX_RESOURCE_SIZE: number = 10 * 1024 * 1024;

/**
 * Checks a `maxResourceSize` option and returns it (the default when absent).
 *
 * @throws {RangeError} When it is not a whole number of bytes >= 0.
 */
export function checkMaxResourceSize(owner: string, value: unknown): number {
  const size = value ?? DEFAULT_MAX_RESOURCE_SIZE;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    throw new RangeError(
      `${owner}: maxResourceSize must be a whole number of bytes >= 0, got ${
        String(size)
      }`,
    );
  }
  return size;
}

/**
 * Why a resource was refused: `how` says what showed it was too large (its
 * Content-Length, its file size, or the bytes that arrived).
 */
export function tooLargeReason(limit: number, how: string): string {
  return `the resource is larger than the limit of ${limit} bytes ` +
    `(maxResourceSize): ${how}; make the resource smaller or raise the ` +
    "loader's maxResourceSize option";
}
