import { markSettingError } from "../../internal/error_marks.ts";
import { DatabaseError } from "./database_error.ts";

/**
 * A `database:*` setting (or the constructor option of the same name) that
 * cannot be used: a connection string that is no URL or has an unknown
 * scheme, an embedded engine's folder that is a file, a pool size or time
 * limit out of range. The message names the key and where its value came
 * from, and quotes the value with its secrets masked.
 *
 * @example Usage
 * ```ts
 * import { Database, DatabaseConfigurationError } from "@vendor/kit/platform/database";
 *
 * try {
 *   new Database({ connectionString: "mysql://db/app" });
 * } catch (error) {
 *   if (error instanceof DatabaseConfigurationError) console.log(error.key);
 *   // "database:connectionString"
 * }
 * ```
 */
export class DatabaseConfigurationError extends DatabaseError {
  /** The setting at fault (`database:poolSize`). */
  readonly key: string;
  /** Where its value came from (`APP_DATABASE__POOL_SIZE`, `appsettings.json`). */
  readonly source: string;

  /**
   * Creates the error.
   *
   * @param key The setting at fault.
   * @param source Where its value came from.
   * @param message The whole message (it names both, and what to do).
   */
  constructor(key: string, source: string, message: string) {
    super("configuration", message);
    this.name = "DatabaseConfigurationError";
    this.key = key;
    this.source = source;
  }
}

// A DatabaseError first (its code and `instanceof DatabaseError`), and a
// setting error for `instanceof SettingError`, which a class cannot inherit
// from both.
markSettingError(DatabaseConfigurationError);
