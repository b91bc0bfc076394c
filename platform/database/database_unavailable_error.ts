import { DatabaseError } from "./database_error.ts";

/**
 * The database server cannot be reached: the connection was refused, the
 * host is unknown, connecting took longer than `database:timeout`, or the
 * server is shutting down or restarting. The message names the address
 * (its password masked). Kit tries again with the next query, so the
 * pool recovers by itself once the server is back.
 *
 * @example Usage
 * ```ts
 * import { DatabaseUnavailableError } from "@vendor/kit/platform/database";
 *
 * const error = new DatabaseUnavailableError(
 *   "postgres://app:***@127.0.0.1:5432/app",
 *   "connect ECONNREFUSED 127.0.0.1:5432",
 * );
 * console.log(error.code); // "unavailable"
 * ```
 */
export class DatabaseUnavailableError extends DatabaseError {
  /** The server's address, password masked. */
  readonly address: string;

  /**
   * Creates the error.
   *
   * @param address The server's address, password masked.
   * @param reason What the driver said, masked.
   * @param options The cause, if any.
   */
  constructor(address: string, reason: string, options?: { cause?: unknown }) {
    super(
      "unavailable",
      `The database at ${address} is unreachable: ${reason}. Check that the server is running and that database:connectionString points at it; the next query tries again.`,
      options,
    );
    this.name = "DatabaseUnavailableError";
    this.address = address;
  }
}
