/**
 * A configuration value as sources supply it: JSON's value types. Flat
 * sources (environment variables, `.env`, memory) supply strings.
 */
export type ConfigurationValue =
  | string
  | number
  | boolean
  | null
  | ConfigurationValue[]
  | { [key: string]: ConfigurationValue };

/**
 * One value a provider supplies: a colon-path key (`""` for the root, whose
 * value is then an object) and its value. Numeric segments
 * (`logging:providers:0:type`) build arrays.
 */
export interface ConfigurationEntry {
  /** A colon path, or `""` for the root. */
  readonly key: string;
  /** The value; objects and arrays are taken as subtrees. */
  readonly value: ConfigurationValue;
  /**
   * The source label shown by `explain()` and in error messages, for
   * example `env APP_DATABASE__TIMEOUT`. Defaults to the provider's
   * {@linkcode ConfigurationProvider.name}.
   */
  readonly source?: string;
}

/** What one diagnosis is about; see {@linkcode ConfigurationDiagnostic}. */
export type ConfigurationDiagnosticCode =
  /** A prefixed variable maps to no key the schema or another source knows. */
  | "unknown-variable"
  /**
   * A near-miss: a variable uses `_` where `__` would match a known key;
   * `variable` is the name set, `suggestion` the name that would work. The
   * application host logs these at start-up, and `createConfiguration({
   * strict: true })` fails on them.
   */
  | "single-underscore"
  /** The override file of the chosen environment does not exist. */
  | "missing-environment-file"
  /** An optional file does not exist. */
  | "missing-optional-file"
  /** A key was read before `loadConfiguration()` finished. */
  | "read-before-load"
  /** Configuration-like variables exist but no environment source was added. */
  | "no-environment-source"
  /** The runtime did not allow reading the environment. */
  | "environment-unavailable"
  /** A source was added after `loadConfiguration()` and not loaded since. */
  | "added-after-load";

/**
 * One finding of {@linkcode ConfigurationManager.prototype.diagnose}: a
 * likely reason why a value is not what was expected (an environment
 * variable ignored, a configuration value missing).
 */
export interface ConfigurationDiagnostic {
  /** What kind of problem this is. */
  readonly code: ConfigurationDiagnosticCode;
  /** A sentence naming the variable, file or key and what to do. */
  readonly message: string;
  /** The configuration key concerned, when there is one. */
  readonly key?: string;
  /** The environment variable concerned, when there is one. */
  readonly variable?: string;
  /** The corrected variable name or key, when one is suggested. */
  readonly suggestion?: string;
}

/** What a provider's `diagnose` method may ask the manager. */
export interface ConfigurationDiagnosticContext {
  /**
   * Tells whether a key is known: the manager's schema (or
   * `appConfigSchema` when it has none) describes it, another source
   * supplies it, or a standard variable maps to it.
   */
  isKnownKey(key: string): boolean;
  /** The environment name the manager was given, if any. */
  readonly environment?: string;
  /**
   * What chose the environment name (`RUNTIME_ENV`, `NODE_ENV`, `APP_ENV`,
   * `the environment option`, `the default`), when known.
   */
  readonly environmentSource?: string;
}

/**
 * A source of configuration. Kit ships {@linkcode JsonFileProvider},
 * {@linkcode EnvironmentVariableProvider}, {@linkcode StandardVariableProvider},
 * {@linkcode MemoryProvider}, {@linkcode DotEnvProvider} and
 * {@linkcode JsonUrlProvider}; any object of this shape can be added with
 * {@linkcode ConfigurationManager.prototype.addProvider}.
 *
 * @example A custom provider
 * ```ts
 * import {
 *   type ConfigurationEntry,
 *   ConfigurationManager,
 *   type ConfigurationProvider,
 * } from "@vendor/kit/config";
 *
 * const buildInfo: ConfigurationProvider = {
 *   name: "build info",
 *   load(): ConfigurationEntry[] {
 *     return [{ key: "app:version", value: "1.2.3" }];
 *   },
 * };
 * const config = new ConfigurationManager();
 * config.addProvider(buildInfo);
 * await config.loadConfiguration();
 * config.getValue("app:version"); // "1.2.3"
 * ```
 */
export interface ConfigurationProvider {
  /** A short label for `explain()` and error messages. */
  readonly name: string;
  /**
   * Sources of a higher priority override those of a lower one whatever the
   * order they were added in; equal priorities apply in the order added.
   * Defaults to `0`; {@linkcode MemoryProvider} uses
   * {@linkcode MEMORY_PRIORITY} so that it always wins.
   */
  readonly priority?: number;
  /**
   * Reads the source. Called when the provider is added, again by
   * `loadConfiguration()` when it is synchronous, and by every `reload()`.
   *
   * @returns The entries, or a promise of them.
   */
  load():
    | readonly ConfigurationEntry[]
    | Promise<readonly ConfigurationEntry[]>;
  /**
   * Starts watching the source, when it supports that and was asked to.
   *
   * @param onChange To call whenever the source may have changed.
   * @returns A function that stops watching (returning a promise when
   * stopping takes time), or `undefined` when the provider does not watch.
   */
  watch?(
    onChange: () => void,
  ): Promise<(() => void | Promise<void>) | undefined>;
  /**
   * Findings about this source for `config.diagnose()`.
   *
   * @param context What the manager knows.
   * @returns The findings, possibly none.
   */
  diagnose?(context: ConfigurationDiagnosticContext): ConfigurationDiagnostic[];
}

/** The priority of {@linkcode MemoryProvider}: above every other source. */
export const MEMORY_PRIORITY = 1_000_000;
