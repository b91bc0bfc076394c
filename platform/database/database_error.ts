import { KitError } from "../../core/mod.ts";

/**
 * What went wrong, as {@linkcode DatabaseError.code} says it: stable strings
 * to branch on, whatever the message's wording.
 *
 * - `configuration`: a `database:*` setting or a constructor option is
 *   wrong (see {@linkcode DatabaseConfigurationError});
 * - `unavailable`: the server cannot be reached
 *   ({@linkcode DatabaseUnavailableError});
 * - `pool_timeout`: no connection was free in time
 *   ({@linkcode DatabasePoolTimeoutError});
 * - `statement_timeout`: a statement ran past its limit
 *   ({@linkcode DatabaseTimeoutError});
 * - `query`: the server refused a statement
 *   ({@linkcode DatabaseQueryError});
 * - `migration`: a migration could not be applied
 *   ({@linkcode MigrationError});
 * - `closed`: the database, session or transaction was already disposed.
 *
 * @example Usage
 * ```ts
 * import type { DatabaseErrorCode } from "@vendor/kit/platform/database";
 *
 * const code: DatabaseErrorCode = "pool_timeout";
 * ```
 */
export type DatabaseErrorCode =
  | "configuration"
  | "unavailable"
  | "pool_timeout"
  | "statement_timeout"
  | "query"
  | "migration"
  | "closed";

/**
 * The base of every error the database entry point throws: catch it for
 * "anything the database did", and branch on {@linkcode DatabaseError.code}.
 * Its message never holds a statement's parameter values or the connection
 * string's password.
 *
 * @example Usage
 * ```ts
 * import { DatabaseError } from "@vendor/kit/platform/database";
 *
 * const error = new DatabaseError("closed", "The database is disposed");
 * console.log(error.code); // "closed"
 * ```
 */
export class DatabaseError extends KitError {
  /** What went wrong, as a stable string. */
  readonly code: DatabaseErrorCode;

  /**
   * Creates the error.
   *
   * @param code What went wrong.
   * @param message The text, with nothing secret in it.
   * @param options The cause, if any.
   */
  constructor(
    code: DatabaseErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "DatabaseError";
    this.code = code;
  }
}
