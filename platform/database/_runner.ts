// What the façade, its sessions and its transactions share: a connection
// held for a session or a transaction, and running a transaction on one held connection (BEGIN … COMMIT, or a savepoint when
// nested), rolling back when the work throws and closing the connection
// when the rollback itself fails.
import type { EngineConnection } from "./_engine.ts";
import type { StatementRunner } from "./_observer.ts";
import { DatabaseError } from "./database_error.ts";
import type { QueryResult, TransactionOptions } from "./database_options.ts";

/** Checks the arguments of `query`. */
export function checkStatement(text: unknown, params: unknown): void {
  if (typeof text !== "string" || !/\S/.test(text)) {
    throw new TypeError("query: the statement must be a non-empty string");
  }
  if (params !== undefined && !Array.isArray(params)) {
    throw new TypeError(
      "query: the parameters must be an array ($1 is params[0])",
    );
  }
}

/** A connection held for a session or a transaction. */
export class HeldConnection {
  readonly #connection: EngineConnection;
  readonly #runner: StatementRunner;
  /** Set once a rollback failed: the connection's state is unknown. */
  spoiled = false;

  constructor(connection: EngineConnection, runner: StatementRunner) {
    this.#connection = connection;
    this.#runner = runner;
  }

  get broken(): boolean {
    return this.spoiled || this.#connection.broken;
  }

  query<Row>(
    text: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>> {
    // The engine's rows are objects keyed by column: the caller's type
    // argument names their shape.
    return this.#runner.run(
      text,
      () => this.#connection.query(text, params),
    ) as Promise<unknown> as Promise<QueryResult<Row>>;
  }

  execute(text: string): Promise<void> {
    return this.#runner.run(text, () => this.#connection.execute(text));
  }

  release(): void {
    this.#connection.release(this.broken);
  }
}

const ISOLATION = new Set([
  "read committed",
  "repeatable read",
  "serializable",
]);

function beginStatement(options: TransactionOptions | undefined): string {
  let text = "BEGIN";
  const isolation = options?.isolation;
  if (isolation !== undefined) {
    if (!ISOLATION.has(isolation)) {
      throw new TypeError(
        `transaction: isolation must be "read committed", "repeatable read" or "serializable": ${
          JSON.stringify(isolation)
        }`,
      );
    }
    text += ` ISOLATION LEVEL ${isolation.toUpperCase()}`;
  }
  if (options?.readOnly === true) text += " READ ONLY";
  return text;
}

/**
 * Runs `work` in a transaction on `held`: at `depth` 0 a real one (or a
 * savepoint when the engine runs inside a transaction already, as the test
 * kit's does), deeper a savepoint.
 */
export async function inTransaction<T>(
  held: HeldConnection,
  depth: number,
  outer: boolean,
  options: TransactionOptions | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const savepoint = depth > 0 || outer ? `kit_savepoint_${depth}` : undefined;
  await held.query(
    savepoint === undefined
      ? beginStatement(options)
      : `SAVEPOINT ${savepoint}`,
  );
  let result: T;
  try {
    result = await work();
  } catch (error) {
    try {
      await held.query(
        savepoint === undefined
          ? "ROLLBACK"
          : `ROLLBACK TO SAVEPOINT ${savepoint}`,
      );
      if (savepoint !== undefined) {
        await held.query(`RELEASE SAVEPOINT ${savepoint}`);
      }
    } catch {
      // The connection cannot say what state it is in: it is closed when
      // given back, never reused.
      held.spoiled = true;
    }
    throw error;
  }
  await held.query(
    savepoint === undefined ? "COMMIT" : `RELEASE SAVEPOINT ${savepoint}`,
  );
  return result;
}

/** The error for a handle used after it ended. */
export function closedError(what: string): DatabaseError {
  return new DatabaseError("closed", what);
}
