import { KitError } from "../../core/mod.ts";

/**
 * A translation that is not valid ICU MessageFormat (for example an unclosed
 * `{count, plural, …` or a plural without its `other` choice). The message
 * names the culture, the key and the position:
 * `Invalid message for key "cart.items" in culture "fr" at line 1, column 18: EXPECT_ARGUMENT_CLOSING_BRACE`.
 *
 * Translating never throws it: the {@linkcode LocalizationManager} reports it
 * to `onMessageError` (by default `console.error`, once per key and culture)
 * and treats the key as missing in that culture, so the next culture of the
 * fallback chain, or the missing-translation handler, answers.
 *
 * @example Usage
 * ```ts
 * import {
 *   DefaultCultureProvider,
 *   LocalizationManager,
 *   type LocalizationMessageError,
 *   MapLocalizationProvider,
 * } from "@vendor/kit/localization";
 *
 * const errors: LocalizationMessageError[] = [];
 * const manager = new LocalizationManager(
 *   new MapLocalizationProvider(
 *     new Map([["en", new Map([["cart.items", "{count, plural, one {# item}"]])]]),
 *   ),
 *   new DefaultCultureProvider("en"),
 *   (key) => `[${key}]`,
 *   undefined,
 *   undefined,
 *   { onMessageError: (error) => errors.push(error) },
 * );
 * await manager.setCulture("en");
 * manager.t("cart.items", { count: 2 }); // "[cart.items]"
 * errors[0].key; // "cart.items"
 * ```
 */
export class LocalizationMessageError extends KitError {
  /** What went wrong, as a stable string: `localization_message`. */
  readonly code = "localization_message";

  /**
   * The longest a text may become with its `{@key}` references expanded, in
   * characters. Counted generously: the text's own characters plus the
   * expanded length of each reference, once for every place it is referred
   * to (in every choice of an ICU message). A text past it is reported with
   * this error and treated as missing, so a small resource whose references
   * double the text at each level cannot exhaust the memory.
   */
  static readonly MAX_EXPANDED_LENGTH: number = 1_000_000;

  /** The culture whose translation is invalid. */
  readonly culture: string;
  /** The resource key of the translation. */
  readonly key: string;
  /** The line of the error in the text, from 1. */
  readonly line: number;
  /** The column of the error in the text, from 1. */
  readonly column: number;
  /** The offset of the error in the text, from 0. */
  readonly offset: number;
  /** What is wrong, as the ICU message parser names it. */
  readonly reason: string;

  /**
   * Creates the error.
   *
   * @param culture The culture whose translation is invalid.
   * @param key The resource key.
   * @param position Where in the text the error is.
   * @param reason What is wrong.
   * @param advice What to do about it; by default, to fix the ICU syntax.
   */
  constructor(
    culture: string,
    key: string,
    position: { line: number; column: number; offset: number },
    reason: string,
    advice: string = "Fix the ICU MessageFormat syntax of this translation " +
      "(literal braces are written '{' and '}')",
  ) {
    super(
      `Invalid message for key ${JSON.stringify(key)} in culture ${
        JSON.stringify(culture)
      } at line ${position.line}, column ${position.column}: ${reason}. ` +
        advice,
    );
    this.name = "LocalizationMessageError";
    this.culture = culture;
    this.key = key;
    this.line = position.line;
    this.column = position.column;
    this.offset = position.offset;
    this.reason = reason;
  }
}
