// How the Redis store's setting messages show a value: bare (`: abc`), as
// they always have, but masked and bounded the way Kit quotes a setting (a
// URL's password is `***`, a long value cut): a text's quotes are taken off.
import { quoteValue } from "../../internal/quote_value.ts";

/**
 * A quoted value (`quoteValue`, `quoteSetting`) without the quotes of a
 * text.
 *
 * @param quoted The quoted value.
 * @returns It bare.
 */
export function unquoted(quoted: string): string {
  return quoted.length >= 2 && quoted.startsWith('"') && quoted.endsWith('"')
    ? quoted.slice(1, -1)
    : quoted;
}

/**
 * A value as the store's messages show it: masked, bounded, bare.
 *
 * @param value The value refused.
 * @returns The text to show.
 */
export function shownValue(value: unknown): string {
  return unquoted(quoteValue(value));
}
