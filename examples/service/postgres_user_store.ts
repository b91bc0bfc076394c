// Users in PostgreSQL through `pg`: a pool sized from database:poolSize with
// timeouts from database:timeout, the table created at start-up, a health
// check (SELECT 1 under the check's deadline), and a session per request
// that runs the request's queries on one connection of the pool.
// @ts-types="@types/pg"
import pg from "pg";
import type { NewUser, User, UserStore } from "./users.ts";

/** Options of {@linkcode PostgresUserStore.connect}. */
export interface PostgresUserStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  connectionString: string;
  /** Connections kept at most. */
  poolSize: number;
  /** Milliseconds a connection attempt or a query may take. */
  timeout: number;
  /** Receives errors of idle connections (a restarted server). */
  onError?: (error: Error) => void;
}

interface UserRow {
  id: string;
  name: string;
  email: string;
  created_at: Date;
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS users (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`;

function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    createdAt: row.created_at.toISOString(),
  };
}

/** Users kept in a PostgreSQL table `users`. */
export class PostgresUserStore {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Opens the pool and creates the table when it is missing.
   *
   * @param options Connection string, pool size and timeout.
   * @returns The store.
   * @throws {Error} When the database cannot be reached within the timeout.
   */
  static async connect(
    options: PostgresUserStoreOptions,
  ): Promise<PostgresUserStore> {
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      connectionTimeoutMillis: options.timeout,
      query_timeout: options.timeout,
      statement_timeout: options.timeout,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
    });
    // An idle connection that breaks (the server restarted) is reported
    // here; without a listener it would end the process.
    pool.on("error", (error) => options.onError?.(error));
    try {
      await pool.query(CREATE_TABLE);
    } catch (error) {
      await pool.end().catch(() => {});
      throw new Error(
        `PostgreSQL (database:connectionString) could not be used: ${
          error instanceof Error ? error.message : String(error)
        }`,
        { cause: error },
      );
    }
    return new PostgresUserStore(pool);
  }

  /**
   * A session for one request (the service registers it as a scoped
   * service): it takes a connection from the pool at its first query, so a
   * request that reads no user takes none, and gives it back when disposed.
   *
   * @returns The session.
   */
  session(): PostgresUserSession {
    return new PostgresUserSession(this.#pool);
  }

  /**
   * `SELECT 1`: healthy when it answers before `signal` aborts (and within
   * the pool's query timeout).
   *
   * @param signal Aborts at the check's deadline.
   * @returns `healthy`, or `unhealthy` with the reason.
   */
  async checkHealth(
    signal?: AbortSignal,
  ): Promise<{ status: "healthy" | "unhealthy"; detail?: string }> {
    const aborted = new Promise<never>((_, reject) => {
      if (signal === undefined) return;
      const fail = (): void =>
        reject(new Error("no answer before the health check's deadline"));
      if (signal.aborted) fail();
      else signal.addEventListener("abort", fail, { once: true });
    });
    aborted.catch(() => {});
    try {
      await Promise.race([
        this.#pool.query("SELECT 1"),
        aborted,
      ]);
      return { status: "healthy" };
    } catch (error) {
      return {
        status: "unhealthy",
        detail: error instanceof Error ? error.message : String(error),
      };
    }
  }

  /**
   * Closes the pool's connections.
   *
   * @returns Settles when they are closed.
   */
  async dispose(): Promise<void> {
    await this.#pool.end();
  }
}

/**
 * One request's access to the users: its queries run in order on one
 * connection, so a request holds at most one of the pool's connections
 * however many queries it makes.
 */
export class PostgresUserSession implements UserStore, AsyncDisposable {
  readonly #pool: pg.Pool;
  #client: Promise<pg.PoolClient> | undefined;
  #failed = false;

  /** @param pool The pool to take the connection from. */
  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async #query<Row extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
  ): Promise<Row[]> {
    this.#client ??= this.#pool.connect();
    const client = await this.#client;
    try {
      return (await client.query<Row>(text, values)).rows;
    } catch (error) {
      this.#failed = true;
      throw error;
    }
  }

  /**
   * @param user The validated new user.
   * @returns The stored user.
   */
  async create(user: NewUser): Promise<User> {
    const rows = await this.#query<UserRow>(
      "INSERT INTO users (id, name, email) VALUES ($1, $2, $3) RETURNING id, name, email, created_at",
      [crypto.randomUUID(), user.name, user.email],
    );
    return toUser(rows[0]);
  }

  /**
   * @param id The user id (a UUID).
   * @returns The user, or `undefined`.
   */
  async get(id: string): Promise<User | undefined> {
    const rows = await this.#query<UserRow>(
      "SELECT id, name, email, created_at FROM users WHERE id = $1",
      [id],
    );
    return rows.length === 0 ? undefined : toUser(rows[0]);
  }

  /**
   * Gives the connection back to the pool; one whose query failed (a
   * timeout, a broken connection) is closed instead, as its state is
   * unknown.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    const pending = this.#client;
    this.#client = undefined;
    const client = await pending?.catch(() => undefined);
    client?.release(this.#failed);
  }
}
