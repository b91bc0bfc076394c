/**
 * Declares the translation keys of an application and their arguments, so
 * the TypeScript compiler checks `t("cart.items", { count })`. Empty until
 * an application augments it, and then `t` accepts any key with any
 * arguments. The `kit-i18n types` command (`deno task i18n:types`) writes
 * the augmentation from the default culture's resource:
 *
 * ```ts ignore
 * // Not run here: it would narrow the keys of every other example checked
 * // with it; it belongs in the application's own source.
 * declare module "@vendor/kit-platform-localization" {
 *   interface LocalizationTypeOptions {
 *     keys: {
 *       plain: "home.title" | "common.app";
 *       named: { "cart.items": { count: number } };
 *       positional: { "inbox.summary": [arg0: unknown, arg1: unknown] };
 *     };
 *   }
 * }
 * ```
 *
 * `plain` keys take no argument, `named` keys one object of named values
 * (ICU messages), `positional` keys the values of their `{0}`, `{1}`, …
 * markers. (Keys are grouped this way, rather than as one map of argument
 * tuples, because the compiler checks it in a second for 20,000 keys.)
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
 * The shape of the `keys` declared in {@linkcode LocalizationTypeOptions}.
 *
 * @example Usage
 * ```ts
 * import type { DeclaredTranslationKeys } from "@vendor/kit/localization";
 *
 * const keys: DeclaredTranslationKeys = {
 *   plain: "home.title",
 *   named: { "cart.items": { count: 2 } },
 *   positional: { "inbox.summary": ["Ada"] },
 * };
 * ```
 */
export interface DeclaredTranslationKeys {
  /** The keys that take no argument. */
  plain: string;
  /** Key → the object of named values it takes. */
  named: object;
  /** Key → the positional values it takes. */
  positional: { [key: string]: unknown[] };
}

/**
 * `t` when keys are declared: each key with exactly its arguments.
 *
 * @example Usage
 * ```ts
 * import type { TypedTranslateFunction } from "@vendor/kit/localization";
 *
 * type Keys = {
 *   plain: "home.title";
 *   named: { "cart.items": { count: number } };
 *   positional: Record<never, never>;
 * };
 * const t = ((key: string) => `[${key}]`) as TypedTranslateFunction<Keys>;
 * t("home.title");
 * t("cart.items", { count: 2 });
 * ```
 */
export interface TypedTranslateFunction<Keys extends DeclaredTranslationKeys> {
  /**
   * Translates a key that takes no argument.
   *
   * @param key The key.
   * @returns The translated text.
   */
  (key: Keys["plain"]): string;
  /**
   * Translates a key that takes named values.
   *
   * @param key The key.
   * @param values Its named values.
   * @returns The translated text.
   */
  <Key extends keyof Keys["named"] & string>(
    key: Key,
    values: Keys["named"][Key],
  ): string;
  /**
   * Translates a key that takes positional values.
   *
   * @param key The key.
   * @param args The values of its `{0}`, `{1}`, … markers.
   * @returns The translated text.
   */
  <Key extends keyof Keys["positional"] & string>(
    key: Key,
    ...args: Keys["positional"][Key]
  ): string;
}

/**
 * `t` when no keys are declared: any key, any arguments.
 *
 * @param key The key.
 * @param args Positional values, or one object of named values.
 * @returns The translated text.
 *
 * @example Usage
 * ```ts
 * import type { UntypedTranslateFunction } from "@vendor/kit/localization";
 *
 * const t: UntypedTranslateFunction = (key) => `[${key}]`;
 * t("anything", 1, 2);
 * ```
 */
export type UntypedTranslateFunction = (
  key: string,
  ...args: unknown[]
) => string;

/**
 * The type of `t`: checked against the keys declared in
 * {@linkcode LocalizationTypeOptions}, or accepting any key when none are.
 *
 * @example Usage
 * ```ts
 * import type { TranslateFunction } from "@vendor/kit/localization";
 *
 * const t: TranslateFunction = (key: string) => `[${key}]`;
 * t("cart.items", { count: 2 });
 * ```
 */
export type TranslateFunction = LocalizationTypeOptions extends
  { keys: infer Keys extends DeclaredTranslationKeys }
  ? TypedTranslateFunction<Keys>
  : UntypedTranslateFunction;

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
