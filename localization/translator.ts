/**
 * Declares the translation keys of an application and their arguments, so
 * the TypeScript compiler checks `t("cart.items", { count })`. Empty until
 * an application augments it, and then `t` accepts any key with any
 * arguments. The `kit-i18n types` command (`deno task i18n:types`) writes
 * the augmentation from the default culture's resource:
 *
 * ```ts ignore
 * declare module "@vendor/kit-platform-localization" {
 *   interface LocalizationTypeOptions {
 *     keys: {
 *       "home.title": [];
 *       "cart.items": [values: { count: number }];
 *       "inbox.summary": [arg0: unknown, arg1: unknown];
 *     };
 *   }
 * }
 * ```
 *
 * Each key maps to the tuple of arguments `t` takes after the key.
 *
 * @example Usage
 * ```ts
 * import type { LocalizationTypeOptions } from "@vendor/kit/localization";
 *
 * // Without an augmentation, nothing is declared and every key is accepted.
 * type Declared = keyof LocalizationTypeOptions; // never
 * ```
 */
// deno-lint-ignore no-empty-interface
export interface LocalizationTypeOptions {}

/**
 * The keys `t` accepts: those declared in
 * {@linkcode LocalizationTypeOptions}, or any string when none are.
 *
 * @example Usage
 * ```ts
 * import type { TranslationKey } from "@vendor/kit/localization";
 *
 * const key: TranslationKey = "home.title";
 * ```
 */
export type TranslationKey = LocalizationTypeOptions extends
  { keys: infer Keys } ? Extract<keyof Keys, string>
  : string;

/**
 * The arguments `t` takes after `Key`: the tuple declared for it in
 * {@linkcode LocalizationTypeOptions}, or `unknown[]` when no keys are
 * declared.
 *
 * @example Usage
 * ```ts
 * import type { TranslationArguments } from "@vendor/kit/localization";
 *
 * const args: TranslationArguments<"cart.items"> = [{ count: 2 }];
 * ```
 */
export type TranslationArguments<Key extends string> =
  LocalizationTypeOptions extends { keys: infer Keys }
    ? Key extends keyof Keys
      ? Keys[Key] extends readonly unknown[] ? Keys[Key] : never
    : never
    : unknown[];

/**
 * The signature of `t`: a key, then its arguments (positional values for
 * `{0}` markers, or one object of named values for ICU messages). Checked
 * against {@linkcode LocalizationTypeOptions} when an application declares
 * its keys.
 *
 * @example Usage
 * ```ts
 * import type { TranslateFunction } from "@vendor/kit/localization";
 *
 * const t: TranslateFunction = (key) => `[${key}]`;
 * t("cart.items", { count: 2 });
 * ```
 */
export type TranslateFunction = <Key extends TranslationKey>(
  key: Key,
  ...args: TranslationArguments<Key>
) => string;

/**
 * Translates for one culture, whatever the manager's current culture is:
 * what `await manager.forCulture("fr")` and `await manager.forRequest(request)`
 * return. A server keeps one manager and takes a translator per request; the
 * translators of a culture are shared and their compiled messages reused.
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
 *   new MapLocalizationProvider(new Map([
 *     ["en", new Map([["cart.items", "{count, plural, one {# item} other {# items}}"]])],
 *     ["fr", new Map([["cart.items", "{count, plural, one {# article} other {# articles}}"]])],
 *   ])),
 *   new DefaultCultureProvider("en"),
 * );
 * const fr = await manager.forCulture("fr");
 * fr.t("cart.items", { count: 2 }); // "2 articles"
 * fr.formatNumber(1234.5); // "1 234,5"
 * manager.culture; // still "en"
 * ```
 */
export interface Translator {
  /** The culture translated to (the fallback culture for one not on offer). */
  readonly culture: string;
  /**
   * Translates `key` (bound: `const { t } = translator` works). A key no
   * culture of the chain has gives the missing-translation handler's result.
   *
   * @param key The key (mapped by the manager's key resolver first).
   * @param args Positional values, or one object of named values.
   * @returns The translated text.
   * @throws {LocalizationReferenceError} When `{@key}` references form a
   * cycle.
   */
  readonly t: TranslateFunction;
  /**
   * Whether a culture of the chain has `key`.
   *
   * @param key The key (mapped by the manager's key resolver first).
   * @returns `true` when `t` would not use the missing-translation handler.
   */
  has(key: string): boolean;
  /**
   * Formats a number for the culture (`Intl.NumberFormat`, cached).
   *
   * @param value The number.
   * @param options `Intl.NumberFormat` options.
   * @returns The formatted number.
   */
  formatNumber(
    value: number | bigint,
    options?: Intl.NumberFormatOptions,
  ): string;
  /**
   * Formats a date for the culture (`Intl.DateTimeFormat`, cached).
   *
   * @param value A `Date` or a time in milliseconds since the epoch.
   * @param options `Intl.DateTimeFormat` options.
   * @returns The formatted date.
   */
  formatDate(
    value: Date | number,
    options?: Intl.DateTimeFormatOptions,
  ): string;
}
