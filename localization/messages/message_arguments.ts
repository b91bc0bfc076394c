import { argumentsOf, hasIcuSyntax, parseMessage } from "./_icu.ts";

/**
 * What a message argument must be, as generated key types declare it:
 * `value` (any value: a string, number, bigint or Date), `number` (a
 * `plural`, `selectordinal` or `number` argument), `date` (a `date` or
 * `time` argument) or `string` (a `select` argument).
 *
 * @example
 * ```ts
 * import type { MessageArgumentKind } from "@vendor/kit/localization";
 *
 * const kind: MessageArgumentKind = "number";
 * ```
 */
export type MessageArgumentKind = "value" | "number" | "date" | "string";

/**
 * The named arguments an ICU MessageFormat text reads, each with what it
 * must be; tools that check resources or generate key types use it. A name
 * used in two ways keeps the narrower kind (a `plural` makes it a number).
 * `{@key}` references are not arguments of the text (the referenced text
 * has arguments of its own).
 *
 * @param text The resource text.
 * @param culture The culture of the resource, named in an error.
 * @param key The resource key of the text, named in an error.
 * @returns The arguments by name, in the order the text first reads them;
 * `undefined` when the text is no ICU message (plain text, or Kit's
 * positional `{0}` markers), which Kit does not parse as ICU either.
 * @throws {LocalizationMessageError} When the text is not a valid ICU
 * message (with the line and column).
 *
 * @example
 * ```ts
 * import { messageArguments } from "@vendor/kit/localization";
 *
 * const args = messageArguments(
 *   "{count, plural, one {# item for {name}} other {# items for {name}}}",
 *   "en",
 *   "cart.items",
 * );
 * console.log(args); // Map { "count" => "number", "name" => "value" }
 * console.log(messageArguments("Hello {0}", "en", "greeting")); // undefined
 * ```
 */
export function messageArguments(
  text: string,
  culture: string,
  key: string,
): ReadonlyMap<string, MessageArgumentKind> | undefined {
  if (!hasIcuSyntax(text)) return undefined;
  const parsed = parseMessage(text, culture, key);
  const out = new Map<string, MessageArgumentKind>();
  for (const [name, kind] of argumentsOf(parsed.elements)) {
    if (!parsed.references.has(name)) out.set(name, kind);
  }
  return out;
}
