// The feature switches of the `features` section (features:enableAnalytics,
// features:enableInternationalization) as the modules built from
// configuration read them: on unless set to false, the strings of an
// environment variable (`FEATURE_ANALYTICS=false`) read as the schema reads
// them, and the source that turned a feature off kept for the line that
// says so. Each module throws its own error class for a bad value.
import { quoteValue } from "../quote_value.ts";

/** A configuration as the switches are read from it. */
interface ConfigurationLike {
  hasValue(key: string): boolean;
  getValue<T = unknown>(key: string, fallback?: T): T;
  getSource?(key: string): string | undefined;
}

/** A switch as read. */
export type FeatureSwitch =
  /** On (set to true, or not set). */
  | { readonly on: true; readonly problem?: undefined }
  /** Off, and where that was said (`env FEATURE_ANALYTICS`), when known. */
  | {
    readonly on: false;
    readonly source: string | undefined;
    readonly problem?: undefined;
  }
  /** A value that is no switch: the whole message, naming key and source. */
  | { readonly on?: undefined; readonly problem: string };

/**
 * Reads a switch: `true`/`false`, or the strings `true`, `false`, `1`, `0`
 * in any case (an environment variable's); not set, `null` or blank counts
 * as on.
 *
 * @param config The configuration.
 * @param key The switch's key (`features:enableAnalytics`).
 * @returns Whether the feature is on, or what is wrong with the value.
 *
 * @example Usage
 * ```ts
 * import { readFeatureSwitch } from "./feature_switch.ts";
 *
 * const values: Record<string, unknown> = { "features:enableAnalytics": "false" };
 * const config = {
 *   hasValue: (key: string) => key in values,
 *   getValue: <T>(key: string) => values[key] as T,
 * };
 * readFeatureSwitch(config, "features:enableAnalytics").on; // false
 * ```
 */
export function readFeatureSwitch(
  config: ConfigurationLike,
  key: string,
): FeatureSwitch {
  if (!config.hasValue(key)) return { on: true };
  const value = config.getValue<unknown>(key, undefined);
  const source = sourceOf(config, key);
  if (value === undefined || value === null) return { on: true };
  if (value === true) return { on: true };
  if (value === false) return { on: false, source };
  if (typeof value === "string") {
    const text = value.trim().toLowerCase();
    if (text === "" || text === "true" || text === "1") return { on: true };
    if (text === "false" || text === "0") return { on: false, source };
  }
  return {
    problem: `${key} must be true or false, got ${quoteValue(value)}${
      source === undefined ? "" : ` (from ${source})`
    }`,
  };
}

/**
 * How a line names the switch that turned a feature off:
 * `features:enableAnalytics=false (from env FEATURE_ANALYTICS)`.
 *
 * @param key The switch's key.
 * @param source Where it was set, when known.
 * @returns The words.
 *
 * @example Usage
 * ```ts
 * import { switchedOffBy } from "./feature_switch.ts";
 *
 * switchedOffBy("features:enableAnalytics", "env FEATURE_ANALYTICS");
 * // "features:enableAnalytics=false (from env FEATURE_ANALYTICS)"
 * ```
 */
export function switchedOffBy(key: string, source: string | undefined): string {
  return `${key}=false${source === undefined ? "" : ` (from ${source})`}`;
}

/**
 * Where a key's value came from, when the configuration can tell (a
 * `ConfigurationManager` can; a plain `IConfiguration` need not).
 *
 * @param config The configuration.
 * @param key The key.
 * @returns The source label (`env APP_X`, a file path), or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { sourceOf } from "./feature_switch.ts";
 *
 * sourceOf({ getSource: () => "appsettings.json" }, "features:enableAnalytics");
 * // "appsettings.json"
 * ```
 */
export function sourceOf(config: object, key: string): string | undefined {
  const getSource = (config as { getSource?: unknown }).getSource;
  if (typeof getSource !== "function") return undefined;
  try {
    const source: unknown = getSource.call(config, key);
    return typeof source === "string" ? source : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Says something once per configuration: `write` runs the first time a
 * configuration is seen with `topic`, and when it returns `true` (the line
 * reached a log) the configuration is remembered, so the next module built
 * from it stays quiet.
 *
 * @param config The configuration the module was built from.
 * @param topic What is said (one configuration may say several things).
 * @param write Writes the line; returns whether it was written.
 *
 * @example Usage
 * ```ts
 * import { sayOnce } from "./feature_switch.ts";
 *
 * const config = {};
 * sayOnce(config, "analytics", () => (console.log("off"), true)); // logs
 * sayOnce(config, "analytics", () => (console.log("off"), true)); // silent
 * ```
 */
export function sayOnce(
  config: object,
  topic: string,
  write: () => boolean,
): void {
  let said = SAID.get(config);
  if (said?.has(topic)) return;
  if (!write()) return;
  if (said === undefined) SAID.set(config, said = new Set());
  said.add(topic);
}

const SAID = new WeakMap<object, Set<string>>();
