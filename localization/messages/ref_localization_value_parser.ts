import type {
  LocalizationParseContext,
  LocalizationSegment,
  LocalizationValueParser,
} from "./value_parser.ts";

// `{{` is matched (and kept as written) so an escaped brace never opens a
// reference; a following FormatLocalizationValueParser turns it into "{".
const REFERENCE_PATTERN = /\{\{|\{@([^{}\s]+)\}/g;

/**
 * A {@linkcode LocalizationValueParser} that replaces references to other
 * keys, written `{@group.key}`, with the text of that key.
 *
 * - The key is looked up in the culture the text comes from, then along the
 *   same fallback chain as `translate`. Key resolvers do not apply: write the
 *   resource key.
 * - The referenced text goes through every value parser too, so references
 *   nest and `{0}` markers in it receive the arguments of the call.
 * - A reference to a key no culture has stays in the text as written.
 * - A text whose references expand it past
 *   {@linkcode LocalizationMessageError.MAX_EXPANDED_LENGTH} characters is
 *   reported to `onMessageError` and treated as missing.
 * - A cycle (`a` → `b` → `a`) makes `translate` throw a
 *   {@linkcode LocalizationReferenceError} naming the chain; it never
 *   overflows the stack.
 * - `{{@key}}` is not a reference (with {@linkcode FormatLocalizationValueParser}
 *   it prints `{@key}`).
 *
 * References are resolved once per key and culture, not on every call.
 *
 * @example Usage
 * ```ts
 * import {
 *   DefaultCultureProvider,
 *   LocalizationManager,
 *   MapLocalizationProvider,
 *   RefLocalizationValueParser,
 * } from "@vendor/kit/localization";
 *
 * const manager = new LocalizationManager(
 *   new MapLocalizationProvider(
 *     new Map([["en", new Map([
 *       ["common.app", "Kit"],
 *       ["home.title", "Welcome to {@common.app}"],
 *     ])]]),
 *   ),
 *   new DefaultCultureProvider("en"),
 *   (key) => `[${key}]`,
 *   undefined,
 *   [new RefLocalizationValueParser()],
 * );
 * await manager.setCulture("en");
 * manager.t("home.title"); // "Welcome to Kit"
 * ```
 */
export class RefLocalizationValueParser implements LocalizationValueParser {
  /**
   * Replaces the `{@key}` references of `text`.
   *
   * @param text A plain-string piece of a translation.
   * @param context Gives access to the other keys.
   * @returns `text` when it has no reference, otherwise its pieces.
   * @throws {LocalizationReferenceError} When a reference closes a cycle or
   * nests too deep.
   *
   * @example Usage
   * ```ts
   * import { RefLocalizationValueParser } from "@vendor/kit/localization";
   *
   * const pieces = new RefLocalizationValueParser().parse("Hi {@name}", {
   *   culture: "en",
   *   sourceCulture: "en",
   *   key: "greeting",
   *   reference: (key) => key === "name" ? [{ text: "Ada" }] : undefined,
   * });
   * pieces; // ["Hi ", { text: "Ada" }]
   * ```
   */
  parse(
    text: string,
    context: LocalizationParseContext,
  ): string | LocalizationSegment[] {
    if (text.indexOf("{@") === -1) return text;
    const segments: LocalizationSegment[] = [];
    let open = "";
    let last = 0;
    // matchAll works on a copy of the pattern: references parse nested texts
    // with this same parser while the loop runs.
    for (const match of text.matchAll(REFERENCE_PATTERN)) {
      if (match[1] === undefined) continue; // "{{": stays in the open text
      open += text.slice(last, match.index);
      last = match.index + match[0].length;
      const referenced = context.reference(match[1]);
      if (referenced === undefined) {
        open += match[0];
        continue;
      }
      if (open !== "") segments.push(open);
      open = "";
      // A loop, not push(...referenced): spreading a long list overflows the
      // stack.
      for (const piece of referenced) segments.push(piece);
    }
    if (segments.length === 0) return text;
    open += text.slice(last);
    if (open !== "") segments.push(open);
    return segments;
  }
}
