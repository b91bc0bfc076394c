/**
 * Logging package of Kit (`@vendor/kit-platform-logging`):
 * a {@linkcode LoggerManager} with a level and providers, loggers per
 * category with structured properties and child context, and three
 * providers — {@linkcode ConsoleLogProvider}, {@linkcode FileLogProvider}
 * (size rotation) and {@linkcode RemoteLogProvider} (batched HTTP with
 * retries). Secret properties (password, secret, apiKey, token,
 * authorization, connectionString) are written as `***` by every provider.
 * Console formatting is built on LogTape; nothing of LogTape appears in the
 * public types.
 *
 * A call below the configured level costs one comparison: no entry, no
 * formatting, no promise.
 *
 * @example Usage
 * ```ts
 * import {
 *   ConsoleLogProvider,
 *   FileLogProvider,
 *   LoggerManager,
 *   LogLevel,
 * } from "@vendor/kit/logging";
 *
 * LoggerManager.configure({
 *   level: LogLevel.Info,
 *   providers: [
 *     new ConsoleLogProvider({ colorize: true, timestamp: true, format: "simple" }),
 *     new FileLogProvider({
 *       filename: "logs/app.log",
 *       maxFileSize: 10 * 1024 * 1024,
 *       maxFiles: 5,
 *       format: "json",
 *     }),
 *   ],
 * });
 *
 * const logger = LoggerManager.getLogger("orders");
 * logger.info("Order placed", { orderId: 42, apiKey: "not written" });
 * logger.with({ requestId: "r-1" }).error("Payment failed", new Error("declined"));
 *
 * await LoggerManager.dispose(); // flushes the file, then closes it
 * ```
 *
 * @module
 */
export * from "./log_level.ts";
export type * from "./log_entry.ts";
export type * from "./providers/log_provider.ts";
export type * from "./logger.ts";
export * from "./logger_manager.ts";
export * from "./providers/console_log_provider.ts";
export * from "./providers/file_log_provider.ts";
export * from "./providers/remote_log_provider.ts";
export * from "./redact.ts";
export * from "./invalid_log_level_error.ts";
export * from "./providers/log_provider_option_error.ts";
export * from "./logging_configuration_error.ts";
export * from "./providers/log_delivery_error.ts";
// The configuration interface `LoggerManager.fromConfiguration` takes, so the
// logging docs are complete on their own (the same type as in `../config`).
export type { IConfiguration } from "../config/mod.ts";
// The flush/dispose options and health check result, for the same reason.
export type { DisposeOptions } from "../core/mod.ts";
export type { HealthCheckResult, HealthStatus } from "../platform/mod.ts";
