// The translations of one culture with its fallback chain, and the lookup
// shared by the manager (its current culture) and the translators of
// forCulture. Replaced as a whole, so translate never sees half of a change.
import { hostLogger } from "../platform/mod.ts";
import {
  type Render,
  type Source,
  TranslationCompiler,
} from "./messages/_compiler.ts";
import { dateFormatter, numberFormatter } from "./messages/_formatters.ts";
import type { LocalizationKeyResolver } from "./messages/key_resolver.ts";
import { LocalizationMessageError } from "./messages/localization_message_error.ts";
import type {
  MissingTranslationHandler,
  MissingTranslationReport,
} from "./localization_manager_options.ts";
import type { TranslateFunction, Translator } from "./translator.ts";
import type { LocalizationValueParser } from "./messages/value_parser.ts";

/** What the manager lends every set of translations. */
export interface Host {
  resolver: LocalizationKeyResolver | undefined;
  readonly handler: MissingTranslationHandler;
  readonly onMissing: ((report: MissingTranslationReport) => void) | undefined;
  readonly onMessageError: (error: LocalizationMessageError) => void;
}

interface Entry {
  // undefined: every culture's text was invalid; the handler answers.
  readonly render: Render | undefined;
  readonly answeringCulture: string | undefined;
  readonly missingIn: readonly string[];
}

export class Translations {
  readonly entries = new Map<string, Entry>();
  readonly compiler: TranslationCompiler;

  constructor(
    readonly culture: string,
    readonly chain: readonly string[],
    readonly sources: readonly Source[],
    parsers: readonly LocalizationValueParser[],
  ) {
    this.compiler = new TranslationCompiler(culture, sources, parsers);
  }

  translate(host: Host, key: string, args: readonly unknown[]): string {
    const resolver = host.resolver;
    const resolved = resolver === undefined ? key : resolver.resolve(key);
    const entry = this.entries.get(resolved) ?? this.#lookup(host, resolved);
    if (entry === undefined || entry.render === undefined) {
      return this.#missing(host, key, resolved);
    }
    if (entry.missingIn.length !== 0 && host.onMissing !== undefined) {
      this.#report(
        host,
        key,
        resolved,
        entry.missingIn,
        entry.answeringCulture,
      );
    }
    const render = entry.render;
    return typeof render === "string" ? render : render(args);
  }

  has(host: Host, key: string): boolean {
    const resolved = host.resolver === undefined
      ? key
      : host.resolver.resolve(key);
    return this.compiler.find(resolved) !== -1;
  }

  // The first culture of the chain whose text compiles; a text that is not
  // valid ICU is reported and skipped, as if that culture lacked the key.
  #lookup(host: Host, resolved: string): Entry | undefined {
    let index = this.compiler.find(resolved);
    if (index === -1) return undefined;
    let failed = false;
    while (index !== -1) {
      let render: Render;
      try {
        render = this.compiler.compile(index, resolved).render;
      } catch (error) {
        if (!(error instanceof LocalizationMessageError)) throw error;
        failed = true;
        try {
          host.onMessageError(error);
        } catch (thrown) {
          hookThrew("onMessageError", thrown);
        }
        index = this.compiler.find(resolved, index + 1);
        continue;
      }
      const answeringCulture = this.sources[index].culture;
      const entry: Entry = {
        render,
        answeringCulture,
        missingIn: this.chain.slice(0, this.chain.indexOf(answeringCulture)),
      };
      this.entries.set(resolved, entry);
      return entry;
    }
    // Kept only after an invalid text, so it is reported once.
    const entry: Entry = {
      render: undefined,
      answeringCulture: undefined,
      missingIn: this.chain,
    };
    if (failed) this.entries.set(resolved, entry);
    return entry;
  }

  #missing(host: Host, key: string, resolved: string): string {
    if (host.onMissing !== undefined) {
      this.#report(host, key, resolved, this.chain, undefined);
    }
    return host.handler(key, this.culture);
  }

  #report(
    host: Host,
    key: string,
    resolvedKey: string,
    missingIn: readonly string[],
    answeringCulture: string | undefined,
  ): void {
    for (const missingCulture of missingIn) {
      try {
        host.onMissing!({
          key,
          resolvedKey,
          requestedCulture: this.culture,
          missingCulture,
          answeringCulture,
        });
      } catch (error) {
        hookThrew("onMissing", error);
      }
    }
  }
}

/** The translator of one culture, over its translations. */
export class CultureTranslator implements Translator {
  readonly #translations: Translations;
  readonly #host: Host;

  readonly t: TranslateFunction;

  constructor(translations: Translations, host: Host) {
    this.#translations = translations;
    this.#host = host;
    this.t =
      ((key: string, ...args: unknown[]) =>
        translations.translate(host, key, args)) as TranslateFunction;
  }

  get culture(): string {
    return this.#translations.culture;
  }

  has(key: string): boolean {
    return this.#translations.has(this.#host, key);
  }

  formatNumber(
    value: number | bigint,
    options?: Intl.NumberFormatOptions,
  ): string {
    return numberFormatter(this.#translations.culture, options).format(value);
  }

  formatDate(
    value: Date | number,
    options?: Intl.DateTimeFormatOptions,
  ): string {
    return dateFormatter(this.#translations.culture, options).format(value);
  }
}

// A hook of the manager that threw: the running application's logging,
// else the console.
function hookThrew(hook: string, error: unknown): void {
  const logger = hostLogger("kit.localization");
  if (logger !== undefined) {
    logger.error(`LocalizationManager: ${hook} threw`, { error });
  } else console.error(`LocalizationManager: ${hook} threw:`, error);
}

/**
 * An invalid translation, when nobody asked for it: the running
 * application's logging, else the console.
 */
export function messageErrorByDefault(error: LocalizationMessageError): void {
  const logger = hostLogger("kit.localization");
  if (logger !== undefined) logger.error(error.message, { error });
  else console.error(error.message);
}
