// The rules of the HTTP cache (RFC 9111) as a private cache applies them:
// reading Cache-Control, how long a response stays fresh, and whether a
// response may be stored at all. Pure functions of headers and times; the
// cache itself (_http_cache.ts) decides what to do with the answers.
import { isSecretKey } from "../../core/mod.ts";

/** Cache-Control directives by lower-case name; `true` for one without value. */
export type CacheControl = ReadonlyMap<string, string | true>;

const NONE: CacheControl = new Map();

/** One directive: a token, optionally `=token` or `="quoted string"`. */
const DIRECTIVE =
  /([^\s=,]+)[ \t]*(?:=[ \t]*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*)))?[ \t]*(?:,|$)/g;

/** The directives of a Cache-Control value; the first of a name counts. */
export function parseCacheControl(value: string | null): CacheControl {
  if (value === null || value === "") return NONE;
  const directives = new Map<string, string | true>();
  for (const match of value.matchAll(DIRECTIVE)) {
    const name = match[1].toLowerCase();
    if (directives.has(name)) continue;
    const quoted = match[2];
    directives.set(
      name,
      quoted !== undefined
        ? quoted.replace(/\\(.)/g, "$1")
        : match[3] !== undefined
        ? match[3]
        : true,
    );
  }
  return directives;
}

/** The largest delta-seconds a cache need represent (RFC 9111 §1.2.2). */
const MAX_SECONDS = 2_147_483_648;

/**
 * A delta-seconds value in milliseconds; undefined when it is not one (an
 * invalid `max-age` makes a response stale).
 */
export function seconds(
  value: string | true | null | undefined,
): number | undefined {
  if (typeof value !== "string" || !/^\d+$/.test(value)) return undefined;
  return Math.min(Number(value), MAX_SECONDS) * 1000;
}

/**
 * How long a response is fresh from its generation, in milliseconds: its
 * `max-age` (`s-maxage` is for shared caches), else `Expires` minus `Date`,
 * else 0. No heuristic freshness: a response that does not say how long it
 * is fresh is revalidated on every use (when it has a validator).
 */
export function freshnessLifetime(
  control: CacheControl,
  headers: Headers,
): number {
  const maxAge = control.get("max-age");
  if (maxAge !== undefined) return seconds(maxAge) ?? 0;
  const expires = headers.get("expires");
  if (expires === null) return 0;
  const until = Date.parse(expires);
  if (Number.isNaN(until)) return 0; // "0" and other invalid dates: stale
  const date = Date.parse(headers.get("date") ?? "");
  return Math.max(0, until - (Number.isNaN(date) ? Date.now() : date));
}

/**
 * The age of a response when it arrived, in milliseconds: its `Age` plus
 * the time the request took (RFC 9111 §4.2.3, corrected age). The apparent
 * age from `Date` is left out, as other private caches leave it: the
 * server's and the client's clocks often disagree by more than a short
 * `max-age`.
 */
export function initialAge(
  headers: Headers,
  requestTime: number,
  responseTime: number,
): number {
  const age = seconds(headers.get("age")?.trim()) ?? 0;
  return age + Math.max(0, responseTime - requestTime);
}

/** Statuses whose responses are stored (the JSON methods read only 2xx). */
export const STORED_STATUSES: ReadonlySet<number> = new Set([200, 203, 204]);

/**
 * The names a `Vary` value lists, lower case; `["*"]` for a response that
 * varies on anything.
 */
export function varyNames(value: string | null): string[] {
  if (value === null) return [];
  const names: string[] = [];
  for (const part of value.split(",")) {
    const name = part.trim().toLowerCase();
    if (name === "*") return ["*"];
    if (name !== "" && !names.includes(name)) names.push(name);
  }
  return names;
}

/** Whether a header carries credentials, by Kit's secret rule. */
export function isCredentialHeader(name: string): boolean {
  return isSecretKey(name);
}
