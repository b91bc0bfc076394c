import { DatabaseError } from "./database_error.ts";

/**
 * No connection of the pool was free within `database:timeout`: every one
 * is held by a session, a transaction or a query. The message names the
 * pool's size and how many are in use and waiting.
 *
 * @example Usage
 * ```ts
 * import { DatabasePoolTimeoutError } from "@vendor/kit/platform/database";
 *
 * const error = new DatabasePoolTimeoutError(30000, 10, 10, 4);
 * console.log(error.poolSize); // 10
 * ```
 */
export class DatabasePoolTimeoutError extends DatabaseError {
  /** Milliseconds waited. */
  readonly timeout: number;
  /** The pool's size. */
  readonly poolSize: number;
  /** Connections in use when the wait ended. */
  readonly inUse: number;
  /** Callers still waiting then, besides this one. */
  readonly waiting: number;

  /**
   * Creates the error.
   *
   * @param timeout Milliseconds waited.
   * @param poolSize The pool's size.
   * @param inUse Connections in use.
   * @param waiting Callers still waiting.
   */
  constructor(
    timeout: number,
    poolSize: number,
    inUse: number,
    waiting: number,
  ) {
    super(
      "pool_timeout",
      `No database connection was free within ${timeout} ms (database:timeout): ${inUse} of ${poolSize} (database:poolSize) are in use and ${waiting} other callers are waiting. End sessions and transactions sooner, or raise database:poolSize.`,
    );
    this.name = "DatabasePoolTimeoutError";
    this.timeout = timeout;
    this.poolSize = poolSize;
    this.inUse = inUse;
    this.waiting = waiting;
  }
}
