import { DatabaseError } from "./database_error.ts";

/**
 * A migration that could not be applied, or a migrations folder that cannot
 * be used: a file whose statement failed (the message gives the file, line
 * and column), a file changed after it was applied, a file that is not
 * `.sql`, two files with the same number, a missing folder.
 *
 * @example Usage
 * ```ts
 * import { MigrationError } from "@vendor/kit/platform/database";
 *
 * const error = new MigrationError(
 *   "migrations/002_email.sql",
 *   "migrations/002_email.sql:3:14: column \"emial\" does not exist",
 * );
 * console.log(error.file); // "migrations/002_email.sql"
 * ```
 */
export class MigrationError extends DatabaseError {
  /** The file at fault (or the folder). */
  readonly file: string;

  /**
   * Creates the error.
   *
   * @param file The file at fault (or the folder).
   * @param message The whole message (it names the file, and what to do).
   * @param options The cause, if any.
   */
  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super("migration", message, options);
    this.name = "MigrationError";
    this.file = file;
  }
}
