import { KitError } from "../core/mod.ts";

/**
 * Thrown when a source supplies a key with the segment `__proto__`,
 * `prototype` or `constructor` (in any letter case). Such keys are rejected
 * from every kind of source (JSON, environment, `.env`, memory) so that
 * configuration can never be used for prototype pollution.
 *
 * @example Usage
 * ```ts
 * import {
 *   ConfigurationManager,
 *   MemoryProvider,
 *   UnsafeConfigurationKeyError,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * try {
 *   config.addProvider(new MemoryProvider(new Map([["__proto__:isAdmin", "true"]])));
 * } catch (error) {
 *   console.log(error instanceof UnsafeConfigurationKeyError); // true
 * }
 * ```
 */
export class UnsafeConfigurationKeyError extends KitError {
  /** What went wrong, as a stable string: `unsafe_configuration_key`. */
  readonly code = "unsafe_configuration_key";

  /** The rejected key, as a colon path. */
  readonly key: string;
  /** The label of the source that supplied it. */
  readonly source: string;

  /**
   * Creates the error.
   *
   * @param key The rejected key.
   * @param source The label of the source that supplied it.
   */
  constructor(key: string, source: string) {
    super(
      `Unsafe configuration key "${key}" from ${source}: the segments __proto__, prototype and constructor are not allowed`,
    );
    this.name = "UnsafeConfigurationKeyError";
    this.key = key;
    this.source = source;
  }
}
