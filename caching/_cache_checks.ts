// The checks of what a caller passes per call (a ttl, tags, timeouts, lock),
// made before anything runs, so that a bad option is an error of the call
// rather than of a factory run or a store command.
import type { CacheGetOrSetOptions } from "./cache.ts";
import { checkTimeout } from "./_check_timeout.ts";

/** Returns `tags` if it is an array of non-empty strings, else throws. */
export function checkTags(tags: unknown): string[] | undefined {
  if (tags === undefined) return undefined;
  if (
    !Array.isArray(tags) ||
    !tags.every((tag) => typeof tag === "string" && tag !== "")
  ) {
    throw new TypeError(
      `Cache tags must be an array of non-empty strings: ${String(tags)}`,
    );
  }
  return tags;
}

export function checkTtl(ttl: number | undefined): number | undefined {
  if (
    ttl !== undefined &&
    (typeof ttl !== "number" || !(ttl > 0) || !Number.isFinite(ttl))
  ) {
    throw new RangeError(
      `Cache ttl must be a positive number of milliseconds: ${ttl}`,
    );
  }
  return ttl;
}

/** Checks the per-call options that are not checked by CachePolicy. */
export function checkCallOptions(
  options: CacheGetOrSetOptions,
): number | undefined {
  checkTags(options.tags);
  checkTimeout("Cache", "softTimeout", options.softTimeout, true);
  checkTimeout("Cache", "hardTimeout", options.hardTimeout, false);
  checkTimeout("Cache", "lockTimeout", options.lockTimeout, false);
  if (options.lock !== undefined && typeof options.lock !== "boolean") {
    throw new RangeError(`Cache lock must be a boolean: ${options.lock}`);
  }
  return checkTtl(options.ttl);
}
