// Reading one of Kit's settings from what an application's configuration
// step built, without importing the configuration package: a
// ConfigurationManager (getValue, hasValue, getSource) is recognised by its
// methods, and a plain object is walked along the colon path. Values from
// environment variables arrive as strings, so numbers and switches are
// parsed here, and a bad value is described masked and bounded, with the
// source that set it, for the caller's own error class. readSetting reads
// one setting from its declaration (type, bounds, default, secret) and
// throws what the caller builds, so each module keeps its own messages.
import { isSecretKey } from "../../core/mod.ts";
import { isFileSource } from "./file_variable.ts";
import { quoteValue } from "../quote_value.ts";

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

/** The kinds of value {@linkcode readSetting} reads. */
export type SettingType = "whole number" | "number" | "boolean" | "string";

/** What a module declares of one setting, for {@linkcode readSetting}. */
export interface SettingDeclaration<T> {
  /**
   * The colon paths to try, in order: the key first, then any other name it
   * may be set under (`API_TIMEOUT` beside `api:timeout`).
   */
  readonly keys: readonly string[];
  /**
   * The kind of value: a whole number, any finite number, a switch, or a
   * string (text or a number, trimmed).
   */
  readonly type: SettingType;
  /** The smallest number accepted. */
  readonly min?: number;
  /** The largest number accepted. */
  readonly max?: number;
  /** A switch also accepts 1 and 0 (as numbers or strings). */
  readonly oneOrZero?: boolean;
  /**
   * An empty string counts as not set (for a string, one that is blank once
   * trimmed).
   */
  readonly emptyIsUnset?: boolean;
  /** The value when the setting is not set (else `undefined`). */
  readonly default?: T;
  /**
   * The value is a secret: the quoted value in a failure is `***`,
   * whatever its key (a key naming a secret, or a value read from a file,
   * is one anyway).
   */
  readonly secret?: boolean;
}

/** Why {@linkcode readSetting} refuses a setting, for the caller's error. */
export interface SettingProblem {
  /** The key the failure names: the one that held the value, or the first. */
  readonly key: string;
  /** The value found and where it came from; `undefined` when not set. */
  readonly found: FoundSetting | undefined;
  /** The value quoted masked and bounded (see {@linkcode quoteSetting}). */
  readonly quoted: string | undefined;
}

/**
 * Reads one typed setting as its declaration says: the first key that holds
 * a value, parsed (environment variables arrive as strings), checked against
 * the bounds, or the default when none holds one. A value that cannot be
 * used throws what `invalid` returns, so each module keeps its own error
 * class and messages; with `missing`, a setting that is not set and has no
 * default throws what it returns.
 *
 * @param config A `ConfigurationManager`, or a plain object.
 * @param declaration The keys, type, bounds, default and secrecy.
 * @param invalid Builds the error for a value that cannot be used.
 * @param missing Builds the error for a required setting that is not set.
 * @returns The value, the default, or `undefined`.
 * @throws What `invalid` or `missing` returns.
 *
 * @example Usage
 * ```ts
 * import { readSetting } from "./setting.ts";
 *
 * readSetting(
 *   { api: { timeout: "5000" } },
 *   { keys: ["api:timeout"], type: "whole number", min: 1000, max: 60000 },
 *   ({ key, quoted }) => new RangeError(`${key} is out of range: ${quoted}`),
 * ); // 5000
 * ```
 */
export function readSetting<T extends number | boolean | string>(
  config: unknown,
  declaration: SettingDeclaration<T> & { readonly type: TypeOf<T> },
  invalid: (problem: SettingProblem) => Error,
  missing?: (problem: SettingProblem) => Error,
): T | undefined {
  const found = findDeclared(config, declaration);
  if (found === undefined) {
    if (declaration.default !== undefined) return declaration.default;
    if (missing !== undefined) {
      throw missing({
        key: declaration.keys[0],
        found: undefined,
        quoted: undefined,
      });
    }
    return undefined;
  }
  const value = parse(found.value, declaration);
  if (value === undefined) {
    const quoted = declaration.secret === true
      ? quoteSetting({ ...found, fromFile: true }, found.key)
      : quoteSetting(found, found.key);
    throw invalid({ key: found.key, found, quoted });
  }
  return value as T;
}

/**
 * The value a declaration finds, before it is parsed: the first of its keys
 * that holds one (an empty string skipped when the declaration says so).
 *
 * @param config A `ConfigurationManager`, or a plain object.
 * @param declaration The keys, and whether an empty string counts as unset.
 * @returns The value and its source, or `undefined`.
 *
 * @example Usage
 * ```ts
 * import { findDeclared } from "./setting.ts";
 *
 * findDeclared(
 *   { api: { baseUrl: "" }, API_BASE_URL: "https://api.example.com" },
 *   { keys: ["api:baseUrl", "API_BASE_URL"], type: "string", emptyIsUnset: true },
 * )?.key; // "API_BASE_URL"
 * ```
 */
export function findDeclared(
  config: unknown,
  declaration:
    & Pick<SettingDeclaration<unknown>, "keys" | "emptyIsUnset">
    & { readonly type?: SettingType },
): FoundSetting | undefined {
  for (const key of declaration.keys) {
    const found = lookUp(config, key);
    if (found === undefined) continue;
    if (declaration.emptyIsUnset === true && isEmpty(found.value)) continue;
    return found;
  }
  return undefined;

  function isEmpty(value: unknown): boolean {
    // A string setting is trimmed, so a blank one is empty too.
    return declaration.type === "string"
      ? typeof value === "string" && value.trim() === ""
      : value === "";
  }
}

/** The declared type name of a value type. */
type TypeOf<T> = T extends number ? "whole number" | "number"
  : T extends boolean ? "boolean"
  : "string";

function parse(
  value: unknown,
  declaration: SettingDeclaration<unknown>,
): number | boolean | string | undefined {
  switch (declaration.type) {
    case "whole number": {
      // Any number of digits: one past the safe range, or out of bounds, is
      // refused all the same.
      const number = typeof value === "number"
        ? value
        : typeof value === "string" && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : NaN;
      if (!Number.isSafeInteger(number)) return undefined;
      return bounded(number, declaration);
    }
    case "number": {
      // Any finite number, as the value or its text.
      const text = String(value);
      const number = Number(text);
      return text.trim() === "" || !Number.isFinite(number)
        ? undefined
        : bounded(number, declaration);
    }
    case "boolean": {
      const flag = booleanOf(value);
      if (flag !== undefined || declaration.oneOrZero !== true) return flag;
      if (value === 1 || value === 0) return value === 1;
      const text = typeof value === "string" ? value.trim() : "";
      return text === "1" ? true : text === "0" ? false : undefined;
    }
    case "string":
      return typeof value === "string" || typeof value === "number"
        ? String(value).trim()
        : undefined;
  }
}

function bounded(
  number: number,
  declaration: SettingDeclaration<unknown>,
): number | undefined {
  if (declaration.min !== undefined && number < declaration.min) {
    return undefined;
  }
  if (declaration.max !== undefined && number > declaration.max) {
    return undefined;
  }
  return number;
}
