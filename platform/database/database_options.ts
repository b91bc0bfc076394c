import type { ApplicationLogger } from "../mod.ts";

/**
 * A statement's result: its rows, typed by the type argument of `query`,
 * and how many rows it returned or changed.
 *
 * @typeParam Row The shape of one row.
 *
 * @example Usage
 * ```ts
 * import type { QueryResult } from "@vendor/kit/platform/database";
 *
 * const result: QueryResult<{ id: number }> = { rows: [{ id: 1 }], rowCount: 1 };
 * ```
 */
export interface QueryResult<Row = Record<string, unknown>> {
  /** The rows, keyed by column name. */
  readonly rows: Row[];
  /** Rows returned (SELECT) or changed (INSERT, UPDATE, DELETE). */
  readonly rowCount: number;
}

/**
 * How a transaction runs: PostgreSQL's isolation level and access mode.
 *
 * @example Usage
 * ```ts
 * import type { TransactionOptions } from "@vendor/kit/platform/database";
 *
 * const options: TransactionOptions = { isolation: "serializable" };
 * ```
 */
export interface TransactionOptions {
  /** Default: the server's (`read committed`). Ignored when nested. */
  isolation?: "read committed" | "repeatable read" | "serializable";
  /** Run it `READ ONLY`. Default `false`. Ignored when nested. */
  readOnly?: boolean;
}

/**
 * The pool's counters.
 *
 * @example Usage
 * ```ts
 * import type { PoolCounters } from "@vendor/kit/platform/database";
 *
 * const counters: PoolCounters = { total: 4, idle: 3, waiting: 0 };
 * ```
 */
export interface PoolCounters {
  /** Connections open (idle or in use). */
  readonly total: number;
  /** Open connections nobody holds. */
  readonly idle: number;
  /** Callers waiting for a connection. */
  readonly waiting: number;
}

/**
 * What runs statements: a {@linkcode Database} (each statement on any free
 * connection), a session (one connection, taken at its first statement) or
 * a transaction. Write code against it to run the same way in each.
 *
 * @example Usage
 * ```ts
 * import type { Queryable } from "@vendor/kit/platform/database";
 *
 * async function countUsers(db: Queryable): Promise<number> {
 *   const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM users");
 *   return rows[0].n;
 * }
 * ```
 */
export interface Queryable {
  /**
   * Runs one statement with `$1`, `$2`… parameters.
   *
   * @param text The statement.
   * @param params The parameters' values, in order.
   * @returns The rows and the row count.
   */
  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>>;
  /**
   * Runs `fn` in a transaction (a savepoint inside another one).
   *
   * @param fn The work; its result is returned.
   * @param options Isolation and access mode.
   * @returns What `fn` returned, once committed.
   */
  transaction<T>(
    fn: (tx: Queryable) => T | Promise<T>,
    options?: TransactionOptions,
  ): Promise<T>;
}

/**
 * The options of {@linkcode Database}: the four `database:*` settings and
 * what only code sets.
 *
 * @example Usage
 * ```ts
 * import type { DatabaseOptions } from "@vendor/kit/platform/database";
 *
 * const options: DatabaseOptions = {
 *   connectionString: "postgres://app:secret@127.0.0.1:5432/app",
 *   poolSize: 10,
 *   timeout: 30_000,
 * };
 * ```
 */
export interface DatabaseOptions {
  /**
   * Where the database is: `postgres://user:password@host:5432/name` (or
   * `postgresql://`) for a PostgreSQL server through `pg`; `pglite:memory`,
   * or `pglite:<folder>`, for the embedded engine (PGlite) in this process.
   */
  connectionString: string;
  /** Connections the pool keeps at most, 1 to 100. Default 10. */
  poolSize?: number;
  /**
   * Milliseconds, 1000 to 60000, to wait for a free connection, and each
   * statement's time limit (enforced by the server, which cancels the
   * statement). Default 30000.
   */
  timeout?: number;
  /**
   * Log each statement at debug under `kit.database`: its text, duration
   * and row count, never its parameters. Default `false`.
   */
  enableLogging?: boolean;
  /**
   * Milliseconds from which a statement is logged as slow, at warning
   * (whether or not `enableLogging` is on); 0 never. Default 1000.
   */
  slowStatementThreshold?: number;
  /**
   * Milliseconds an unused connection stays open before it is closed.
   * Default 30000.
   */
  idleTimeout?: number;
  /** Shown by the server in `pg_stat_activity.application_name`. */
  applicationName?: string;
  /**
   * Keep the server's `detail` in query errors. It can quote the row's
   * values (a unique violation does), so it is off by default.
   */
  includeErrorDetail?: boolean;
  /**
   * Let the embedded engine run where the environment is `production`
   * (`RUNTIME_ENV`, `NODE_ENV` or `APP_ENV`): its data lives in this
   * process or one folder and is not shared by other instances, so it is
   * refused there unless this is `true`. Default `false`.
   */
  allowEmbeddedInProduction?: boolean;
  /**
   * Where the database's lines go. Default: the running application's
   * logging (category `kit.database`), else the console for warnings.
   */
  logger?: ApplicationLogger;
  /**
   * Options passed to `pg.Pool` as they are, over Kit's (`ssl`,
   * `keepAliveInitialDelayMillis`…). Not used by the embedded engine.
   */
  driverOptions?: Readonly<Record<string, unknown>>;
}

/**
 * The options of `Database.fromConfiguration`: those of
 * {@linkcode DatabaseOptions}, all optional; each one given wins over the
 * configuration.
 *
 * @example Usage
 * ```ts
 * import type { DatabaseConfigurationOptions } from "@vendor/kit/platform/database";
 *
 * const options: DatabaseConfigurationOptions = { applicationName: "orders" };
 * ```
 */
export type DatabaseConfigurationOptions = Partial<DatabaseOptions>;

/**
 * What `Database.fromConfiguration` reads: a `ConfigurationManager` (its
 * `getValue`, `hasValue` and `getSource`), or a plain object of sections.
 *
 * @example Usage
 * ```ts
 * import type { DatabaseConfiguration } from "@vendor/kit/platform/database";
 *
 * const config: DatabaseConfiguration = {
 *   database: { connectionString: "pglite:memory" },
 * };
 * ```
 */
export type DatabaseConfiguration =
  | {
    getValue(key: string, fallback?: unknown): unknown;
    hasValue?(key: string): boolean;
    getSource?(key: string): string | undefined;
  }
  | Readonly<Record<string, unknown>>;
