import { toCamelCase } from "../../core/mod.ts";
import type {
  ConfigurationDiagnostic,
  ConfigurationDiagnosticContext,
  ConfigurationEntry,
  ConfigurationProvider,
} from "./configuration_provider.ts";
import { UnsafeConfigurationKeyError } from "../unsafe_configuration_key_error.ts";
import { readEnvironment } from "#config/providers/environment";
import { warnEnvironmentUnavailable } from "./_environment_warning.ts";
import {
  normalizePrefix,
  stripPrefix,
  variableToKey,
} from "../../internal/settings/env_naming.ts";
import { standardVariables } from "./standard_variable_provider.ts";
import {
  bothSetFailure,
  FILE_SUFFIX,
  type FileVariable,
  SecretFileSet,
  withoutFileSuffix,
} from "./_secret_files.ts";

/**
 * Options of {@linkcode EnvironmentVariableProvider} and
 * {@linkcode StandardVariableProvider} (and of `addEnvironmentVariables`,
 * `addStandardVariables`).
 */
export interface EnvironmentVariableOptions {
  /**
   * Poll the files that `<NAME>_FILE` variables name and reload the
   * configuration when one changes (a rotated secret). Default `false`;
   * `createConfiguration({ watch: true })` turns it on.
   */
  watch?: boolean;
  /** How often a watched file is checked, in milliseconds. Default `250`. */
  pollInterval?: number;
}

/**
 * Environment variables as a configuration source.
 *
 * A variable `<PREFIX>_<SECTION>__<SUB>__<PROPERTY>` maps to the key
 * `section:sub:property`: `__` is one level, and each segment goes from
 * UPPER_SNAKE to camelCase (`APP_DATABASE__CONNECTION_STRING` →
 * `database:connectionString`). The prefix is matched ignoring letter case;
 * `"APP"` and `"APP_"` mean the same. Without a prefix every variable is
 * read with the same mapping. Numeric segments build arrays
 * (`APP_LOGGING__PROVIDERS__0__TYPE`). Values are strings; a schema coerces
 * them (see `bind`).
 *
 * With a prefix, `<NAME>_FILE` holds the path of a file whose content is
 * the value of `<NAME>` (one trailing newline dropped, at most 64 KiB), the
 * way Docker and Kubernetes mount secrets:
 * `APP_DATABASE__CONNECTION_STRING_FILE=/run/secrets/db` sets
 * `database:connectionString`, its source `env
 * APP_DATABASE__CONNECTION_STRING_FILE`, its value masked. The file is read
 * again by every load and reload; a missing or unreadable file, or
 * `<NAME>` and `<NAME>_FILE` both set, fails the load naming the variable
 * and the path.
 *
 * The environment is read through a small runtime adapter: Deno, Node.js and
 * Bun through `process.env`; in a browser there are no variables.
 *
 * @example Usage
 * ```ts
 * import {
 *   ConfigurationManager,
 *   EnvironmentVariableProvider,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * config.addProvider(new EnvironmentVariableProvider("APP"));
 * await config.loadConfiguration();
 * config.getValue("database:timeout", "30000"); // APP_DATABASE__TIMEOUT
 * ```
 */
export class EnvironmentVariableProvider implements ConfigurationProvider {
  /** `env` or `env <PREFIX>_*`. */
  readonly name: string;
  #prefix: string;
  #error: string | undefined;
  readonly #files: SecretFileSet;

  /**
   * Creates the provider.
   *
   * @param prefix Only variables starting with `<prefix>_` are read, the
   * prefix removed. Omit it to read every variable.
   * @param options Whether to watch the files `<NAME>_FILE` variables name.
   */
  constructor(prefix?: string, options: EnvironmentVariableOptions = {}) {
    this.#files = new SecretFileSet(options);
    this.#prefix = normalizePrefix(prefix);
    this.name = this.#prefix === "" ? "env" : `env ${this.#prefix}*`;
  }

  /** The prefix, upper-cased, without the trailing `_` (`""` when none). */
  get prefix(): string {
    return this.#prefix.slice(0, -1);
  }

  /**
   * Reads the environment.
   *
   * @returns One entry per mapped variable, its source `env <NAME>`; a
   * promise of them when `<NAME>_FILE` variables name files to read.
   * @throws {UnsafeConfigurationKeyError} for a variable naming `__proto__`.
   * @throws {ConfigurationValidationError} (the promise rejects) listing
   * every `<NAME>_FILE` whose file is missing or unreadable, and every
   * variable set both directly and through a file.
   */
  load(): ConfigurationEntry[] | Promise<ConfigurationEntry[]> {
    const { variables, error } = readEnvironment();
    this.#error = error;
    if (error !== undefined) warnEnvironmentUnavailable(this.name, error);
    const entries: ConfigurationEntry[] = [];
    const files: FileVariable[] = [];
    const failures: string[] = [];
    for (const name of Object.keys(variables)) {
      const rest = stripPrefix(name, this.#prefix);
      if (rest === undefined) continue;
      if (rest.toLowerCase().includes("__proto__")) {
        throw new UnsafeConfigurationKeyError(rest, `env ${name}`);
      }
      // Only prefixed variables: without a prefix every variable of the
      // process is read, and one ending in _FILE is rarely meant for Kit.
      const base = this.#prefix === "" ? undefined : withoutFileSuffix(rest);
      if (base !== undefined) {
        const key = variableToKey(base);
        if (key === undefined) continue;
        const direct = this.#prefix + base;
        if (variables[direct] !== undefined) {
          failures.push(bothSetFailure(direct, name));
        } else {
          files.push({ variable: name, key, path: variables[name] });
        }
        continue;
      }
      const key = variableToKey(rest);
      if (key === undefined) continue;
      entries.push({ key, value: variables[name], source: `env ${name}` });
    }
    return this.#files.load(entries, files, failures);
  }

  /**
   * Polls the files the last load read for `<NAME>_FILE` variables, when
   * the provider was created with `watch: true`.
   *
   * @param onChange Called when a file changes.
   * @returns A function that stops polling, or `undefined` when not asked
   * to watch or no file was read.
   */
  watch(
    onChange: () => void,
  ): Promise<(() => Promise<void>) | undefined> {
    return this.#files.watch(onChange);
  }

  /**
   * Finds prefixed variables that map to no known key, and names written
   * with `_` where `__` would match one.
   *
   * @param context Tells which keys are known.
   * @returns The findings.
   */
  diagnose(context: ConfigurationDiagnosticContext): ConfigurationDiagnostic[] {
    if (this.#error !== undefined) {
      return [{
        code: "environment-unavailable",
        message:
          `Environment variables could not be read (${this.#error}); in Deno run with --allow-env`,
      }];
    }
    const findings: ConfigurationDiagnostic[] = [];
    const { variables } = readEnvironment();
    for (const name of Object.keys(variables)) {
      if (Object.hasOwn(standardVariables, name)) continue;
      const standard = withoutFileSuffix(name);
      if (
        standard !== undefined && Object.hasOwn(standardVariables, standard)
      ) {
        continue;
      }
      let rest = stripPrefix(name, this.#prefix);
      if (rest === undefined) continue;
      // APP_X_FILE stands for APP_X: judged by the key of APP_X.
      const base = this.#prefix === "" ? undefined : withoutFileSuffix(rest);
      const suffix = base === undefined ? "" : name.slice(-FILE_SUFFIX.length);
      rest = base ?? rest;
      const key = variableToKey(rest);
      if (key !== undefined && context.isKnownKey(key)) continue;
      const suggestion = suggestSplit(rest, context);
      if (suggestion !== undefined) {
        const variable = this.#prefix + suggestion.variable + suffix;
        findings.push({
          code: "single-underscore",
          variable: name,
          key: suggestion.key,
          suggestion: variable,
          message:
            `${name} maps to "${key}", which no source or schema knows; did you mean ${variable} (${suggestion.key})? A double underscore marks each level`,
        });
      } else if (this.#prefix !== "") {
        findings.push({
          code: "unknown-variable",
          variable: name,
          key,
          message: key === undefined
            ? `${name} carries the prefix ${this.prefix} but maps to no valid key`
            : `${name} carries the prefix ${this.prefix} but maps to "${key}", which no source or schema knows`,
        });
      }
    }
    return findings;
  }
}

// Tries every way of grouping the words of `rest` into levels and returns the
// first (fewest levels first) that maps to a known key.
function suggestSplit(
  rest: string,
  context: ConfigurationDiagnosticContext,
): { variable: string; key: string } | undefined {
  const words = rest.split("_").filter((word) => word !== "");
  if (words.length < 2 || words.length > 12) return undefined;
  const gaps = words.length - 1;
  const masks: number[] = [];
  for (let mask = 1; mask < 1 << gaps; mask++) masks.push(mask);
  masks.sort((a, b) => popCount(a) - popCount(b) || a - b);
  for (const mask of masks) {
    const groups: string[][] = [[words[0]]];
    for (let i = 1; i < words.length; i++) {
      if (mask & (1 << (i - 1))) groups.push([words[i]]);
      else groups[groups.length - 1].push(words[i]);
    }
    const segments = groups.map((group) => toCamelCase(group.join("_")));
    if (segments.some((segment) => segment === "")) continue;
    const key = segments.join(":");
    if (context.isKnownKey(key)) {
      return {
        key,
        variable: groups.map((group) => group.join("_")).join("__"),
      };
    }
  }
  return undefined;
}

function popCount(value: number): number {
  let count = 0;
  for (let v = value; v !== 0; v &= v - 1) count++;
  return count;
}
