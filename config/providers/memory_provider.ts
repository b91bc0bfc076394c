import {
  type ConfigurationEntry,
  type ConfigurationProvider,
  MEMORY_PRIORITY,
} from "./configuration_provider.ts";

/**
 * In-memory values as a configuration source: keys are colon
 * paths, values strings (`feature:beta` → `"true"`). A memory source always
 * wins over every other kind of source, whatever the order they were added
 * in; between memory sources the one added later wins. Numeric segments
 * (`logging:providers:0:type`) build arrays.
 *
 * The map is read on every load, so changing it and calling
 * `config.reload()` applies the change.
 *
 * @example Usage
 * ```ts
 * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * config.addProvider(new MemoryProvider(new Map([["feature:beta", "true"]])));
 * await config.loadConfiguration();
 * config.getValue("feature:beta"); // "true"
 * ```
 */
export class MemoryProvider implements ConfigurationProvider {
  /** Always `memory`. */
  readonly name: string = "memory";
  /** {@linkcode MEMORY_PRIORITY}: above every other source. */
  readonly priority: number = MEMORY_PRIORITY;
  #values: ReadonlyMap<string, string> | Readonly<Record<string, string>>;

  /**
   * Creates the provider.
   *
   * @param values Colon-path keys to string values, as a `Map` or a plain
   * object.
   */
  constructor(
    values: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
  ) {
    if (values === null || typeof values !== "object") {
      throw new TypeError("MemoryProvider: values must be a Map or an object");
    }
    this.#values = values;
  }

  /**
   * Reads the values.
   *
   * @returns One entry per key, its source `memory`.
   */
  load(): ConfigurationEntry[] {
    const pairs = this.#values instanceof Map
      ? [...this.#values.entries()]
      : Object.entries(this.#values);
    return pairs.map(([key, value]) => ({
      key,
      value: typeof value === "string" ? value : String(value),
    }));
  }
}
