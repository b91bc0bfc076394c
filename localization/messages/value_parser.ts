/**
 * A piece of translated text that later value parsers leave alone (for
 * example a literal brace from a `{{` escape, or a referenced text already
 * parsed).
 */
export interface LocalizationFixedText {
  /** The text. */
  readonly text: string;
}

/** A piece of translated text computed on each `translate` call. */
export interface LocalizationDynamicText {
  /**
   * Produces the piece from the arguments given to `translate`.
   *
   * @param args The arguments after the key.
   * @returns The text of the piece.
   */
  readonly render: (args: readonly unknown[]) => string;
}

/**
 * What a value parser splits text into: a plain string is text that the
 * following parsers still read; {@linkcode LocalizationFixedText} and
 * {@linkcode LocalizationDynamicText} pieces are final.
 */
export type LocalizationSegment =
  | string
  | LocalizationFixedText
  | LocalizationDynamicText;

/** A final piece: what references resolve to. */
export type LocalizationCompiledSegment =
  | LocalizationFixedText
  | LocalizationDynamicText;

/** What a value parser knows about the text it parses. */
export interface LocalizationParseContext {
  /** The culture being translated to (the one set with `setCulture`). */
  readonly culture: string;
  /**
   * The culture the text comes from: the requested culture, or the fallback
   * culture that supplied it.
   */
  readonly sourceCulture: string;
  /** The resource key of the text. */
  readonly key: string;
  /**
   * Parses another key of the translations through every value parser and
   * returns its final pieces. The key is looked up in
   * {@linkcode LocalizationParseContext.sourceCulture}, then along the rest of
   * the fallback chain.
   *
   * @param key A resource key.
   * @returns The pieces, or `undefined` when no culture has the key.
   * @throws {LocalizationReferenceError} When following `key` closes a cycle
   * or nests too deep.
   */
  reference(key: string): readonly LocalizationCompiledSegment[] | undefined;
}

/**
 * Turns translated text into its final form. Value parsers run once per key
 * and culture, when the key is first translated, not on every call: each
 * returns pieces, and the {@linkcode LocalizationManager} joins them into a
 * string (when nothing depends on the arguments) or into a small function of
 * the arguments. Parsers are applied in the order given; each reads only the
 * plain-string pieces the previous ones left.
 *
 * Kit has {@linkcode FormatLocalizationValueParser} (`{0}` arguments) and
 * {@linkcode RefLocalizationValueParser} (`{@group.key}` references).
 *
 * @example Usage
 * ```ts
 * import type { LocalizationValueParser } from "@vendor/kit/localization";
 *
 * // Replaces "(c)" with "©" once, when a text is first used.
 * const copyright: LocalizationValueParser = {
 *   parse: (text) => text.replaceAll("(c)", "©"),
 * };
 * ```
 */
export interface LocalizationValueParser {
  /**
   * Parses one plain-string piece of a text.
   *
   * @param text The piece.
   * @param context The cultures, the key and access to other keys.
   * @returns A string (still read by the following parsers) or pieces.
   */
  parse(
    text: string,
    context: LocalizationParseContext,
  ): string | readonly LocalizationSegment[];
}
