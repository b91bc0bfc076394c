// A cache entry as RemoteStoreCacheProvider keeps it in Redis: JSON of the
// value and its metadata, tags first and encoded (the read scripts find them
// by position in the text), with an expiry of how long it may still be
// served.
import type { ErrorReporter } from "../_error_reporter.ts";
import { decodeTag, encodeTag } from "./_redis_tags.ts";
import type { CacheEntry } from "../cache_provider.ts";
import { CacheValueError } from "../cache_value_error.ts";

function isEntry(value: unknown): value is CacheEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return false;
  }
  const entry = value as Record<string, unknown>;
  return typeof entry.storedAt === "number" &&
    (entry.ttl === undefined || typeof entry.ttl === "number") &&
    (entry.maxStale === undefined || typeof entry.maxStale === "number") &&
    (entry.tags === undefined ||
      (Array.isArray(entry.tags) &&
        entry.tags.every((tag) => typeof tag === "string")));
}

/**
 * The stored text of an entry.
 *
 * @throws What `JSON.stringify` throws for a value it cannot write.
 */
export function encodeEntry(entry: CacheEntry): string {
  if (entry.tags === undefined) return JSON.stringify(entry);
  const { tags, ...rest } = entry;
  return JSON.stringify({ tags: tags.map(encodeTag), ...rest });
}

/**
 * The entry of a stored text; `undefined` when there is none, or (reported
 * as a {@linkcode CacheValueError}) when the text is not an entry.
 */
export function decodeEntry(
  fullKey: string,
  reply: unknown,
  reporter: ErrorReporter,
): CacheEntry | undefined {
  if (reply === null || reply === undefined) return undefined;
  if (typeof reply !== "string") {
    reporter.report(new CacheValueError(fullKey, "not a string"));
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply);
  } catch (error) {
    reporter.report(new CacheValueError(fullKey, "not JSON", error));
    return undefined;
  }
  if (!isEntry(parsed)) {
    reporter.report(new CacheValueError(fullKey, "not a cache entry"));
    return undefined;
  }
  if (parsed.tags !== undefined) parsed.tags = parsed.tags.map(decodeTag);
  return parsed;
}

/**
 * How long Redis keeps an entry, in whole milliseconds (at least 1): `ttl`
 * when given, else the entry's `ttl + maxStale`, else `fallback`; a tagged
 * entry no longer than its tags' invalidations are remembered.
 */
export function retention(
  entry: CacheEntry,
  ttl: number | undefined,
  fallback: number,
  tagRetention: number,
): number {
  const keep = ttl ??
    (entry.ttl === undefined ? fallback : entry.ttl + (entry.maxStale ?? 0));
  const kept = keep >= 1 ? Math.ceil(keep) : 1;
  return entry.tags !== undefined && kept > tagRetention ? tagRetention : kept;
}
