// The interface the host writes its own lines through; its own file so
// that the host's parts can name it without importing the options (and,
// through them, the Application class).

/**
 * What the application writes its own lines to: the logger of the logging
 * step (a `LoggerManager`'s `getLogger("kit.application")`), or the
 * console when the application has no logging step.
 *
 * @example Usage
 * ```ts
 * import type { ApplicationLogger } from "@vendor/kit/platform";
 *
 * const logger: ApplicationLogger = {
 *   debug: () => {},
 *   info: (message) => console.log(message),
 *   warning: (message) => console.warn(message),
 *   error: (message) => console.error(message),
 * };
 * ```
 */
export interface ApplicationLogger {
  /** Writes a debug line. */
  debug(message: string, properties?: Record<string, unknown>): void;
  /** Writes an info line. */
  info(message: string, properties?: Record<string, unknown>): void;
  /** Writes a warning line. */
  warning(message: string, properties?: Record<string, unknown>): void;
  /** Writes an error line. */
  error(message: string, properties?: Record<string, unknown>): void;
  /**
   * Whether a level is written (optional): 0 debug, 1 info, 2 warning,
   * 3 error, as Kit's `LogLevel`. Without it, debug lines are passed on.
   */
  isEnabled?(level: 0 | 1 | 2 | 3): boolean;
}
