// Reading one of Kit's settings from what an application's configuration
// step built, without importing the configuration package: a
// ConfigurationManager (getValue, hasValue, getSource) is recognised by its
// methods, and a plain object is walked along the colon path. Values from
// environment variables arrive as strings, so numbers and switches are
// parsed here, and a bad value is described masked and bounded, with the
// source that set it, for the caller's own error class.
import { isSecretKey } from "../core/mod.ts";
import { isFileSource } from "./file_variable.ts";
import { quoteValue } from "./quote_value.ts";

/** A configuration as the readers see it. */
interface ConfigurationLike {
  getValue(key: string, fallback?: unknown): unknown;
  hasValue?(key: string): boolean;
  getSource?(key: string): string | undefined;
}

/** A value found for a setting, and where it came from. */
export interface FoundSetting {
  /** The key (or variable name) that held it. */
  readonly key: string;
  /** The value as the configuration holds it. */
  readonly value: unknown;
  /**
   * Where it came from: a variable's name (`APP_DATABASE__POOL_SIZE`), a
   * file (`appsettings.json`), or "the configuration".
   */
  readonly source: string;
  /** Read from a `<NAME>_FILE` variable's file: a secret, never printed. */
  readonly fromFile?: boolean;
}

function isConfigurationLike(value: unknown): value is ConfigurationLike {
  return value !== null && typeof value === "object" &&
    typeof (value as ConfigurationLike).getValue === "function";
}

function lookUp(config: unknown, key: string): FoundSetting | undefined {
  if (isConfigurationLike(config)) {
    if (typeof config.hasValue === "function" && !config.hasValue(key)) {
      return undefined;
    }
    const value = config.getValue(key, undefined);
    if (value === undefined || value === null) return undefined;
    const source = config.getSource?.(key);
    return {
      key,
      value,
      // "env APP_DATABASE__TIMEOUT" names the variable itself.
      source: source === undefined
        ? "the configuration"
        : source.startsWith("env ")
        ? source.slice(4)
        : source,
      fromFile: source !== undefined && isFileSource(source),
    };
  }
  let node: unknown = config;
  for (const part of key.split(":")) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node === undefined || node === null
    ? undefined
    : { key, value: node, source: "the configuration" };
}

/**
 * The first of `keys` that holds a value.
 *
 * @param config A `ConfigurationManager`, or a plain object.
 * @param keys The colon paths to try, in order.
 * @returns The value and its source, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { findSetting } from "./setting.ts";
 *
 * findSetting({ database: { poolSize: 5 } }, ["database:poolSize"]);
 * // { key: "database:poolSize", value: 5, source: "the configuration" }
 * ```
 */
export function findSetting(
  config: unknown,
  keys: readonly string[],
): FoundSetting | undefined {
  for (const key of keys) {
    const found = lookUp(config, key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A setting's value as an error message quotes it: `***` when it was read
 * from a file or its key names a secret, otherwise masked and bounded (see
 * `quoteValue`).
 *
 * @param found The value and its source.
 * @param key The setting's key.
 * @returns The quoted value.
 *
 * @example Usage
 * ```ts
 * import { quoteSetting } from "./setting.ts";
 *
 * quoteSetting({ key: "database:url", value: "postgres://app:s3cret@db/app", source: "appsettings.json" }, "database:url");
 * // '"postgres://app:***@db/app"'
 * ```
 */
export function quoteSetting(found: FoundSetting, key: string): string {
  // The secret rule is asked only here, for a failure.
  return quoteValue(found.value, {
    secret: found.fromFile === true || isSecretKey(key),
  });
}

/**
 * A whole number from a setting's value: a number, or a string of digits
 * (environment variables); `undefined` for anything else (`1e3`, `Infinity`,
 * `12.5`, `ten`).
 *
 * @param value The value.
 * @returns The number, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { wholeNumberOf } from "./setting.ts";
 *
 * wholeNumberOf(" 25 "); // 25
 * wholeNumberOf("1e999"); // undefined
 * ```
 */
export function wholeNumberOf(value: unknown): number | undefined {
  const number = typeof value === "number"
    ? value
    : typeof value === "string" && /^\s*\d{1,15}\s*$/.test(value)
    ? Number(value)
    : NaN;
  return Number.isSafeInteger(number) ? number : undefined;
}

/**
 * A switch from a setting's value: a boolean, or the strings `true`/`false`
 * (any case, blanks around); `undefined` for anything else.
 *
 * @param value The value.
 * @returns The switch, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { booleanOf } from "./setting.ts";
 *
 * booleanOf("TRUE"); // true
 * booleanOf("yes"); // undefined
 * ```
 */
export function booleanOf(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value !== "string") return undefined;
  const text = value.trim().toLowerCase();
  return text === "true" ? true : text === "false" ? false : undefined;
}
