// The handle a transaction(fn) callback gets (DatabaseTransaction): its
// statements run on the transaction's connection, transaction() on it nests
// a savepoint, and it stops working once the callback's promise settles.
import {
  checkStatement,
  closedError,
  type HeldConnection,
  inTransaction,
} from "./_runner.ts";
import type {
  Queryable,
  QueryResult,
  TransactionOptions,
} from "./database_options.ts";

/**
 * The handle a `transaction(fn)` callback gets. Its statements run on the
 * transaction's connection; `transaction()` on it nests a savepoint (when
 * its callback throws, only its work is rolled back). It works only until
 * the callback's promise settles: after that its methods reject with a
 * `DatabaseError` whose code is `closed`.
 *
 * @example Usage
 * ```ts
 * import { Database, type DatabaseTransaction } from "@vendor/kit/platform/database";
 *
 * async function transfer(tx: DatabaseTransaction, amount: number): Promise<void> {
 *   await tx.query("UPDATE accounts SET balance = balance - $1 WHERE id = 1", [amount]);
 *   await tx.query("UPDATE accounts SET balance = balance + $1 WHERE id = 2", [amount]);
 * }
 * await using db = new Database({ connectionString: "pglite:memory" });
 * await db.query("CREATE TABLE accounts (id int PRIMARY KEY, balance int)");
 * await db.query("INSERT INTO accounts VALUES (1, 100), (2, 0)");
 * await db.transaction((tx) => transfer(tx, 40));
 * ```
 */
export interface DatabaseTransaction extends Queryable {
  /**
   * Runs `fn` in a savepoint of this transaction.
   *
   * @param fn The work; when it throws, only its statements are undone.
   * @param options Ignored (a savepoint keeps its transaction's).
   * @returns What `fn` returned.
   */
  transaction<T>(
    fn: (tx: DatabaseTransaction) => T | Promise<T>,
    options?: TransactionOptions,
  ): Promise<T>;
}

/** Runs `fn` with a handle that ends when it settles. */
export async function withTransaction<T>(
  held: HeldConnection,
  depth: number,
  outer: boolean,
  options: TransactionOptions | undefined,
  fn: (tx: DatabaseTransaction) => T | Promise<T>,
): Promise<T> {
  const handle = new TransactionHandle(held, depth, outer);
  try {
    return await inTransaction(
      held,
      depth,
      outer,
      options,
      async () => await fn(handle),
    );
  } finally {
    handle.open = false;
  }
}

class TransactionHandle implements DatabaseTransaction {
  readonly #held: HeldConnection;
  readonly #depth: number;
  readonly #outer: boolean;
  open = true;

  constructor(held: HeldConnection, depth: number, outer: boolean) {
    this.#held = held;
    this.#depth = depth;
    this.#outer = outer;
  }

  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>> {
    try {
      checkStatement(text, params);
      if (!this.open) throw ended();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#held.query<Row>(text, params);
  }

  transaction<T>(
    fn: (tx: DatabaseTransaction) => T | Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> {
    if (!this.open) return Promise.reject(ended());
    return withTransaction(
      this.#held,
      this.#depth + 1,
      this.#outer,
      options,
      fn,
    );
  }
}

function ended(): Error {
  return closedError(
    "The transaction has ended: run its statements inside the transaction(fn) callback, and await them before it returns",
  );
}
