/**
 * Checks whether a string is `null`, `undefined` or empty.
 *
 * @param value The value to check.
 * @returns `true` when `value` is `null`, `undefined` or `""`.
 *
 * @example Usage
 * ```ts
 * import { isNullOrEmpty } from "@vendor/kit/core";
 *
 * isNullOrEmpty(""); // true
 * isNullOrEmpty(" "); // false
 * ```
 */
export function isNullOrEmpty(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.length === 0;
}

/**
 * Checks whether a string is `null`, `undefined`, empty or only white space.
 *
 * @param value The value to check.
 * @returns `true` when `value` holds no visible character.
 *
 * @example Usage
 * ```ts
 * import { isNullOrWhiteSpace } from "@vendor/kit/core";
 *
 * isNullOrWhiteSpace(" \t\n"); // true
 * isNullOrWhiteSpace(" a "); // false
 * ```
 */
export function isNullOrWhiteSpace(value: string | null | undefined): boolean {
  return value === null || value === undefined || value.trim().length === 0;
}

const FORMAT_PATTERN = /\{\{|\}\}|\{(\d+)\}/g;

/**
 * Fills positional `{0}`, `{1}`, … markers in a template with the arguments.
 *
 * `{{` and `}}` stand for literal braces. A marker whose index has no argument
 * is left in place, so a missing argument is visible in the output rather than
 * silently turned into `undefined`.
 *
 * @param template The template text.
 * @param args The values for the markers, converted with `String()`.
 * @returns The filled text.
 *
 * @example Usage
 * ```ts
 * import { format } from "@vendor/kit/core";
 *
 * format("Hello {0}, you have {1} messages", "Ada", 3);
 * // "Hello Ada, you have 3 messages"
 * format("{{0}} is literal, {0} is not", "x"); // "{0} is literal, x is not"
 * ```
 */
export function format(template: string, ...args: unknown[]): string {
  if (template.indexOf("{") === -1 && template.indexOf("}") === -1) {
    return template;
  }
  return template.replace(
    FORMAT_PATTERN,
    (match: string, index: string | undefined): string => {
      if (match === "{{") return "{";
      if (match === "}}") return "}";
      const position = Number(index);
      return position < args.length ? String(args[position]) : match;
    },
  );
}

/**
 * Shortens a string to at most `maxLength` characters, ending it with `suffix`
 * when it had to be cut. The suffix counts towards the length.
 *
 * @param value The text to shorten.
 * @param maxLength The largest length of the result (a non-negative integer).
 * @param suffix What marks a cut; `"…"` unless given.
 * @returns `value` itself when short enough, otherwise the cut text.
 * @throws {RangeError} When `maxLength` is negative or not an integer.
 *
 * @example Usage
 * ```ts
 * import { truncate } from "@vendor/kit/core";
 *
 * truncate("configuration", 6); // "confi…"
 * truncate("configuration", 8, "..."); // "confi..."
 * truncate("short", 10); // "short"
 * ```
 */
export function truncate(
  value: string,
  maxLength: number,
  suffix: string = "…",
): string {
  if (!Number.isInteger(maxLength) || maxLength < 0) {
    throw new RangeError(
      `truncate: maxLength must be a non-negative integer, got ${maxLength}`,
    );
  }
  if (value.length <= maxLength) return value;
  if (suffix.length >= maxLength) return suffix.slice(0, maxLength);
  return value.slice(0, maxLength - suffix.length) + suffix;
}
