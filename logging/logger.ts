import type { LogProperties } from "./log_entry.ts";
import type { LogLevel } from "./log_level.ts";

/**
 * Writes entries of one category. Get one from
 * {@linkcode LoggerManager.getLogger}; it follows later `configure` calls of
 * its manager.
 *
 * A call below the manager's level returns after one number comparison: no
 * entry object, no formatting, no promise. Properties are passed as an object
 * so nothing is formatted until a provider writes it; an `Error` may be
 * passed in place of the properties, or as an `error` property, and ends up
 * in `LogEntry.error` with its stack.
 *
 * Secrets in the message are masked by their shape before any provider sees
 * it: `log.info("connecting to postgres://app:pw@db/app")` is written as
 * `connecting to postgres://app:***@db/app`, and `Bearer` credentials as
 * `Bearer ***`. A call below the level does none of this work.
 *
 * @example Usage
 * ```ts
 * import { LoggerManager } from "@vendor/kit/logging";
 *
 * const logger = new LoggerManager().getLogger("orders");
 * logger.info("Order placed", { orderId: 42 });
 * logger.error("Payment failed", new Error("card declined"));
 *
 * const requestLogger = logger.with({ requestId: "r-1" });
 * requestLogger.warning("Slow response", { ms: 1200 });
 * ```
 */
export interface Logger {
  /** The category given to `getLogger`. */
  readonly category: string;
  /**
   * Writes a debug entry.
   *
   * @param message What happened.
   * @param properties Structured values, or an error.
   */
  debug(message: string, properties?: LogProperties | Error): void;
  /**
   * Writes an info entry.
   *
   * @param message What happened.
   * @param properties Structured values, or an error.
   */
  info(message: string, properties?: LogProperties | Error): void;
  /**
   * Writes a warning entry.
   *
   * @param message What happened.
   * @param properties Structured values, or an error.
   */
  warning(message: string, properties?: LogProperties | Error): void;
  /**
   * Writes an error entry.
   *
   * @param message What happened.
   * @param properties Structured values, or an error.
   */
  error(message: string, properties?: LogProperties | Error): void;
  /**
   * Writes an entry at a level chosen at run time.
   *
   * @param level The level.
   * @param message What happened.
   * @param properties Structured values, or an error.
   */
  log(
    level: LogLevel,
    message: string,
    properties?: LogProperties | Error,
  ): void;
  /**
   * Tells whether entries of a level would be written, to skip computing
   * expensive properties.
   *
   * @param level The level.
   * @returns `true` when the manager's level lets it through.
   */
  isEnabled(level: LogLevel): boolean;
  /**
   * Returns a child logger of the same category that adds `properties` to
   * every entry (the call's own properties win on a clash). A `requestId`
   * property becomes the entries' `requestId`.
   *
   * @param properties Context for every entry of the child.
   * @returns The child logger.
   */
  with(properties: LogProperties): Logger;
}
