import { markKitError } from "../internal/error_marks.ts";
import { invalidLogLevelMessage } from "../core/mod.ts";

/**
 * Thrown when a value is not one of the four log levels. The message is
 * `Invalid log level: <value> (allowed: debug, info, warning, error)`, with
 * `; from <source>` before the closing parenthesis when the source is known:
 * the same message the configuration's validator and `appConfigSchema`
 * give.
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
  /** What went wrong, as a stable string: `invalid_log_level`. */
  readonly code = "invalid_log_level";

  /** The value that was given. */
  readonly value: unknown;
  /** The accepted string forms, lowest level first. */
  readonly allowed: readonly string[];

  /**
   * Creates the error.
   *
   * @param value The value that is not a log level.
   * @param source Where the value came from (`env LOG_LEVEL`…), when known.
   */
  constructor(value: unknown, source?: string) {
    const allowed = ["debug", "info", "warning", "error"] as const;
    super(invalidLogLevelMessage(value, source));
    this.name = "InvalidLogLevelError";
    this.value = value;
    this.allowed = allowed;
  }
}

// It keeps its built-in base; the mark makes it a KitError all the same.
markKitError(InvalidLogLevelError);
