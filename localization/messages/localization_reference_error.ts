import { KitError } from "../../core/mod.ts";

/**
 * Thrown by `translate` when the references of a text (`{@group.key}`, see
 * {@linkcode RefLocalizationValueParser}) form a cycle, or nest deeper than
 * {@linkcode LocalizationReferenceError.MAX_DEPTH} levels. References are
 * followed with an explicit depth bound, so a cycle never ends in a stack
 * overflow. The message names the chain:
 * `Reference cycle in translations for culture "en": a → b → a`, or
 * `References nested deeper than 32 levels in translations for culture "en": a → b → …`.
 *
 * @example Usage
 * ```ts
 * import {
 *   DefaultCultureProvider,
 *   LocalizationManager,
 *   LocalizationReferenceError,
 *   MapLocalizationProvider,
 * } from "@vendor/kit/localization";
 *
 * const manager = new LocalizationManager(
 *   new MapLocalizationProvider(
 *     new Map([["en", new Map([["a", "{@b}"], ["b", "{@a}"]])]]),
 *   ),
 *   new DefaultCultureProvider("en"),
 * );
 * await manager.setCulture("en");
 * try {
 *   manager.t("a");
 * } catch (error) {
 *   if (error instanceof LocalizationReferenceError) console.log(error.chain); // ["a", "b", "a"]
 * }
 * ```
 */
export class LocalizationReferenceError extends KitError {
  /** What went wrong, as a stable string: `localization_reference`. */
  readonly code = "localization_reference";

  /** How deep references may nest before the chain is rejected. */
  static readonly MAX_DEPTH: number = 32;

  /** The culture being translated. */
  readonly culture: string;
  /** The keys followed, from the one translated to the one that failed. */
  readonly chain: readonly string[];
  /** `true` for a cycle, `false` for a chain that is too deep. */
  readonly cycle: boolean;

  /**
   * Creates the error.
   *
   * @param culture The culture being translated.
   * @param chain The keys followed.
   * @param cycle Whether the chain is a cycle (otherwise it is too deep).
   */
  constructor(culture: string, chain: readonly string[], cycle: boolean) {
    super(
      (cycle
        ? "Reference cycle"
        : `References nested deeper than ${LocalizationReferenceError.MAX_DEPTH} levels`) +
        ` in translations for culture ${JSON.stringify(culture)}: ` +
        chain.join(" → "),
    );
    this.name = "LocalizationReferenceError";
    this.culture = culture;
    this.chain = chain;
    this.cycle = cycle;
  }
}
