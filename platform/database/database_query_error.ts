import { DatabaseError } from "./database_error.ts";

/**
 * What the server reported about a statement it refused: a syntax error, a
 * constraint violated, the wrong number of parameters. The message is the
 * server's, with its SQLSTATE and the statement's first line. The server's
 * `detail` (which may quote the row's values, as a unique violation does)
 * is left out unless the database was created with `includeErrorDetail`.
 *
 * @example Usage
 * ```ts
 * import { DatabaseQueryError } from "@vendor/kit/platform/database";
 *
 * const error = new DatabaseQueryError(
 *   'duplicate key value violates unique constraint "users_email_key"',
 *   { sqlState: "23505", statement: "INSERT INTO users (email) VALUES ($1)" },
 * );
 * console.log(error.sqlState); // "23505"
 * ```
 */
export class DatabaseQueryError extends DatabaseError {
  /** The server's message alone. */
  readonly reason: string;
  /** The SQLSTATE code (`23505` for a unique violation), when known. */
  readonly sqlState: string | undefined;
  /** The statement's first line. */
  readonly statement: string;
  /** Where in the statement the error is (1-based character), when known. */
  readonly position: number | undefined;
  /** The constraint violated, when one was. */
  readonly constraint: string | undefined;
  /** The table concerned, when known. */
  readonly table: string | undefined;
  /** The column concerned, when known. */
  readonly column: string | undefined;
  /** The server's detail, only with `includeErrorDetail`. */
  readonly detail: string | undefined;

  /**
   * Creates the error.
   *
   * @param reason The server's message.
   * @param fields The statement's first line and what the server said
   * about it.
   */
  constructor(
    reason: string,
    fields: {
      statement: string;
      sqlState?: string;
      position?: number;
      constraint?: string;
      table?: string;
      column?: string;
      detail?: string;
    },
  ) {
    const state = fields.sqlState === undefined ? "" : ` (${fields.sqlState})`;
    const at = fields.position === undefined
      ? ""
      : ` at character ${fields.position}`;
    const detail = fields.detail === undefined ? "" : `; ${fields.detail}`;
    super(
      "query",
      `${reason}${state}${detail}${at} in: ${fields.statement}`,
    );
    this.name = "DatabaseQueryError";
    this.reason = reason;
    this.sqlState = fields.sqlState;
    this.statement = fields.statement;
    this.position = fields.position;
    this.constraint = fields.constraint;
    this.table = fields.table;
    this.column = fields.column;
    this.detail = fields.detail;
  }
}
