import { normalizeLogLevel } from "../core/mod.ts";
import { InvalidLogLevelError } from "./invalid_log_level_error.ts";

/**
 * The four log levels, lowest first. Members are numbers so levels compare
 * with `<` and `>=`; each has a string form (`debug`, `info`, `warning`,
 * `error`) used in configuration (`logging:level`) and in written entries.
 * Convert with {@linkcode parseLogLevel} and {@linkcode logLevelToString}.
 *
 * @example Usage
 * ```ts
 * import { LogLevel, logLevelToString, parseLogLevel } from "@vendor/kit/logging";
 *
 * parseLogLevel("warning") === LogLevel.Warning; // true
 * logLevelToString(LogLevel.Info); // "info"
 * LogLevel.Error > LogLevel.Debug; // true
 * ```
 */
export const LogLevel = {
  /** Detail for developers. */
  Debug: 0,
  /** Normal operation. */
  Info: 1,
  /** Something unexpected that the application survived. */
  Warning: 2,
  /** A failure. */
  Error: 3,
} as const;

/** One of the {@linkcode LogLevel} members: `0 | 1 | 2 | 3`. */
export type LogLevel = typeof LogLevel[keyof typeof LogLevel];

/** The string form of a log level, as written in configuration and output. */
export type LogLevelName = "debug" | "info" | "warning" | "error";

const NAMES: readonly LogLevelName[] = ["debug", "info", "warning", "error"];

/**
 * Tells whether a value is a {@linkcode LogLevel} member (the number).
 *
 * @param value Any value.
 * @returns `true` for `0`, `1`, `2` or `3`.
 *
 * @example Usage
 * ```ts
 * import { isLogLevel, LogLevel } from "@vendor/kit/logging";
 *
 * isLogLevel(LogLevel.Info); // true
 * isLogLevel("info"); // false: a string form, see parseLogLevel
 * ```
 */
export function isLogLevel(value: unknown): value is LogLevel {
  return value === 0 || value === 1 || value === 2 || value === 3;
}

/**
 * Turns a string form or member name into a {@linkcode LogLevel}, ignoring
 * case and surrounding blanks (`"warning"`, `"Warning"`, `" WARNING "`), and
 * taking `warn` as `warning`: the same rule as the configuration's
 * validator and `appConfigSchema` (`normalizeLogLevel` of the configuration
 * module). A member is returned as it is.
 *
 * @param value A string form, a member name or a member.
 * @returns The level.
 * @throws {InvalidLogLevelError} For anything else; the message names the
 * allowed values.
 *
 * @example Usage
 * ```ts
 * import { LogLevel, parseLogLevel } from "@vendor/kit/logging";
 *
 * parseLogLevel("debug"); // LogLevel.Debug
 * parseLogLevel(LogLevel.Error); // LogLevel.Error
 * ```
 */
export function parseLogLevel(value: string | LogLevel): LogLevel {
  if (isLogLevel(value)) return value;
  const name = normalizeLogLevel(value);
  if (name !== undefined) return NAMES.indexOf(name) as LogLevel;
  throw new InvalidLogLevelError(value);
}

/**
 * Returns the string form of a level.
 *
 * @param level A {@linkcode LogLevel} member.
 * @returns `"debug"`, `"info"`, `"warning"` or `"error"`.
 * @throws {InvalidLogLevelError} When `level` is not a member.
 *
 * @example Usage
 * ```ts
 * import { LogLevel, logLevelToString } from "@vendor/kit/logging";
 *
 * logLevelToString(LogLevel.Warning); // "warning"
 * ```
 */
export function logLevelToString(level: LogLevel): LogLevelName {
  const name = NAMES[level];
  if (name === undefined || !isLogLevel(level)) {
    throw new InvalidLogLevelError(level);
  }
  return name;
}
