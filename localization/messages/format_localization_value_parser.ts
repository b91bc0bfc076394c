import type {
  LocalizationParseContext,
  LocalizationSegment,
  LocalizationValueParser,
} from "./value_parser.ts";

/** Options of a {@linkcode FormatLocalizationValueParser}. */
export interface FormatLocalizationValueParserOptions {
  /** How numbers and bigints are formatted; `Intl` defaults when absent. */
  numberFormat?: Intl.NumberFormatOptions;
  /** How `Date` values are formatted; `Intl` defaults when absent. */
  dateFormat?: Intl.DateTimeFormatOptions;
}

const MARKER_PATTERN = /\{\{|\}\}|\{(\d+)\}/g;

/**
 * A {@linkcode LocalizationValueParser} that fills positional markers
 * `{0}`, `{1}`, … with the arguments given to `translate`.
 *
 * - `{{` and `}}` stand for literal braces.
 * - Numbers and bigints are formatted with `Intl.NumberFormat`, dates with
 *   `Intl.DateTimeFormat`, for the culture being translated to (`1234.5` is
 *   `1,234.5` in `en`, `1 234,5` in `fr`). The `Intl` formatters are created
 *   once per culture and reused.
 * - Strings are inserted as they are; other values with `String()`.
 * - A marker with no matching argument stays in the text, so it shows.
 *
 * The text is scanned once per key and culture; each call only joins the
 * pieces.
 *
 * @example Usage
 * ```ts
 * import {
 *   DefaultCultureProvider,
 *   FormatLocalizationValueParser,
 *   LocalizationManager,
 *   MapLocalizationProvider,
 * } from "@vendor/kit/localization";
 *
 * const manager = new LocalizationManager(
 *   new MapLocalizationProvider(
 *     new Map([["en", new Map([["inbox", "Hello {0}, you have {1} messages"]])]]),
 *   ),
 *   new DefaultCultureProvider("en"),
 *   (key) => `[${key}]`,
 *   undefined,
 *   [new FormatLocalizationValueParser()],
 * );
 * await manager.setCulture("en");
 * manager.t("inbox", "Ada", 1200); // "Hello Ada, you have 1,200 messages"
 * ```
 */
export class FormatLocalizationValueParser implements LocalizationValueParser {
  readonly #numberOptions: Intl.NumberFormatOptions | undefined;
  readonly #dateOptions: Intl.DateTimeFormatOptions | undefined;
  readonly #formatters = new Map<string, CultureFormatters>();

  /**
   * Creates the parser.
   *
   * @param options How numbers and dates are formatted.
   */
  constructor(options: FormatLocalizationValueParserOptions = {}) {
    this.#numberOptions = options.numberFormat;
    this.#dateOptions = options.dateFormat;
  }

  /**
   * Splits `text` at its `{n}` markers and `{{`/`}}` escapes.
   *
   * @param text A plain-string piece of a translation.
   * @param context The culture the arguments are formatted for.
   * @returns `text` when it has no marker, otherwise its pieces.
   *
   * @example Usage
   * ```ts
   * import { FormatLocalizationValueParser } from "@vendor/kit/localization";
   *
   * const pieces = new FormatLocalizationValueParser().parse("{{{0}}}", {
   *   culture: "en",
   *   sourceCulture: "en",
   *   key: "braces",
   *   reference: () => undefined,
   * });
   * pieces.length; // 3: a fixed "{", the argument, a fixed "}"
   * ```
   */
  parse(
    text: string,
    context: LocalizationParseContext,
  ): string | LocalizationSegment[] {
    if (text.indexOf("{") === -1 && text.indexOf("}") === -1) return text;
    const segments: LocalizationSegment[] = [];
    let formatters: CultureFormatters | undefined;
    let last = 0;
    for (const match of text.matchAll(MARKER_PATTERN)) {
      if (match.index > last) segments.push(text.slice(last, match.index));
      last = match.index + match[0].length;
      if (match[1] === undefined) {
        segments.push({ text: match[0][0] });
        continue;
      }
      formatters ??= this.#formattersFor(context.culture);
      segments.push(argument(Number(match[1]), match[0], formatters));
    }
    if (segments.length === 0) return text;
    if (last < text.length) segments.push(text.slice(last));
    return segments;
  }

  #formattersFor(culture: string): CultureFormatters {
    let formatters = this.#formatters.get(culture);
    if (formatters === undefined) {
      formatters = new CultureFormatters(
        culture,
        this.#numberOptions,
        this.#dateOptions,
      );
      // Bounded, so a server asked for many cultures keeps memory flat.
      if (this.#formatters.size >= 512) {
        this.#formatters.delete(this.#formatters.keys().next().value!);
      }
      this.#formatters.set(culture, formatters);
    }
    return formatters;
  }
}

function argument(
  index: number,
  marker: string,
  formatters: CultureFormatters,
): { readonly render: (args: readonly unknown[]) => string } {
  return {
    render: (args) =>
      index < args.length ? formatters.format(args[index]) : marker,
  };
}

// The Intl formatters of one culture, created on first use.
class CultureFormatters {
  readonly #culture: string;
  readonly #numberOptions: Intl.NumberFormatOptions | undefined;
  readonly #dateOptions: Intl.DateTimeFormatOptions | undefined;
  #number: Intl.NumberFormat | undefined;
  #date: Intl.DateTimeFormat | undefined;

  constructor(
    culture: string,
    numberOptions: Intl.NumberFormatOptions | undefined,
    dateOptions: Intl.DateTimeFormatOptions | undefined,
  ) {
    this.#culture = culture;
    this.#numberOptions = numberOptions;
    this.#dateOptions = dateOptions;
  }

  format(value: unknown): string {
    switch (typeof value) {
      case "string":
        return value;
      case "number":
      case "bigint":
        this.#number ??= new Intl.NumberFormat(
          this.#culture,
          this.#numberOptions,
        );
        return this.#number.format(value);
      case "object":
        if (value instanceof Date) {
          if (Number.isNaN(value.getTime())) return String(value);
          this.#date ??= new Intl.DateTimeFormat(
            this.#culture,
            this.#dateOptions,
          );
          return this.#date.format(value);
        }
        return String(value);
      default:
        return String(value);
    }
  }
}
