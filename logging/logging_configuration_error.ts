import { SettingError } from "../core/mod.ts";

/**
 * Thrown by {@linkcode LoggerManager.fromConfiguration} when the `logging`
 * section cannot be turned into providers. The message names the
 * configuration key, and for a provider its index and option:
 *
 * - `Invalid logging configuration: logging:providers[2].type must be one of console, file, remote (got "syslog")`
 * - `Invalid logging configuration: logging:providers[1].options.maxFileSize must be a positive integer (got "big")`
 *
 * @example Usage
 * ```ts
 * import { LoggerManager, LoggingConfigurationError } from "@vendor/kit/logging";
 *
 * const config = {
 *   hasValue: (key: string) => key === "logging:providers",
 *   getValue: <T>(_key: string): T => [{ type: "syslog" }] as T,
 * };
 * try {
 *   new LoggerManager().fromConfiguration(config);
 * } catch (error) {
 *   if (error instanceof LoggingConfigurationError) console.log(error.providerIndex); // 0
 * }
 * ```
 */
export class LoggingConfigurationError extends SettingError {
  /** What went wrong, as a stable string: `logging_configuration`. */
  readonly code = "logging_configuration";

  /** The configuration key at fault, for example `logging:providers`. */
  declare readonly key: string;
  /** The index in `logging:providers`, when a provider is at fault. */
  readonly providerIndex: number | undefined;
  /** The option (or `type`) at fault, when a provider is at fault. */
  readonly option: string | undefined;

  /**
   * Creates the error.
   *
   * @param key The configuration key.
   * @param detail What is wrong, starting with the path of the value.
   * @param providerIndex The provider's index, if any.
   * @param option The option name, if any.
   * @param options Standard error options (`cause`), and where the value
   * came from (`source`: a variable's name, a file), when there is one.
   */
  constructor(
    key: string,
    detail: string,
    providerIndex?: number,
    option?: string,
    options?: { cause?: unknown; source?: string },
  ) {
    super(`Invalid logging configuration: ${detail}`, {
      ...options,
      key,
    });
    this.name = "LoggingConfigurationError";
    this.providerIndex = providerIndex;
    this.option = option;
  }
}
