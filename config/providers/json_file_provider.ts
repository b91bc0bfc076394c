import type {
  ConfigurationDiagnostic,
  ConfigurationDiagnosticContext,
  ConfigurationEntry,
  ConfigurationProvider,
} from "./configuration_provider.ts";
import { ConfigurationSourceError } from "./configuration_source_error.ts";
import {
  pollFile,
  readTextFile,
  resolveConfigPath,
} from "#config/providers/file_system";
import { parseJsonSource } from "./_json_source.ts";
import { checkMaxFileSize, checkReadTimeout } from "../_limits.ts";

/** Options of {@linkcode JsonFileProvider} and `addJsonFile`. */
export interface JsonFileOptions {
  /** Skip the file when it does not exist. Default `false`. */
  optional?: boolean;
  /**
   * Reload the configuration when the file changes (debounced; see
   * {@linkcode ConfigurationManagerOptions.reloadDelay}). Default `false`.
   */
  watch?: boolean;
  /**
   * How often a watched file is checked, in milliseconds. Default `250`.
   * The file's content is polled with a timer that never keeps the process
   * alive; it also sees editors that replace the file by renaming.
   */
  pollInterval?: number;
  /**
   * The directory relative paths resolve against. Default: the
   * `KIT_CONFIG_PATH` environment variable when set, else the working
   * directory (read when the file is loaded).
   */
  basePath?: string;
  /**
   * The largest file read, in bytes: a larger one fails to load with a
   * {@linkcode ConfigurationSourceError} instead of filling the memory.
   * Default 10 MiB (`10 * 1024 * 1024`).
   */
  maxFileSize?: number;
  /**
   * The longest one read of the file may take, in milliseconds: past it the
   * load fails with a {@linkcode ConfigurationSourceError} naming the path
   * instead of waiting (on a file system that stopped answering). Default
   * `10000`. A FIFO, socket or device is refused at once, whatever this is.
   */
  readTimeout?: number;
  /**
   * The label `explain()`, `getSource()` and error messages show for the
   * file's values. Default: the path as given. `createConfiguration()` names
   * what chose the environment file's name this way
   * (`appsettings.production.json (environment from NODE_ENV)`).
   */
  label?: string;
}

/**
 * A JSON file as a configuration source: `appsettings.json` for
 * defaults, `appsettings.<environment>.json` for one environment's overrides.
 *
 * The file must hold a JSON object; line (`//`) and block comments and trailing
 * commas are accepted, as in .NET. Keys inside the file may themselves be
 * colon paths (`"Logging:Level": "debug"`). Errors name the absolute path,
 * and for a syntax error the line and column.
 *
 * @example Usage
 * ```ts
 * import { ConfigurationManager, JsonFileProvider } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * await config.addProvider(
 *   new JsonFileProvider("appsettings.local.json", { optional: true }),
 * );
 * await config.loadConfiguration();
 * ```
 */
export class JsonFileProvider implements ConfigurationProvider {
  /** The label `explain()` shows: the `label` option, else the path as given. */
  readonly name: string;
  #path: string;
  #options: JsonFileOptions;
  #resolved: string | undefined;
  #missing = false;
  #text: string | undefined;

  /**
   * Creates the provider. Nothing is read until it is loaded.
   *
   * @param path The file, absolute or relative to the application root.
   * @param options Whether it is optional or watched, the root, the size
   * limit.
   * @throws {TypeError} When the path is empty.
   * @throws {RangeError} When `maxFileSize` or `readTimeout` is not a
   * positive number.
   */
  constructor(path: string, options: JsonFileOptions = {}) {
    if (typeof path !== "string" || path.trim() === "") {
      throw new TypeError(
        "JsonFileProvider: the path must be a non-empty string",
      );
    }
    this.name = options.label ?? path;
    this.#path = path;
    this.#options = { ...options };
    checkMaxFileSize("JsonFileProvider", options.maxFileSize);
    checkReadTimeout("JsonFileProvider", options.readTimeout);
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
   * @returns One entry holding the file's object, or none when an optional
   * file is missing.
   * @throws {ConfigurationSourceError} when a required file is missing, the
   * path is not a regular file (a FIFO, a device), the read takes longer
   * than `readTimeout`, the file is larger than `maxFileSize`, not valid UTF-8 (naming the byte
   * offset), not valid JSON, not an object, or nests deeper than 200 levels
   * (naming the key path).
   */
  async load(): Promise<ConfigurationEntry[]> {
    const path = await resolveConfigPath(this.#path, this.#options.basePath);
    this.#resolved = path;
    const text = await readTextFile(
      path,
      this.name,
      this.#options.maxFileSize,
      this.#options.readTimeout,
    );
    this.#text = text;
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
    return parseJsonSource(text, {
      label: this.name,
      location: path,
      what: "file",
    });
  }

  /**
   * Watches the file when the provider was created with `watch: true`.
   *
   * @param onChange Called when the file's content changes (or the file
   * appears or disappears).
   * @returns A function that stops watching, or `undefined` when not asked
   * to watch.
   */
  async watch(
    onChange: () => void,
  ): Promise<(() => Promise<void>) | undefined> {
    if (this.#options.watch !== true) return undefined;
    const path = this.#resolved ??
      await resolveConfigPath(this.#path, this.#options.basePath);
    return pollFile(
      path,
      this.#text,
      this.#options.pollInterval ?? 250,
      onChange,
      this.#options.maxFileSize,
      this.#options.readTimeout,
    );
  }

  /**
   * Reports an optional file that was missing at the last load.
   *
   * @param context The environment name chosen for the application.
   * @returns A finding when the file is missing, else none.
   */
  diagnose(context: ConfigurationDiagnosticContext): ConfigurationDiagnostic[] {
    if (!this.#missing) return [];
    const path = this.#resolved ?? this.#path;
    const environment = context.environment;
    const base = path.replace(/^.*[\\/]/, "").toLowerCase();
    if (
      environment !== undefined &&
      base === `appsettings.${environment}.json`.toLowerCase()
    ) {
      if (context.environmentSource === "the default") {
        return [{
          code: "missing-optional-file",
          message:
            `Optional configuration file ${path} does not exist and was skipped (none of RUNTIME_ENV, NODE_ENV, APP_ENV is set, so the environment is "${environment}")`,
        }];
      }
      const chosen = context.environmentSource === undefined
        ? ""
        : ` (chosen by ${context.environmentSource})`;
      return [{
        code: "missing-environment-file",
        message:
          `No override file for environment "${environment}"${chosen}: ${path} does not exist, so only the base settings apply`,
      }];
    }
    return [{
      code: "missing-optional-file",
      message:
        `Optional configuration file ${path} does not exist and was skipped`,
    }];
  }
}
