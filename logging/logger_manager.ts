import type { IConfiguration } from "../config/mod.ts";
import { deadlineSignal, type DisposeOptions } from "../core/mod.ts";
import type { HealthCheckResult, HealthStatus } from "../platform/mod.ts";
import {
  type LogLevel,
  type LogLevelName,
  parseLogLevel,
} from "./log_level.ts";
import type { ILogProvider } from "./providers/log_provider.ts";
import type { Logger } from "./logger.ts";
import { Core, createLogger, OFF } from "./_logger.ts";
import { optionsFromConfiguration } from "./_configuration.ts";

/** The argument of {@linkcode LoggerManager.configure}. */
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

// How many loggers a manager keeps for getLogger() to hand out again.
const LOGGER_CACHE_SIZE = 1000;

const SEVERITY: Record<HealthStatus, number> = {
  healthy: 0,
  degraded: 1,
  unhealthy: 2,
};

/**
 * Owns the logging setup: the level, the providers, and the loggers handed
 * out by {@linkcode LoggerManager.getLogger}. Static methods act on a
 * process-wide default manager, as application code usually writes them
 * (`LoggerManager.configure(...)`); `new LoggerManager()` gives an isolated
 * one, as with `ServiceLocator`.
 *
 * Until it is configured with at least one provider a manager writes nothing
 * (calls cost one comparison). Reconfiguring affects loggers already handed
 * out; providers left out of the new setup are disposed in the background,
 * and the next `flush()` or `dispose()` waits for that.
 *
 * `getLogger` keeps the 1,000 most recently used loggers and hands out the
 * same object for a category while it is among them; a logger dropped from
 * that cache keeps working, and asking again gives an equivalent new one, so
 * an application that makes a category per user or per request does not
 * grow the manager without bound.
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
  // Most recently used last (a Map keeps insertion order).
  readonly #loggers = new Map<string, Logger>();
  #level: LogLevel = 1;
  // Providers the last fromConfiguration built, by their entry's key.
  #configured = new Map<string, ILogProvider>();

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
   * method). This is step 2 of the start-up order (configuration,
   * logging, services, then the application).
   *
   * @param config The application configuration.
   * @param options Values set in code; each wins over the configuration.
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
  static fromConfiguration(
    config: IConfiguration,
    options?: Partial<LoggerManagerOptions>,
  ): LoggerManager {
    return LoggerManager.#default.fromConfiguration(config, options);
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
   * @param options `signal` and/or `timeout` (ms), passed to every provider.
   * @returns A promise that settles when everything logged is written.
   * @throws {AggregateError} When providers failed to flush.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * await LoggerManager.flush({ timeout: 2_000 });
   * ```
   */
  static flush(options?: DisposeOptions): Promise<void> {
    return LoggerManager.#default.flush(options);
  }

  /**
   * Disposes the default manager's providers; it writes nothing afterwards
   * until configured again.
   *
   * @param options `signal` and/or `timeout` (ms), passed to every provider.
   * @returns A promise that settles when every provider is closed.
   * @throws {AggregateError} When providers failed to dispose.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * await LoggerManager.dispose({ timeout: 5_000 });
   * ```
   */
  static dispose(options?: DisposeOptions): Promise<void> {
    return LoggerManager.#default.dispose(options);
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
    for (const [key, provider] of this.#configured) {
      if (!providers.includes(provider)) this.#configured.delete(key);
    }
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
   * Calling it again (a reload) keeps every provider whose entry (type and
   * options) is unchanged: changing only the level recreates nothing, and a
   * file provider keeps writing the same open file. Providers whose entry
   * changed or went away are disposed in the background after writing what
   * they hold.
   *
   * @param config Any {@linkcode IConfiguration}, normally the
   * `ConfigurationManager`.
   * @param options Values set in code (`level`, `providers`, `onError`);
   * each wins over the configuration, which fills only what is not set.
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
  fromConfiguration(
    config: IConfiguration,
    options?: Partial<LoggerManagerOptions>,
  ): this {
    const previous = this.#configured;
    const used = new Set<ILogProvider>();
    const configured = optionsFromConfiguration(
      config,
      (key) => {
        const provider = previous.get(key);
        if (provider === undefined || used.has(provider)) return undefined;
        used.add(provider);
        return provider;
      },
      options?.providers === undefined,
    );
    const next = new Map<string, ILogProvider>();
    configured.providers.forEach((provider, index) =>
      next.set(configured.keys[index], provider)
    );
    this.configure({
      level: options?.level ?? configured.level,
      providers: options?.providers ?? configured.providers,
      onError: options?.onError,
    });
    this.#configured = next;
    return this;
  }

  /**
   * Returns the logger of a category, created on first request.
   *
   * @param category A name for what logs, for example `orders` or `http`.
   * @returns The logger (the same object while the category is among the
   * 1,000 most recently used).
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
    const loggers = this.#loggers;
    let logger = loggers.get(name);
    if (logger === undefined) {
      logger = createLogger(this.#core, name);
      if (loggers.size >= LOGGER_CACHE_SIZE) {
        loggers.delete(loggers.keys().next().value as string);
      }
    } else {
      // Most recently used goes last.
      loggers.delete(name);
    }
    loggers.set(name, logger);
    return logger;
  }

  /**
   * Waits for every provider's `flush()` and for work still running (custom
   * providers' `log` promises, background disposals).
   *
   * @param options `signal` and/or `timeout` (ms): combined into one signal
   * passed to every provider's `flush({ signal })`. When it fires, the
   * providers stop retrying, count what they could not deliver as dropped
   * and report it, and this call resolves without waiting further.
   * @returns A promise that settles when everything logged so far is written.
   * @throws {AggregateError} When one or more providers failed to flush; the
   * others are flushed all the same.
   * @throws {RangeError} When `timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * const manager = new LoggerManager();
   * await manager.flush({ timeout: 2_000 });
   * ```
   */
  async flush(options?: DisposeOptions): Promise<void> {
    const signal = deadlineSignal(options);
    const passed = signal === undefined ? undefined : { signal };
    const core = this.#core;
    const results = await Promise.allSettled(
      core.providers.map((provider) =>
        bounded(
          Promise.resolve().then(() => provider.flush?.(passed)),
          signal,
        )
      ),
    );
    await this.#settlePending(signal);
    throwFailures(results, "flush");
  }

  /**
   * Disposes every provider (each flushes first), waits for work still
   * running, and leaves the manager unconfigured: later calls write nothing
   * until `configure` is called again.
   *
   * @param options `signal` and/or `timeout` (ms): combined into one signal
   * passed to every provider's `dispose({ signal })`. When it fires, the
   * providers stop retrying, count what they could not deliver as dropped
   * and report it, and this call resolves without waiting further.
   * @returns A promise that settles when every provider is closed.
   * @throws {AggregateError} When one or more providers failed to dispose;
   * the others are disposed all the same.
   * @throws {RangeError} When `timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * await using manager = new LoggerManager();
   * manager.getLogger("app").info("bye");
   * ```
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    const signal = deadlineSignal(options);
    const passed = signal === undefined ? undefined : { signal };
    const core = this.#core;
    const providers = core.providers;
    core.providers = [];
    core.threshold = OFF;
    this.#configured = new Map();
    const results = await Promise.allSettled(
      providers.map((provider) =>
        bounded(
          Promise.resolve().then(() =>
            typeof provider.dispose === "function"
              ? provider.dispose(passed)
              : provider.flush?.(passed)
          ),
          signal,
        )
      ),
    );
    await this.#settlePending(signal);
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

  /**
   * The health of logging: the worst status among the providers that have a
   * `checkHealth()` method (a {@linkcode RemoteLogProvider} is `degraded`
   * while its deliveries fail or after it dropped entries), `healthy` when
   * none has one. The detail lists each checked provider's result.
   *
   * @param signal Passed to each provider's check.
   * @returns The worst status, with `{ providers: [{ provider, status,
   * detail }] }`.
   *
   * @example Usage
   * ```ts
   * import { LoggerManager } from "@vendor/kit/logging";
   *
   * const manager = new LoggerManager();
   * console.log((await manager.checkHealth()).status); // "healthy"
   * ```
   */
  async checkHealth(signal?: AbortSignal): Promise<HealthCheckResult> {
    let status: HealthStatus = "healthy";
    const results: {
      provider: string;
      status: HealthStatus;
      detail?: unknown;
    }[] = [];
    for (const provider of this.#core.providers) {
      if (typeof provider.checkHealth !== "function") continue;
      let result: HealthCheckResult;
      try {
        result = await provider.checkHealth(signal);
      } catch (error) {
        result = {
          status: "unhealthy",
          detail: error instanceof Error ? error.message : String(error),
        };
      }
      results.push({
        provider: provider.constructor?.name ?? "provider",
        status: result.status,
        detail: result.detail,
      });
      if (SEVERITY[result.status] > SEVERITY[status]) status = result.status;
    }
    return { status, detail: { providers: results } };
  }

  async #settlePending(signal?: AbortSignal): Promise<void> {
    const pending = this.#core.pending;
    while (pending.size > 0 && !signal?.aborted) {
      await bounded(Promise.all([...pending]), signal);
    }
  }
}

// Waits for the work, or until the signal aborts (the work goes on, unawaited).
function bounded<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T | undefined> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.resolve(undefined);
  }
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => {
      work.catch(() => {});
      resolve(undefined);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
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
