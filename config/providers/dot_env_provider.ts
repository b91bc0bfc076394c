import { loadDotEnvParser } from "#config/providers/dotenv";
import type {
  ConfigurationDiagnostic,
  ConfigurationEntry,
  ConfigurationProvider,
} from "./configuration_provider.ts";
import { ConfigurationSourceError } from "./configuration_source_error.ts";
import { UnsafeConfigurationKeyError } from "../unsafe_configuration_key_error.ts";
import { readTextFile, resolveConfigPath } from "#config/providers/file_system";
import { checkMaxFileSize, checkReadTimeout } from "../_limits.ts";
import {
  normalizePrefix,
  stripPrefix,
  variableToKey,
} from "../../internal/settings/env_naming.ts";
import { standardVariables } from "./standard_variable_provider.ts";

/** Options of {@linkcode DotEnvProvider}. */
export interface DotEnvOptions {
  /** Skip the file when it does not exist. Default `false`. */
  optional?: boolean;
  /**
   * Only names starting with `<prefix>_` map through the environment naming
   * rules (prefix removed), as with {@linkcode EnvironmentVariableProvider}.
   * Omit it to map every name. Colon-path names and standard variables map
   * either way.
   */
  prefix?: string;
  /** Map the standard variables (`DB_CONNECTION_STRING`, …). Default `true`. */
  standardVariables?: boolean;
  /** The directory relative paths resolve against (see `JsonFileOptions`). */
  basePath?: string;
  /**
   * The largest file read, in bytes: a larger one fails to load with a
   * {@linkcode ConfigurationSourceError}. Default 10 MiB.
   */
  maxFileSize?: number;
  /**
   * The longest one read of the file may take, in milliseconds (see
   * `JsonFileOptions`). Default `10000`.
   */
  readTimeout?: number;
}

// dotenv's parser accepts only [\w.-] in names; colon paths are carried
// through it under this stand-in and restored afterwards.
const COLON = "-kit-colon-";
const KEY_LINE = /^(\s*(?:export\s+)?)([\w.:-]+)(\s*=)(.*)$/;

function encodeColonKeys(text: string): string {
  const lines = text.split(/\r?\n/);
  let openQuote: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (openQuote !== undefined) {
      if (closes(line, openQuote, 0)) openQuote = undefined;
      continue;
    }
    const match = KEY_LINE.exec(line);
    if (match === null) continue;
    const [, lead, name, equals, value] = match;
    if (name.includes(":")) {
      lines[i] = lead + name.replaceAll(":", COLON) + equals + value;
    }
    const trimmed = value.trimStart();
    const quote = trimmed[0];
    if (
      (quote === '"' || quote === "'" || quote === "`") &&
      !closes(trimmed, quote, 1)
    ) {
      openQuote = quote;
    }
  }
  return lines.join("\n");
}

function closes(text: string, quote: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text[i] === quote) return true;
  }
  return false;
}

/**
 * A `.env` file as a configuration source. It is parsed with the `dotenv`
 * package's parser and never touches the process environment. Each name maps
 * like an environment variable: standard variables (`DB_TIMEOUT`) to their
 * keys, `<PREFIX>_SECTION__PROPERTY` through the environment variable naming rules, and
 * colon paths (`logging:providers:0:type=console`) as they are. Each value's
 * source is `<path> <NAME>`.
 *
 * @example Usage
 * ```ts
 * import { ConfigurationManager, DotEnvProvider } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * await config.addProvider(new DotEnvProvider(".env", { optional: true, prefix: "APP" }));
 * await config.loadConfiguration();
 * ```
 */
export class DotEnvProvider implements ConfigurationProvider {
  /** The path as given. */
  readonly name: string;
  #options: DotEnvOptions;
  #prefix: string;
  #resolved: string | undefined;
  #missing = false;

  /**
   * Creates the provider. Nothing is read until it is loaded.
   *
   * @param path The file, absolute or relative to the application root.
   * @param options Whether it is optional, the prefix, the root, the size
   * limit.
   * @throws {TypeError} When the path is empty.
   * @throws {RangeError} When `maxFileSize` or `readTimeout` is not a
   * positive number.
   */
  constructor(path: string, options: DotEnvOptions = {}) {
    if (typeof path !== "string" || path.trim() === "") {
      throw new TypeError(
        "DotEnvProvider: the path must be a non-empty string",
      );
    }
    this.name = path;
    this.#options = { ...options };
    checkMaxFileSize("DotEnvProvider", options.maxFileSize);
    checkReadTimeout("DotEnvProvider", options.readTimeout);
    this.#prefix = normalizePrefix(options.prefix);
  }

  /** The absolute path the file resolved to at the last load, if loaded. */
  get resolvedPath(): string | undefined {
    return this.#resolved;
  }

  /** `true` when the last load found no file (only possible when optional). */
  get missing(): boolean {
    return this.#missing;
  }

  /**
   * Reads and parses the file.
   *
   * @returns One entry per mapped name.
   * @throws {ConfigurationSourceError} when a required file is missing, is
   * not a regular file (a FIFO, a device), takes longer than `readTimeout`
   * to read, is larger than `maxFileSize` or is not valid UTF-8 (naming the byte offset).
   * @throws {UnsafeConfigurationKeyError} for a name naming `__proto__`.
   */
  async load(): Promise<ConfigurationEntry[]> {
    const path = await resolveConfigPath(this.name, this.#options.basePath);
    this.#resolved = path;
    const text = await readTextFile(
      path,
      this.name,
      this.#options.maxFileSize,
      this.#options.readTimeout,
    );
    if (text === undefined) {
      if (this.#options.optional === true) {
        this.#missing = true;
        return [];
      }
      throw new ConfigurationSourceError(
        `Configuration file not found: ${path}`,
        { source: this.name, path },
      );
    }
    this.#missing = false;
    // dotenv is loaded only here (see _dotenv_node.ts), so a browser bundle of the
    // package never pulls it in.
    const parse = await loadDotEnvParser();
    const parsed = parse(encodeColonKeys(text));
    const mapStandard = this.#options.standardVariables !== false;
    const entries: ConfigurationEntry[] = [];
    for (const [encoded, value] of Object.entries(parsed)) {
      const name = encoded.replaceAll(COLON, ":");
      const source = `${this.name} ${name}`;
      if (name.toLowerCase().includes("__proto__") && !name.includes(":")) {
        throw new UnsafeConfigurationKeyError(name, source);
      }
      if (name.includes(":")) {
        entries.push({ key: name, value, source });
        continue;
      }
      if (mapStandard && Object.hasOwn(standardVariables, name)) {
        entries.push({ key: standardVariables[name], value, source });
        continue;
      }
      const rest = stripPrefix(name, this.#prefix);
      if (rest === undefined) continue;
      const key = variableToKey(rest);
      if (key !== undefined) entries.push({ key, value, source });
    }
    return entries;
  }

  /**
   * Reports an optional file that was missing at the last load.
   *
   * @returns A finding when the file is missing, else none.
   */
  diagnose(): ConfigurationDiagnostic[] {
    if (!this.#missing) return [];
    return [{
      code: "missing-optional-file",
      message: `Optional configuration file ${
        this.#resolved ?? this.name
      } does not exist and was skipped`,
    }];
  }
}
