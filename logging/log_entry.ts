import type { LogLevel } from "./log_level.ts";

/** Structured values attached to a log entry. */
export type LogProperties = Record<string, unknown>;

/**
 * One log record, as a {@linkcode Logger} hands it to every
 * {@linkcode ILogProvider}. Providers must not change it: the same object
 * goes to all of them.
 *
 * @example Usage
 * ```ts
 * import { type LogEntry, LogLevel } from "@vendor/kit/logging";
 *
 * const entry: LogEntry = {
 *   timestamp: new Date(),
 *   level: LogLevel.Info,
 *   category: "orders",
 *   message: "Order placed",
 *   properties: { orderId: 42 },
 * };
 * console.log(entry.message);
 * ```
 */
export interface LogEntry {
  /** When the entry was made. */
  readonly timestamp: Date;
  /** Its level. */
  readonly level: LogLevel;
  /** The category of the logger that made it (`getLogger(category)`). */
  readonly category: string;
  /**
   * The message as given, with the secrets it carries by shape masked (a
   * URL's password, `Bearer` credentials, `password=…` pairs; see
   * `redactProperties`). The logger does this once per entry, so every
   * provider gets the masked text.
   */
  readonly message: string;
  /**
   * The logger's context (from `with()`) merged with the call's properties.
   * Never `null`; empty when there are none. An `error` property holding an
   * `Error` and a `requestId` property are moved to their own fields. A
   * single value given in place of the properties (from JavaScript) becomes
   * the positional property `"0"`, a string masked by shape like the
   * message.
   */
  readonly properties: Readonly<LogProperties>;
  /** The error passed with the call, if any. */
  readonly error?: Error;
  /** The request id from the context or the call, if any. */
  readonly requestId?: string;
  /**
   * The trace id (32 lowercase hex digits) of the OpenTelemetry span that
   * was active when the entry was made, if one was (and its context valid).
   */
  readonly traceId?: string;
  /** The span id (16 lowercase hex digits) of that span, with `traceId`. */
  readonly spanId?: string;
}
