import type { IConfiguration } from "../config/mod.ts";
import {
  type LogLevel,
  type LogLevelName,
  parseLogLevel,
} from "./log_level.ts";
import type { ILogProvider } from "./log_provider.ts";
import type { Logger } from "./logger.ts";
import { Core, createLogger, OFF } from "./_logger.ts";
import { optionsFromConfiguration } from "./_configuration.ts";

/** The argument of {@linkcode LoggerManager.configure} (spec §2.4). */
export interface LoggerManagerOptions {
  /**
   * Lowest level written: a {@linkcode LogLevel} member or its string form.
   * Default `info`.
   */
  level?: LogLevel | LogLevelName;
  /** Where entries go. With none, every call is a no-op. */
  providers: readonly ILogProvider[];
  /**
   * Receives what goes wrong inside providers (a `log` that throws or
   * rejects), so logging never throws at its caller. Default:
   * `console.error`.
   */
  onError?: (error: unknown) => void;
}

/**
 * Owns the logging setup: the level, the providers, and the loggers handed
 * out by {@linkcode LoggerManager.getLogger}. Static methods act on a
 * process-wide default manager, as the spec writes them
 * (`LoggerManager.configure(...)`); `new LoggerManager()` gives an isolated
 * one, as with `ServiceLocator`.
 *
 * Until it is configured with at least one provider a manager writes nothing
 * (calls cost one comparison). Reconfiguring affects loggers already handed
 * out; providers left out of the new setup are disposed in the background,
 * and the next `flush()` or `dispose()` waits for that.
 *
 * @example Usage
 * ```ts
 * import { ConsoleLogProvider, LoggerManager, LogLevel } from "@vendor/kit/logging";
 *
 * LoggerManager.configure({
 *   level: LogLevel.Info,
 *   providers: [new ConsoleLogProvider({ colorize: true, timestamp: true, format: "simple" })],
 * });
 * const logger = LoggerManager.getLogger("app");
 * logger.info("Started", { port: 3000 });
 * logger.debug("not written: below info");
 * await LoggerManager.dispose();
 * ```
 *
 * @example From configuration (startup step 2)
 * ```ts
 * import type { IConfiguration } from "@vendor/kit/config";
 * import { LoggerManager } from "@vendor/kit/logging";
 *
 * const values: Record<string, unknown> = {
 *   "logging:level": "debug",
 *   "logging:providers": [{ type: "console", options: { format: "json" } }],
 * };
 * const config: IConfiguration = {
 *   hasValue: (key) => key in values,
 *   getValue: <T>(key: string, fallback?: T): T => (values[key] ?? fallback) as T,
 * };
 * const manager = new LoggerManager().fromConfiguration(config);
 * manager.getLogger("app").debug("configured");
 * await manager.dispose();
 * ```
 */
export class LoggerManager {
  static #default: LoggerManager = new LoggerManager();

  readonly #core: Core = new Core();
  readonly #loggers = new Map<string, Logger>();
  #level: LogLevel = 1;

  /** The process-wide manager that the static methods act on. */
  static get default(): LoggerManager {
    return LoggerManager.#default;
  }

  /**
   * Configures the default manager (see the instance method).
   *
   * @param options The level and the providers.
   * @returns The default manager.
   * @throws {InvalidLogLevelError} When `level` is not a level.
   * @throws {TypeError} When a provider lacks `log` or `isEnabled`.
   *
   * @example Usage
   * ```ts
   * import { ConsoleLogProvider, LoggerManager } from "@vendor/kit/logging";
   *
   * LoggerManager.configure({ level: "warning", providers: [new ConsoleLogProvider()] });
   * await LoggerManager.dispose();
   * ```
   */
  static configure(options: LoggerManagerOptions): LoggerManager {
    return LoggerManager.#default.configure(options);
  }

  /**
   * Configures the default manager from configuration (see the instance
   * method). This is step 2 of the startup order (spec §1).
   *
   * @param config The application configuration.
   * @returns The default manager.
   * @throws {LoggingConfigurationError} When the `logging` section is invalid.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * LoggerManager.fromConfiguration({
   *   hasValue: (key) => key === "logging:level",
   *   getValue: <T>(_key: string): T => "info" as T,
   * });
   * await LoggerManager.dispose();
   * ```
   */
  static fromConfiguration(config: IConfiguration): LoggerManager {
    return LoggerManager.#default.fromConfiguration(config);
  }

  /**
   * Returns a logger of the default manager.
   *
   * @param category A name for what logs, for example `orders` or `http`.
   * @returns The logger (the same object for the same category).
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * const logger = LoggerManager.getLogger("orders");
   * logger.info("Order placed", { orderId: 42 });
   * ```
   */
  static getLogger(category: string): Logger {
    return LoggerManager.#default.getLogger(category);
  }

  /**
   * Flushes the default manager's providers.
   *
   * @returns A promise that settles when everything logged is written.
   * @throws {AggregateError} When providers failed to flush.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * await LoggerManager.flush();
   * ```
   */
  static flush(): Promise<void> {
    return LoggerManager.#default.flush();
  }

  /**
   * Disposes the default manager's providers; it writes nothing afterwards
   * until configured again.
   *
   * @returns A promise that settles when every provider is closed.
   * @throws {AggregateError} When providers failed to dispose.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * await LoggerManager.dispose();
   * ```
   */
  static dispose(): Promise<void> {
    return LoggerManager.#default.dispose();
  }

  /**
   * Replaces the default manager with a new, unconfigured one. Nothing is
   * disposed: call {@linkcode LoggerManager.dispose} first. Loggers taken
   * from the old default keep using the old one.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * await LoggerManager.dispose();
   * LoggerManager.reset();
   * ```
   */
  static reset(): void {
    LoggerManager.#default = new LoggerManager();
  }

  /** The configured level (`info` until configured). */
  get level(): LogLevel {
    return this.#level;
  }

  /** The configured providers. */
  get providers(): readonly ILogProvider[] {
    return this.#core.providers;
  }

  /**
   * Sets the level and the providers. Existing loggers follow at once.
   * Providers of the previous setup that are not in `providers` are disposed
   * in the background.
   *
   * @param options The level and the providers.
   * @returns This manager, for chaining.
   * @throws {InvalidLogLevelError} When `level` is not a level; the message
   * names the allowed values.
   * @throws {TypeError} When `providers` is not an array of objects with
   * `log` and `isEnabled` methods.
   *
   * @example Usage
   * ```ts
   * import { FileLogProvider, LoggerManager } from "@vendor/kit/logging";
   *
   * const manager = new LoggerManager().configure({
   *   level: "info",
   *   providers: [new FileLogProvider({ filename: "logs/app.log" })],
   * });
   * await manager.dispose();
   * ```
   */
  configure(options: LoggerManagerOptions): this {
    if (options === null || typeof options !== "object") {
      throw new TypeError("LoggerManager.configure: options must be an object");
    }
    const level = options.level === undefined
      ? 1
      : parseLogLevel(options.level);
    const providers = options.providers ?? [];
    if (!Array.isArray(providers)) {
      throw new TypeError(
        "LoggerManager.configure: providers must be an array",
      );
    }
    providers.forEach((provider: ILogProvider, index: number) => {
      if (
        provider === null || typeof provider !== "object" ||
        typeof provider.log !== "function" ||
        typeof provider.isEnabled !== "function"
      ) {
        throw new TypeError(
          `LoggerManager.configure: providers[${index}] must have log(entry) and isEnabled(level) methods`,
        );
      }
    });
    if (
      options.onError !== undefined && typeof options.onError !== "function"
    ) {
      throw new TypeError(
        "LoggerManager.configure: onError must be a function",
      );
    }
    const core = this.#core;
    const previous = core.providers;
    core.providers = Object.freeze([...providers]);
    if (options.onError !== undefined) core.onError = options.onError;
    this.#level = level;
    core.threshold = providers.length === 0 ? OFF : level;
    for (const provider of previous) {
      if (
        !providers.includes(provider) && typeof provider.dispose === "function"
      ) {
        core.track(Promise.resolve().then(() => provider.dispose?.()));
      }
    }
    return this;
  }

  /**
   * Configures this manager from the `logging` section of a configuration:
   * `logging:level` (default `info`) and `logging:providers`, a list of
   * `{ type: "console" | "file" | "remote", options }` (default: one console
   * provider). A file provider without `filename` takes `logging:filePath`
   * (variable `LOG_FILE_PATH`); a remote provider without `endpoint` or
   * `apiKey` takes `logging:remoteEndpoint` (`LOG_REMOTE_ENDPOINT`) and
   * `logging:apiKey` (`LOGGING_API_KEY`). Numbers and booleans given as
   * strings (environment variables) are converted.
   *
   * @param config Any {@linkcode IConfiguration}, normally the
   * `ConfigurationManager`.
   * @returns This manager, for chaining.
   * @throws {LoggingConfigurationError} For an invalid level, an unknown
   * provider type or a bad option; the message names the provider index and
   * the option. Nothing is changed then.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * const manager = new LoggerManager().fromConfiguration({
   *   hasValue: (key) => key === "logging:level",
   *   getValue: <T>(_key: string): T => "warning" as T,
   * });
   * await manager.dispose();
   * ```
   */
  fromConfiguration(config: IConfiguration): this {
    return this.configure(optionsFromConfiguration(config));
  }

  /**
   * Returns the logger of a category, created on first request.
   *
   * @param category A name for what logs, for example `orders` or `http`.
   * @returns The logger.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * const manager = new LoggerManager();
   * manager.getLogger("orders") === manager.getLogger("orders"); // true
   * ```
   */
  getLogger(category: string): Logger {
    const name = String(category);
    let logger = this.#loggers.get(name);
    if (logger === undefined) {
      logger = createLogger(this.#core, name);
      this.#loggers.set(name, logger);
    }
    return logger;
  }

  /**
   * Waits for every provider's `flush()` and for work still running (custom
   * providers' `log` promises, background disposals).
   *
   * @returns A promise that settles when everything logged so far is written.
   * @throws {AggregateError} When one or more providers failed to flush; the
   * others are flushed all the same.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * const manager = new LoggerManager();
   * await manager.flush();
   * ```
   */
  async flush(): Promise<void> {
    const core = this.#core;
    const results = await Promise.allSettled(
      core.providers.map((provider) => provider.flush?.()),
    );
    await this.#settlePending();
    throwFailures(results, "flush");
  }

  /**
   * Disposes every provider (each flushes first), waits for work still
   * running, and leaves the manager unconfigured: later calls write nothing
   * until `configure` is called again.
   *
   * @returns A promise that settles when every provider is closed.
   * @throws {AggregateError} When one or more providers failed to dispose;
   * the others are disposed all the same.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * await using manager = new LoggerManager();
   * manager.getLogger("app").info("bye");
   * ```
   */
  async dispose(): Promise<void> {
    const core = this.#core;
    const providers = core.providers;
    core.providers = [];
    core.threshold = OFF;
    const results = await Promise.allSettled(
      providers.map((provider) =>
        typeof provider.dispose === "function"
          ? provider.dispose()
          : provider.flush?.()
      ),
    );
    await this.#settlePending();
    throwFailures(results, "dispose");
  }

  /**
   * Same as {@linkcode LoggerManager.prototype.dispose}, for `await using`.
   *
   * @returns A promise that settles when every provider is closed.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  async #settlePending(): Promise<void> {
    const pending = this.#core.pending;
    while (pending.size > 0) await Promise.all([...pending]);
  }
}

function throwFailures(
  results: PromiseSettledResult<unknown>[],
  action: string,
): void {
  const errors = results
    .filter((result): result is PromiseRejectedResult =>
      result.status === "rejected"
    )
    .map((result) => result.reason);
  if (errors.length > 0) {
    throw new AggregateError(
      errors,
      `LoggerManager.${action}: ${errors.length} provider(s) failed`,
    );
  }
}
