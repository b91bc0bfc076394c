// The public face of layered configuration. The work is done by three
// internal parts: _configuration_layers.ts (the sources, their merge, the
// index values are read from, schema validation), _configuration_reloads.ts
// (watchers, the reload queue, `changed` events, the last failure) and
// _configuration_inspection.ts (explain, diagnose, health, masking of what
// they print). This file stays longer than the others because it carries
// the documentation and examples of every public method; the method bodies
// here only hand over to those parts.
import { currentTestConfiguration } from "../internal/settings/test_configuration.ts";
import {
  type HealthCheckable,
  type HealthCheckResult,
  Signal,
} from "../platform/mod.ts";
import type { IConfiguration } from "./configuration.ts";
import type {
  ConfigurationDiagnostic,
  ConfigurationProvider,
  ConfigurationValue,
} from "./providers/configuration_provider.ts";
import type {
  ConfigurationSchema,
  InferConfiguration,
} from "./schema/configuration_schema.ts";
import type {
  ConfigurationPath,
  ConfigurationPathValue,
  IsUntyped,
} from "./configuration_path.ts";
import { ConfigurationValueNotFoundError } from "./configuration_value_not_found_error.ts";
import {
  type EnvironmentVariableOptions,
  EnvironmentVariableProvider,
} from "./providers/environment_variable_provider.ts";
import { StandardVariableProvider } from "./providers/standard_variable_provider.ts";
import {
  type JsonFileOptions,
  JsonFileProvider,
} from "./providers/json_file_provider.ts";
import { cloneJson, type IndexEntry } from "./_tree.ts";
import { createSecretMatcher } from "../core/mod.ts";
import { getEnvironmentVariable } from "#config/providers/environment";
import { registerHints, registerWhereToSet } from "./schema/_hints.ts";
import { whereToSet } from "./schema/_where_to_set.ts";
import {
  ConfigurationLayers,
  type ReplacedArray,
} from "./_configuration_layers.ts";
import { ConfigurationReloads } from "./_configuration_reloads.ts";
import { ConfigurationInspection } from "./_configuration_inspection.ts";
import type { ConfigurationManagerOptions } from "./configuration_manager_options.ts";
import type { ConfigurationChange } from "./configuration_change.ts";
import type { ExplainedValue } from "./explained_value.ts";

/**
 * Layered configuration from JSON files, environment variables, `.env`
 * files, memory and JSON over HTTP, like .NET's
 * `ConfigurationManager`.
 *
 * - Keys are colon paths (`database:connectionString`), looked up ignoring
 *   letter case per segment; `getSection`, `explain()` and `toJSON()` show the
 *   spelling of the source that won.
 * - Later sources override earlier ones, key by key: nested objects merge per
 *   key, arrays are replaced whole. {@linkcode MemoryProvider} sources always
 *   win.
 * - Values are read from a flattened index built when the configuration
 *   loads, so `getValue` costs one `Map.get`.
 * - Nothing is readable before `await loadConfiguration()`.
 * - A manager created with a schema is typed by it: `getValue` of a path
 *   the schema describes has the schema's type, and a misspelt path is a
 *   compile error.
 *
 * @typeParam Config What the schema produces; without a schema, any key
 * is accepted and typed by `getValue`'s type argument.
 *
 * @example Usage
 * ```ts
 * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * await config.addJsonFile("appsettings.json", { optional: true });
 * config.addEnvironmentVariables("APP");
 * config.addProvider(new MemoryProvider(new Map([["feature:beta", "true"]])));
 * await config.loadConfiguration();
 *
 * config.getValue<string>("feature:beta"); // "true"
 * config.getValue<number>("api:timeout", 5000); // 5000 unless a source sets it
 * config.explain(); // [{ key: "feature:beta", value: "true", source: "memory" }]
 * ```
 */
// The default `any` stands for "no schema" (IsUntyped): a manager typed by a
// schema must stay usable where a plain `ConfigurationManager` is expected,
// and the key checks make the type parameter invariant, which only `any`
// accepts in both directions.
// deno-lint-ignore no-explicit-any
export class ConfigurationManager<Config = any>
  implements IConfiguration, HealthCheckable {
  /**
   * Dispatched after a reload (or a repeated `loadConfiguration()`) that
   * changed effective values, with one entry per changed key; and after a
   * reload that failed, with one entry carrying the `error`.
   */
  readonly changed: Signal<readonly ConfigurationChange[]> = new Signal();

  #options: ConfigurationManagerOptions<Config>;
  #layers: ConfigurationLayers;
  // The layers' index, held here too so that getValue costs one Map.get and
  // nothing more when the key is spelled as a source spells it.
  #index: Map<string, IndexEntry>;
  #reloads: ConfigurationReloads;
  #inspection: ConfigurationInspection;

  /**
   * Creates an empty manager.
   *
   * @param options Application root, schema, extra secret words,
   * environment name, reload delay.
   */
  constructor(options: ConfigurationManagerOptions<Config> = {}) {
    this.#options = { ...options };
    const secrets = createSecretMatcher(options.secretKeys);
    this.#layers = new ConfigurationLayers({
      schema: options.schema,
      secrets,
      hints: (replacedArrays) => this.#hintSource(replacedArrays),
      swapped: (index) => {
        this.#index = index;
      },
    });
    this.#index = this.#layers.index;
    this.#reloads = new ConfigurationReloads({
      layers: this.#layers,
      secrets,
      changed: this.changed,
      reloadDelay: options.reloadDelay ?? 100,
    });
    this.#inspection = new ConfigurationInspection({
      layers: this.#layers,
      reloads: this.#reloads,
      secrets,
      schema: options.schema,
      environment: options.environment,
      environmentSource: options.environmentSource,
    });
    registerHints(
      this,
      (key) => this.#hintSource(this.#layers.replacedArrays)(key),
    );
    registerWhereToSet(
      this,
      (key) => whereToSet(key, this.#layers.providers()),
    );
  }

  /** `true` once a `loadConfiguration()` has finished successfully. */
  get loaded(): boolean {
    return this.#layers.loaded;
  }

  /** The environment name given in the options, if any. */
  get environment(): string | undefined {
    return this.#options.environment;
  }

  /**
   * What chose the environment name (`RUNTIME_ENV`, `NODE_ENV`, `APP_ENV`,
   * `the environment option`, `the default`), when the options say.
   */
  get environmentSource(): string | undefined {
    return this.#options.environmentSource;
  }

  /**
   * The application root that relative paths resolve against: the
   * `basePath` option, else the `KIT_CONFIG_PATH` environment variable;
   * `undefined` means the working directory. JSON files, `.env` files and
   * the log files of `LoggerManager.fromConfiguration` all use it.
   */
  get basePath(): string | undefined {
    return this.#options.basePath ??
      nonEmpty(getEnvironmentVariable("KIT_CONFIG_PATH"));
  }

  /**
   * Adds a JSON file and reads it at once, so a missing or
   * malformed file fails here.
   *
   * @param path Absolute, or relative to the application root
   * (`basePath`, else `KIT_CONFIG_PATH`, else the working directory).
   * @param options `optional` skips a missing file; `watch` reloads on change.
   * @returns A promise that settles once the file is read.
   * @throws {ConfigurationSourceError} when a required file is missing, or the
   * file is not valid JSON (naming its absolute path, line and column) or not
   * an object.
   * @throws {UnsafeConfigurationKeyError} when it uses a `__proto__`,
   * `prototype` or `constructor` key.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * await config.addJsonFile("appsettings.json", { optional: true, watch: false });
   * await config.loadConfiguration();
   * ```
   */
  async addJsonFile(
    path: string,
    options: JsonFileOptions = {},
  ): Promise<void> {
    await this.addProvider(
      new JsonFileProvider(path, {
        basePath: this.#options.basePath,
        ...options,
      }),
    );
  }

  /**
   * Adds a source. The provider is read at once: a provider that reads
   * asynchronously (files, URLs) makes this return a promise, which must be
   * awaited; a synchronous one (environment, memory) is read again by
   * `loadConfiguration()`, so it sees the latest values. Kit's environment
   * providers are always added synchronously: the files their `<NAME>_FILE`
   * variables name are read, and a missing one reported, by
   * `loadConfiguration()`.
   *
   * @param provider Any {@linkcode ConfigurationProvider}.
   * @returns A promise for asynchronous providers, else nothing.
   * @throws {ConfigurationSourceError} or {@linkcode UnsafeConfigurationKeyError}
   * when the source cannot be read or supplies an unsafe key (the promise
   * rejects for asynchronous providers). A provider that fails is not added.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider(new Map([["app:name", "demo"]])));
   * await config.loadConfiguration();
   * ```
   */
  addProvider(provider: ConfigurationProvider): void | Promise<void> {
    if (
      provider === null || typeof provider !== "object" ||
      typeof provider.load !== "function"
    ) {
      throw new TypeError(
        "ConfigurationManager.addProvider: a provider needs a load() method",
      );
    }
    // Kit's environment sources stay synchronous to add, `_FILE` variables
    // or not (they were always added without await).
    if (
      provider instanceof EnvironmentVariableProvider ||
      provider instanceof StandardVariableProvider
    ) {
      this.#layers.addSynchronously(provider);
      return;
    }
    return this.#layers.add(provider);
  }

  /**
   * Adds the environment variables:
   * `<PREFIX>_<SECTION>__<SUB>__<PROPERTY>` → `section:sub:property`.
   *
   * @param prefix Only variables starting with `<prefix>_` are read. Omit to
   * read every variable with the same mapping. With a prefix,
   * `<NAME>_FILE` variables read their value from a file.
   * @param options `watch` polls those files and reloads on change.
   * @returns This manager.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addEnvironmentVariables("APP"); // APP_API__BASE_URL → api:baseUrl
   * await config.loadConfiguration();
   * ```
   */
  addEnvironmentVariables(
    prefix?: string,
    options?: EnvironmentVariableOptions,
  ): this {
    this.addProvider(new EnvironmentVariableProvider(prefix, options));
    return this;
  }

  /**
   * Adds the standard, unprefixed variables (`DB_CONNECTION_STRING`,
   * `LOG_LEVEL`, `REDIS_HOST`…; see {@linkcode standardVariables}), and
   * their `<NAME>_FILE` forms, which read the value from a file.
   *
   * @param options `watch` polls those files and reloads on change.
   * @returns This manager.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addStandardVariables(); // LOG_LEVEL → logging:level
   * await config.loadConfiguration();
   * ```
   */
  addStandardVariables(options?: EnvironmentVariableOptions): this {
    this.addProvider(new StandardVariableProvider(options));
    return this;
  }

  /**
   * Loads the sources and builds the effective configuration: synchronous
   * sources are read again, files already read when added are used as they
   * are, then everything merges in precedence order and, with a schema, is
   * validated. Watched files start being watched. Calling it again re-merges
   * (and dispatches `changed` if values changed).
   *
   * @returns A promise that settles when the configuration is readable.
   * @throws {ConfigurationSourceError} when a source cannot be read.
   * @throws {ConfigurationValidationError} when a schema is set and the values
   * do not satisfy it (every failure listed).
   * @throws {UnsafeConfigurationKeyError} for `__proto__`, `prototype`,
   * `constructor` segments.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addEnvironmentVariables("APP");
   * await config.loadConfiguration();
   * ```
   */
  async loadConfiguration(): Promise<void> {
    // Inside a test kit's configuration step, the test's values come first
    // as a source of the highest priority, so that they count in the first
    // validation (a test can supply a required key).
    const test = currentTestConfiguration();
    if (test !== undefined && !test.given.has(this)) {
      test.given.add(this);
      const entries = Object.entries(test.values);
      await this.addProvider({
        name: "createTestApplication config",
        priority: Number.MAX_SAFE_INTEGER,
        load: () =>
          entries.map(([key, value]) => ({
            key,
            value: value as ConfigurationValue,
          })),
      });
    }
    await this.#reloads.load();
  }

  /**
   * Re-reads every source and swaps in the new configuration in one step.
   * When anything fails, the last good configuration stays and the failure
   * is dispatched through `changed` (an entry with `error`) as well as
   * thrown.
   *
   * @returns The changes (also dispatched through `changed` when any).
   * @throws {ConfigurationSourceError} or {@linkcode ConfigurationValidationError}
   * when a source fails or the values no longer validate.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addEnvironmentVariables("APP");
   * await config.loadConfiguration();
   * const changes = await config.reload();
   * ```
   */
  reload(): Promise<readonly ConfigurationChange[]> {
    return this.#reloads.reload();
  }

  /**
   * Tells whether a key has a value (a leaf, or a subtree below it).
   *
   * @param key A colon path, any letter case.
   * @returns `true` when an effective value exists.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "database:timeout": "5000" }));
   * await config.loadConfiguration();
   * config.hasValue("Database:Timeout"); // true
   * config.hasValue("database"); // true
   * ```
   */
  hasValue(key: string): boolean {
    return (this.#index.get(key) ?? this.#layers.find(key)) !== undefined;
  }

  /**
   * Reads a value: a leaf as its source holds it (strings from the
   * environment and memory, unless a schema is set), or a subtree as a deep
   * copy.
   *
   * On a manager created with a schema, a path the schema describes is
   * typed by it (`getValue("database:timeout")` is a `number`), and a path
   * it does not describe is a compile error unless a type argument or a
   * default says what to expect (`getValue<string>(key)`,
   * `getValue(key, "fallback")`), which keeps dynamic keys working. Without
   * a schema every key is accepted, typed by the type argument.
   *
   * @typeParam Path A path of the schema's output type.
   * @param key A colon path, any letter case at run time.
   * @returns The value; a key that has no value throws.
   * @throws {ConfigurationValueNotFoundError} `Configuration value not found:
   * <key>` when the key has no value.
   *
   * @example Typed by the schema
   * ```ts
   * import { appConfigSchema, ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager({ schema: appConfigSchema });
   * config.addProvider(new MemoryProvider({
   *   "database:connectionString": "postgres://db/app",
   *   "api:baseUrl": "https://api.example.com",
   *   "logging:providers:0:type": "console",
   * }));
   * await config.loadConfiguration();
   * const timeout: number = config.getValue("database:timeout"); // 30000
   * ```
   */
  getValue<Path extends ConfigurationPath<Config>>(
    key: Path,
  ): ConfigurationPathValue<Config, Path>;
  /**
   * Reads a value the schema describes, or the default when it has none.
   *
   * @typeParam Path A path of the schema's output type.
   * @param key A colon path, any letter case at run time.
   * @param defaultValue Returned when the key has no value.
   * @returns The value, or the default.
   *
   * @example Usage
   * ```ts
   * import { appConfigSchema, ConfigurationManager } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager({ schema: appConfigSchema });
   * config.getValue("features:maxFileUploadSize", 1_048_576); // a number
   * ```
   */
  getValue<Path extends ConfigurationPath<Config>>(
    key: Path,
    defaultValue: ConfigurationPathValue<Config, Path>,
  ): ConfigurationPathValue<Config, Path>;
  /**
   * Reads a value by any key, typed by the type argument or the default.
   *
   * @typeParam T The expected type (not checked; use a schema for that).
   * @param key A colon path, any letter case.
   * @param defaultValue Returned when the key has no value.
   * @returns The value, or the default.
   * @throws {ConfigurationValueNotFoundError} `Configuration value not found:
   * <key>` when the key has no value and no default was passed.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "database:timeout": "5000" }));
   * await config.loadConfiguration();
   * config.getValue<string>("database:timeout"); // "5000"
   * config.getValue<number>("database:poolSize", 10); // 10
   * ```
   */
  // With a schema, T defaults to never, which makes the key one of the
  // schema's paths: a misspelt key is then a compile error. The result is
  // NoInfer there, so `const url: string = config.getValue("typo")` does not
  // slip through by taking T from the variable's type.
  getValue<T = IsUntyped<Config> extends true ? unknown : never>(
    key: IsUntyped<Config> extends true ? string
      : [T] extends [never] ? ConfigurationPath<Config>
      : string,
    defaultValue?: T,
  ): IsUntyped<Config> extends true ? T : NoInfer<T>;
  getValue(key: string, defaultValue?: unknown): unknown {
    const entry = this.#index.get(key) ?? this.#layers.find(key);
    if (entry !== undefined) {
      return entry.tree ? cloneJson(entry.value) : entry.value;
    }
    if (arguments.length > 1) return defaultValue;
    throw this.#notFound(key);
  }

  /**
   * Returns a deep copy of a subtree, spelled as the winning sources spell
   * it (`""` gives the whole configuration).
   *
   * @typeParam T The expected shape.
   * @param key A colon path, any letter case.
   * @param defaultValue Returned when the key has no value.
   * @returns The copy, or the default.
   * @throws {ConfigurationValueNotFoundError} when the key has no value and no
   * default was passed.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "cache:redis:host": "localhost" }));
   * await config.loadConfiguration();
   * config.getSection("cache"); // { redis: { host: "localhost" } }
   * ```
   */
  getSection<T = Record<string, unknown>>(key: string, defaultValue?: T): T {
    if (key === "") return cloneJson(this.#layers.effective.tree) as T;
    const entry = this.#index.get(key) ?? this.#layers.find(key);
    if (entry !== undefined) return cloneJson(entry.value) as T;
    if (arguments.length > 1) return defaultValue as T;
    throw this.#notFound(key);
  }

  /**
   * Coerces and validates the configuration (or one section) against a
   * valibot schema and returns the typed result with the schema's defaults.
   * Strings become what the schema expects: `"5000"` → 5000,
   * `"true"`/`"false"`/`"1"`/`"0"` → booleans, `" 42 "` → 42, `"1e3"` →
   * 1000, JSON text → arrays and objects; `""` counts as not set for
   * numbers, booleans, arrays and objects. Object keys match the schema
   * ignoring letter case.
   *
   * @typeParam S The schema's type.
   * @param schema A valibot schema, such as {@linkcode appConfigSchema}.
   * @param section A colon path to bind instead of the whole configuration.
   * @returns The typed, defaulted value.
   * @throws {ConfigurationValidationError} with one line per failure, each
   * naming the key and the source that supplied the bad value, for example
   * `api:timeout: must be at most 60000 (from env APP_API__TIMEOUT)`.
   *
   * @example Usage
   * ```ts
   * import * as v from "valibot";
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "cache:redis:port": "6379" }));
   * await config.loadConfiguration();
   * const redis = config.bind(
   *   v.object({ port: v.number(), host: v.optional(v.string(), "localhost") }),
   *   "cache:redis",
   * );
   * redis.port; // 6379
   * ```
   */
  bind<S extends ConfigurationSchema>(
    schema: S,
    section?: string,
  ): InferConfiguration<S> {
    return this.#layers.bind(schema, section) as InferConfiguration<S>;
  }

  /**
   * Lists every effective value with the source that won, like .NET's
   * configuration debug view. Secret values are `***`.
   *
   * @returns One entry per leaf (and per empty array or object), in source
   * order.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "auth:jwtSecret": "s3cret" }));
   * await config.loadConfiguration();
   * config.explain(); // [{ key: "auth:jwtSecret", value: "***", source: "memory" }]
   * ```
   */
  explain(): ExplainedValue[] {
    return this.#inspection.explain();
  }

  /**
   * Names the source whose value won for a key.
   *
   * @param key A colon path, any letter case.
   * @returns The source label (`appsettings.json`, `env APP_API__TIMEOUT`,
   * `memory`…); for a subtree, the highest-precedence source that supplied
   * part of it; `undefined` when the key has no value.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "feature:beta": "true" }));
   * await config.loadConfiguration();
   * config.getSource("feature:beta"); // "memory"
   * ```
   */
  getSource(key: string): string | undefined {
    return (this.#index.get(key) ?? this.#layers.find(key))?.source;
  }

  /**
   * Looks for the usual reasons a value is missing or an environment
   * variable is ignored: prefixed variables that map to no known
   * key, single underscores where `__` would match a known key
   * (`APP_DATABASE_CONNECTION_STRING` → `APP_DATABASE__CONNECTION_STRING`),
   * a missing override file for the chosen environment, optional files that
   * were skipped, variables that look like configuration with no environment
   * source added, and keys read before `loadConfiguration()` finished. Known
   * keys are those of the schema (or {@linkcode appConfigSchema} when none
   * is set), of the other sources, of the standard variables, and the
   * optional keys Kit's own modules read (`server:port`,
   * `cache:redis:database`, `localization:defaultCulture`, …). A finding of
   * code `single-underscore` is a near-miss: its `variable` is the name that
   * is set and its `suggestion` the name that would work; the application
   * host logs these as warnings at start-up, and `createConfiguration({
   * strict: true })` fails on them.
   *
   * @returns The findings; empty when nothing looks wrong.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addEnvironmentVariables("APP");
   * await config.loadConfiguration();
   * for (const finding of config.diagnose()) console.warn(finding.message);
   * ```
   */
  diagnose(): ConfigurationDiagnostic[] {
    return this.#inspection.diagnose();
  }

  /**
   * Stops watching files and cancels a pending reload; waits for a reload
   * already running. The values stay readable.
   *
   * @returns A promise that settles when nothing runs any more.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * await config.loadConfiguration();
   * await config.close();
   * ```
   */
  async close(): Promise<void> {
    await this.#reloads.close();
  }

  /**
   * Same as {@linkcode ConfigurationManager.prototype.close}, for
   * `await using`.
   *
   * @returns A promise that settles when nothing runs any more.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /**
   * Reports the configuration's state for the application host's health
   * checks:
   * - `healthy` once loaded, while the last load or reload succeeded;
   * - `degraded` when the last reload failed (a watched file half-written,
   *   a value that no longer validates): the last good values stay in
   *   force, and `detail` names the source and the error (secrets masked)
   *   and when it failed; the next successful reload makes it healthy again;
   * - `unhealthy` before `loadConfiguration()` has succeeded (nothing is
   *   readable), with the error when it failed.
   *
   * @returns The state, never throwing.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "app:name": "demo" }));
   * await config.loadConfiguration();
   * config.checkHealth(); // { status: "healthy" }
   * ```
   */
  checkHealth(): HealthCheckResult {
    return this.#inspection.checkHealth();
  }

  /**
   * The effective configuration as plain data, secret values replaced by
   * `***`, so `JSON.stringify(config)` is safe to log.
   *
   * @returns A masked deep copy.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "cache:redis:password": "pw" }));
   * await config.loadConfiguration();
   * JSON.stringify(config); // {"cache":{"redis":{"password":"***"}}}
   * ```
   */
  toJSON(): Record<string, unknown> {
    return this.#inspection.toJSON();
  }

  /**
   * The debug view: one line `key = value (source)` per effective value,
   * secret values as `***`.
   *
   * @returns The text.
   *
   * @example Usage
   * ```ts
   * import { ConfigurationManager, MemoryProvider } from "@vendor/kit/config";
   *
   * const config = new ConfigurationManager();
   * config.addProvider(new MemoryProvider({ "feature:beta": "true" }));
   * await config.loadConfiguration();
   * String(config); // 'feature:beta = "true" (memory)'
   * ```
   */
  toString(): string {
    return this.#inspection.debugView(this.explain());
  }

  // ---------------------------------------------------------------- internals

  #notFound(key: string): ConfigurationValueNotFoundError {
    return new ConfigurationValueNotFoundError(
      key,
      this.#layers.loaded
        ? undefined
        : "It was read before loadConfiguration() finished; await config.loadConfiguration() before reading values.",
    );
  }

  // The hints of failing keys, from this manager's diagnose().
  #hintSource(
    replacedArrays: readonly ReplacedArray[],
  ): (key: string) => string[] {
    return this.#inspection.hints(replacedArrays, () => this.diagnose());
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
