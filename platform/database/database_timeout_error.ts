import { DatabaseError } from "./database_error.ts";

/**
 * A statement ran past `database:timeout` and the server cancelled it. The
 * connection stays usable (inside a transaction, the transaction is rolled
 * back). The message quotes the statement's first line, never its values.
 *
 * @example Usage
 * ```ts
 * import { DatabaseTimeoutError } from "@vendor/kit/platform/database";
 *
 * const error = new DatabaseTimeoutError("SELECT pg_sleep(60)", 1000);
 * console.log(error.message);
 * // "The statement ran past 1000 ms (database:timeout) and was cancelled: SELECT pg_sleep(60)"
 * ```
 */
export class DatabaseTimeoutError extends DatabaseError {
  /** The statement's first line. */
  readonly statement: string;
  /** The limit, in milliseconds. */
  readonly timeout: number;

  /**
   * Creates the error.
   *
   * @param statement The statement's first line.
   * @param timeout The limit, in milliseconds.
   * @param options The cause, if any.
   */
  constructor(
    statement: string,
    timeout: number,
    options?: { cause?: unknown },
  ) {
    super(
      "statement_timeout",
      `The statement ran past ${timeout} ms (database:timeout) and was cancelled: ${statement}`,
      options,
    );
    this.name = "DatabaseTimeoutError";
    this.statement = statement;
    this.timeout = timeout;
  }
}
