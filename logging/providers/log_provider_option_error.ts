import { markKitError } from "../../internal/error_marks.ts";
import { describeValue, maskValue } from "./_describe.ts";

/**
 * Thrown by a provider constructor when an option is missing, unknown or of
 * the wrong kind. The message names the provider and the option:
 * `FileLogProvider: option 'maxFileSize' must be a positive integer (got -1)`.
 *
 * @example Usage
 * ```ts
 * import { FileLogProvider, LogProviderOptionError } from "@vendor/kit/logging";
 *
 * try {
 *   new FileLogProvider({ filename: "logs/app.log", maxFiles: 0 });
 * } catch (error) {
 *   if (error instanceof LogProviderOptionError) console.log(error.option); // "maxFiles"
 * }
 * ```
 */
export class LogProviderOptionError extends TypeError {
  /** What went wrong, as a stable string: `log_provider_option`. */
  readonly code = "log_provider_option";

  /** The provider class, for example `FileLogProvider`. */
  readonly provider: string;
  /** The option at fault. */
  readonly option: string;
  /** What is wrong with it, for example `must be a positive integer`. */
  readonly problem: string;
  /**
   * The value that was given; `***` for a secret option (`apiKey`,
   * `password`…), and secret keys inside an object value are masked too.
   */
  readonly value: unknown;

  /**
   * Creates the error.
   *
   * @param provider The provider class name.
   * @param option The option name.
   * @param problem What is wrong, without the option name.
   * @param value The value given.
   */
  constructor(
    provider: string,
    option: string,
    problem: string,
    value: unknown,
  ) {
    super(
      `${provider}: option '${option}' ${problem}${
        describeValue(value, option)
      }`,
    );
    this.name = "LogProviderOptionError";
    this.provider = provider;
    this.option = option;
    this.problem = problem;
    this.value = maskValue(value, option);
  }
}

// It keeps its built-in base; the mark makes it a KitError all the same.
markKitError(LogProviderOptionError);
