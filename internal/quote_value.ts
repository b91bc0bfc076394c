// How an error message quotes a value it rejects (a setting, a
// configuration key's value): Kit's one rule, used by the configuration's
// validation and by the host's server settings, so both print the same.
// Masked before it is shortened, so a cut cannot leave part of a secret
// whose shape the masking no longer recognises; shortened so a huge value
// cannot make a huge error line; escaped so it cannot drive a terminal.
import { maskSecretText, SECRET_MASK } from "../core/mod.ts";
import { escapeControls } from "./escape_controls.ts";

/**
 * The most characters of a value an error message quotes (the text inside
 * the quotes, `...` included).
 *
 * @example Usage
 * ```ts
 * import { MAX_QUOTED_CHARACTERS } from "./quote_value.ts";
 *
 * MAX_QUOTED_CHARACTERS; // 60
 * ```
 */
export const MAX_QUOTED_CHARACTERS = 60;

/** Options of {@linkcode quoteValue}. */
export interface QuoteValueOptions {
  /**
   * The value is a secret whole (its key names one, or it was read from a
   * `<NAME>_FILE` variable): quoted as `***`, whatever it holds.
   */
  readonly secret?: boolean;
  /**
   * Masks the secrets a text carries. Default: `maskSecretText` (secrets by
   * their shape); the configuration also masks the secret values it knows.
   */
  readonly mask?: (text: string) => string;
}

function shorten(text: string): string {
  return text.length > MAX_QUOTED_CHARACTERS
    ? `${text.slice(0, MAX_QUOTED_CHARACTERS - 3)}...`
    : text;
}

/**
 * A value as an error message quotes it: a string JSON-quoted, its secrets
 * masked, then cut to {@linkcode MAX_QUOTED_CHARACTERS} characters; a
 * number, boolean or bigint as written (cut alike); `null`, `an array`,
 * `an object`, `a function` otherwise; `***` for a secret.
 *
 * @param value The rejected value.
 * @param options Whether it is a secret, and how to mask a text.
 * @returns The quoted value, with no control character left raw.
 *
 * @example Usage
 * ```ts
 * import { quoteValue } from "./quote_value.ts";
 *
 * quoteValue("abc"); // '"abc"'
 * quoteValue("redis://app:hunter2@cache:6379"); // '"redis://app:***@cache:6379"'
 * quoteValue("9".repeat(100_000)).length; // 62
 * quoteValue("hunter2", { secret: true }); // "***"
 * ```
 */
export function quoteValue(
  value: unknown,
  options: QuoteValueOptions = {},
): string {
  if (options.secret === true) return SECRET_MASK;
  switch (typeof value) {
    case "string": {
      const masked = (options.mask ?? maskSecretText)(value);
      // JSON escapes C0 characters; DEL and C1 ones are escaped after it.
      return escapeControls(JSON.stringify(shorten(masked)));
    }
    case "number":
    case "boolean":
    case "bigint":
    case "undefined":
      return shorten(String(value));
    case "function":
      // Its source text could hold anything, secrets among it.
      return "a function";
    case "symbol":
      return "a symbol";
  }
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : "an object";
}
