import { compileMessage, hasIcuSyntax, parseMessage } from "./_icu.ts";
import type {
  LocalizationParseContext,
  LocalizationSegment,
  LocalizationValueParser,
} from "./value_parser.ts";

/**
 * A {@linkcode LocalizationValueParser} for ICU MessageFormat, the syntax
 * real languages need for plurals and choices:
 *
 * - `{count, plural, =0 {no messages} one {# message} other {# messages}}`
 *   with the plural rules of the culture (`Intl.PluralRules`), exact matches
 *   (`=0`) and `offset:`; `#` is the number, formatted for the culture.
 * - `{place, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}`.
 * - `{gender, select, female {her} male {his} other {their}}`.
 * - Named arguments `{name}`, read from an object given after the key:
 *   `t("greeting", { name: "Ada" })`. A digit name (`{0}`) reads the
 *   positional argument instead.
 * - Typed arguments with styles: `{n, number}`, `{n, number, integer}`,
 *   `{n, number, percent}`, `{n, number, ::currency/EUR}` (skeletons),
 *   `{d, date, short|medium|long|full}`, `{d, time, short|…}`.
 * - `{@group.key}` references work inside ICU messages too.
 *
 * Only texts that use ICU arguments are parsed (a quick scan decides), so
 * texts written with Kit's positional `{0}` markers and references keep
 * their meaning and cost, and one resource can mix both. In an ICU message
 * a literal brace is written `'{'`, and `''` is an apostrophe.
 *
 * Each message is parsed (with `@formatjs/icu-messageformat-parser`) and
 * compiled into functions once per key and culture, on first use. A syntax
 * error throws a {@linkcode LocalizationMessageError} naming the culture, the
 * key and the position; the {@linkcode LocalizationManager} reports it and
 * treats the key as missing in that culture.
 *
 * It is the first of the manager's default value parsers.
 *
 * @example Usage
 * ```ts
 * import {
 *   DefaultCultureProvider,
 *   LocalizationManager,
 *   MapLocalizationProvider,
 * } from "@vendor/kit/localization";
 *
 * const manager = new LocalizationManager(
 *   new MapLocalizationProvider(new Map([["fr", new Map([
 *     ["inbox", "{count, plural, =0 {aucun message} one {# message} other {# messages}}"],
 *   ])]])),
 *   new DefaultCultureProvider("fr"),
 * );
 * await manager.setCulture("fr");
 * manager.t("inbox", { count: 1 }); // "1 message"
 * manager.t("inbox", { count: 1200 }); // "1 200 messages"
 * ```
 */
export class IcuLocalizationValueParser implements LocalizationValueParser {
  /**
   * Compiles `text` when it holds ICU arguments.
   *
   * @param text A plain-string piece of a translation.
   * @param context The culture, the key and access to other keys.
   * @returns `text` when it has no ICU argument, otherwise its final pieces.
   * @throws {LocalizationMessageError} When the text is not valid ICU
   * MessageFormat.
   * @throws {LocalizationReferenceError} When a reference in it closes a
   * cycle or nests too deep.
   *
   * @example Usage
   * ```ts
   * import { IcuLocalizationValueParser } from "@vendor/kit/localization";
   *
   * const parser = new IcuLocalizationValueParser();
   * const context = {
   *   culture: "en",
   *   sourceCulture: "en",
   *   key: "hi",
   *   reference: () => undefined,
   * };
   * parser.parse("Hello {0}", context); // "Hello {0}": left to the next parser
   * parser.parse("Hello {name}", context).length; // 2 pieces
   * ```
   */
  parse(
    text: string,
    context: LocalizationParseContext,
  ): string | LocalizationSegment[] {
    if (!hasIcuSyntax(text)) return text;
    const message = parseMessage(text, context.sourceCulture, context.key);
    return compileMessage(message, {
      culture: context.culture,
      key: context.key,
      reference: context.reference,
    });
  }
}
