const SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * Reads an HTTP `Retry-After` header (RFC 9110 §10.2.3): a number of seconds
 * (`120`, fractions accepted) or an HTTP date. Kit's HTTP client, remote log
 * provider and analytics providers share it, so they wait alike.
 *
 * @param value The header's value, or `null` when the response has none.
 * @param now The current time in ms since the epoch, against which a date is
 * measured; defaults to `Date.now()`.
 * @returns The milliseconds to wait (0 for a date in the past), or
 * `undefined` when the header is absent, empty or unreadable.
 *
 * @example Usage
 * ```ts
 * import { parseRetryAfter } from "./retry_after.ts";
 *
 * parseRetryAfter("120"); // 120000
 * parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.UTC(2015, 9, 21, 7, 27)); // 60000
 * parseRetryAfter("soon"); // undefined
 * ```
 */
export function parseRetryAfter(
  value: string | null,
  now: number = Date.now(),
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (SECONDS.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date names its month and zone ("GMT"); Date.parse alone would
  // also take "-5" or "2024" as dates.
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
