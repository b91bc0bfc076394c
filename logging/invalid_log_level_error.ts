/**
 * Thrown when a value is not one of the four log levels. The message is
 * `Invalid log level: <value> (allowed: debug, info, warning, error)`; its
 * start matches the configuration validator's text (spec §4.3).
 *
 * @example Usage
 * ```ts
 * import { InvalidLogLevelError, parseLogLevel } from "@vendor/kit/logging";
 *
 * try {
 *   parseLogLevel("verbose");
 * } catch (error) {
 *   if (error instanceof InvalidLogLevelError) console.log(error.value);
 * }
 * ```
 */
export class InvalidLogLevelError extends RangeError {
  /** The value that was given. */
  readonly value: unknown;
  /** The accepted string forms, lowest level first. */
  readonly allowed: readonly string[];

  /**
   * Creates the error.
   *
   * @param value The value that is not a log level.
   */
  constructor(value: unknown) {
    const allowed = ["debug", "info", "warning", "error"] as const;
    super(
      `Invalid log level: ${String(value)} (allowed: ${allowed.join(", ")})`,
    );
    this.name = "InvalidLogLevelError";
    this.value = value;
    this.allowed = allowed;
  }
}
