import { KitError } from "../../core/mod.ts";

/**
 * Thrown when a configuration source cannot be read: a required file is
 * missing, a file is not valid JSON (the message names the absolute path, the
 * line and the column), valid JSON is not an object, a URL answers with an
 * error, or a key is malformed. The message never quotes the source's text,
 * so no secret leaks through it.
 *
 * @example Usage
 * ```ts
 * import {
 *   ConfigurationManager,
 *   ConfigurationSourceError,
 * } from "@vendor/kit/config";
 *
 * const config = new ConfigurationManager();
 * try {
 *   await config.addJsonFile("does-not-exist.json");
 * } catch (error) {
 *   if (error instanceof ConfigurationSourceError) {
 *     console.log(error.message); // "Configuration file not found: /…/does-not-exist.json"
 *   }
 * }
 * ```
 */
export class ConfigurationSourceError extends KitError {
  /** What went wrong, as a stable string: `configuration_source`. */
  readonly code = "configuration_source";

  /** The source's label (a file path as given, a URL, `memory`, `env …`). */
  readonly source: string;
  /** The absolute path of the file, when the source is a file. */
  readonly path: string | undefined;
  /** The 1-based line of a JSON syntax error. */
  readonly line: number | undefined;
  /** The 1-based column of a JSON syntax error. */
  readonly column: number | undefined;

  /**
   * Creates the error.
   *
   * @param message What went wrong, naming the file or URL.
   * @param details The source's label, and where known the absolute path and
   * the line and column of a syntax error.
   */
  constructor(
    message: string,
    details: {
      source: string;
      path?: string;
      line?: number;
      column?: number;
      cause?: unknown;
    },
  ) {
    super(
      message,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.name = "ConfigurationSourceError";
    this.source = details.source;
    this.path = details.path;
    this.line = details.line;
    this.column = details.column;
  }
}
