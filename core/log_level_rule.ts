import { maskSecretText } from "./secrets.ts";

/** The log level names, lowest first. */
export type LogLevelText = "debug" | "info" | "warning" | "error";

const LEVELS: readonly LogLevelText[] = ["debug", "info", "warning", "error"];

/**
 * The one log level rule of Kit, used by the configuration's validation and
 * schema and by the logging module alike (it lives in core so that logging
 * need not load the configuration package for it): `debug`, `info`,
 * `warning` or `error`, in any letter case and with blanks around it
 * ignored; `warn` is taken as `warning`.
 *
 * @param value A configured level.
 * @returns The level name, or `undefined` when the value is not a level.
 *
 * @example Usage
 * ```ts
 * import { normalizeLogLevel } from "@vendor/kit/core";
 *
 * normalizeLogLevel(" WARN "); // "warning"
 * normalizeLogLevel("verbose"); // undefined
 * ```
 */
export function normalizeLogLevel(value: unknown): LogLevelText | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim().toLowerCase();
  const name = text === "warn" ? "warning" : text;
  return LEVELS.includes(name as LogLevelText)
    ? name as LogLevelText
    : undefined;
}

/**
 * The one message for a value that is not a log level:
 * `Invalid log level: <value> (allowed: debug, info, warning, error; from
 * <source>)`. Secrets in the value or the source (a URL's password) are
 * masked.
 *
 * @param value The configured value.
 * @param source Where it came from (`appsettings.json`, `env LOG_LEVEL`…),
 * when known.
 * @returns The message.
 *
 * @example Usage
 * ```ts
 * import { invalidLogLevelMessage } from "@vendor/kit/core";
 *
 * invalidLogLevelMessage("verbose", "env LOG_LEVEL");
 * // "Invalid log level: verbose (allowed: debug, info, warning, error; from env LOG_LEVEL)"
 * ```
 */
export function invalidLogLevelMessage(
  value: unknown,
  source?: string,
): string {
  const text = typeof value === "object" && value !== null
    ? JSON.stringify(value)
    : String(value);
  const from = source === undefined ? "" : `; from ${source}`;
  return maskSecretText(
    `Invalid log level: ${text} (allowed: ${LEVELS.join(", ")}${from})`,
  );
}
