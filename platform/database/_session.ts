// A unit of work (DatabaseSession): one connection, taken at the first
// statement (a session that runs none takes none) and given back when the
// session is disposed, after its statements in flight have settled; one
// that broke is closed instead. A request's scoped session is disposed by
// its scope when the response is done, also when the handler threw.
import type { Engine, EngineConnection } from "./_engine.ts";
import type { StatementRunner } from "./_observer.ts";
import { checkStatement, closedError, HeldConnection } from "./_runner.ts";
import { type DatabaseTransaction, withTransaction } from "./_transaction.ts";
import type {
  Queryable,
  QueryResult,
  TransactionOptions,
} from "./database_options.ts";

/**
 * A unit of work on one connection, from `db.session()`: it takes a
 * connection from the pool at its first statement (a session that runs
 * none takes none) and gives it back on `dispose()` or at the end of an
 * `await using` block, once its statements in flight have settled. A
 * connection that broke meanwhile is closed rather than given back.
 * Register it as a scoped service so that each request gets its own.
 *
 * @example Usage
 * ```ts
 * import { Database } from "@vendor/kit/platform/database";
 *
 * await using db = new Database({ connectionString: "pglite:memory" });
 * {
 *   await using session = db.session();
 *   await session.query("CREATE TEMP TABLE seen (x int)");
 *   await session.query("INSERT INTO seen VALUES (1)");
 *   // Same connection, so the temporary table is still there.
 *   console.log((await session.query("SELECT x FROM seen")).rowCount); // 1
 * }
 * ```
 */
export interface DatabaseSession extends Queryable, AsyncDisposable {
  /** Whether the session holds a connection now. */
  readonly connected: boolean;
  /**
   * Runs `fn` in a transaction on the session's connection.
   *
   * @param fn The work; when it throws, the transaction is rolled back.
   * @param options Isolation and access mode.
   * @returns What `fn` returned, once committed.
   */
  transaction<T>(
    fn: (tx: DatabaseTransaction) => T | Promise<T>,
    options?: TransactionOptions,
  ): Promise<T>;
  /**
   * Gives the connection back (after the statements in flight settle).
   * Calling it again does nothing; the session cannot be used after it.
   *
   * @returns Settles once the connection is back.
   */
  dispose(): Promise<void>;
}

/** What a session needs of its database. */
export interface SessionOwner {
  /** The engine, opened on first use. */
  engine(): Promise<Engine>;
  /** The engine once opened (no promise on the common path). */
  opened(): Engine | undefined;
  readonly runner: StatementRunner;
  /** Whether the engine runs inside a transaction already (test kit). */
  readonly outer: boolean;
  /** Counts work in flight, for the database's dispose. */
  begin(): void;
  end(): void;
  /** Throws when the database is disposed. */
  checkOpen(): void;
  /** Keeps track of held connections (closed at the disposal deadline). */
  hold(held: HeldConnection): void;
  letGo(held: HeldConnection): void;
}

/** Creates a session of `owner`. */
export function createSession(owner: SessionOwner): DatabaseSession {
  return new Session(owner);
}

class Session implements DatabaseSession {
  readonly #owner: SessionOwner;
  // The connection being taken, and once taken, the connection itself (so
  // the statements after the first add no promise of their own).
  #taking: Promise<HeldConnection> | undefined;
  #held: HeldConnection | undefined;
  // Statements and transactions in flight, which dispose() waits for.
  #pending = 0;
  #idle: (() => void) | undefined;
  #inTransaction = false;
  #disposed: Promise<void> | undefined;

  constructor(owner: SessionOwner) {
    this.#owner = owner;
  }

  get connected(): boolean {
    return this.#taking !== undefined;
  }

  #connection(): Promise<HeldConnection> {
    if (this.#taking === undefined) {
      const owner = this.#owner;
      owner.begin();
      const engine = owner.opened();
      const connecting: Promise<EngineConnection> = engine === undefined
        ? owner.engine().then((opened) => opened.connect())
        : engine.connect();
      this.#taking = connecting.then((connection) => {
        const held = new HeldConnection(connection, owner.runner);
        owner.hold(held);
        this.#held = held;
        return held;
      }, (error: unknown) => {
        // A failed take ends the session's hold on the pool: the next
        // statement tries again.
        this.#taking = undefined;
        owner.end();
        throw owner.runner.noted(error);
      });
    }
    return this.#taking;
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#pending++;
    const settled = (): void => {
      if (--this.#pending === 0) this.#idle?.();
    };
    work.then(settled, settled);
    return work;
  }

  #check(): void {
    if (this.#disposed !== undefined) {
      throw closedError(
        "The session is disposed: take a new one with db.session()",
      );
    }
    this.#owner.checkOpen();
    if (this.#inTransaction) {
      throw closedError(
        "The session has a transaction open: run this statement through the transaction's handle (tx.query) inside transaction(fn)",
      );
    }
  }

  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>> {
    try {
      checkStatement(text, params);
      this.#check();
    } catch (error) {
      return Promise.reject(error);
    }
    const held = this.#held;
    return this.#track(
      held !== undefined
        ? held.query<Row>(text, params)
        : this.#connection().then((taken) => taken.query<Row>(text, params)),
    );
  }

  transaction<T>(
    fn: (tx: DatabaseTransaction) => T | Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> {
    try {
      this.#check();
    } catch (error) {
      return Promise.reject(error);
    }
    this.#inTransaction = true;
    const work = this.#connection().then((held) =>
      withTransaction(held, 0, this.#owner.outer, options, fn)
    ).finally(() => {
      this.#inTransaction = false;
    });
    return this.#track(work);
  }

  dispose(): Promise<void> {
    this.#disposed ??= this.#pending === 0 && this.#held !== undefined
      ? Promise.resolve(this.#giveBack(this.#held))
      : this.#release();
    return this.#disposed;
  }

  #giveBack(held: HeldConnection): void {
    this.#taking = undefined;
    this.#held = undefined;
    this.#owner.letGo(held);
    held.release();
    this.#owner.end();
  }

  async #release(): Promise<void> {
    if (this.#pending > 0) {
      await new Promise<void>((resolve) => this.#idle = resolve);
    }
    const taking = this.#taking;
    if (taking === undefined) return;
    const held = await taking.catch(() => undefined);
    if (held !== undefined) this.#giveBack(held);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }
}
