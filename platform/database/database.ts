// The façade of the database entry point; a little over 600 lines, most of
// them the JSDoc and examples of its public methods.
import { deadlineSignal, type DisposeOptions } from "../../core/mod.ts";
import type { HealthCheckResult } from "../mod.ts";
import type { Engine } from "./_engine.ts";
import { openPgEngine } from "./_pg_engine.ts";
import { openPgliteEngine, type PGliteLike } from "./_pglite_engine.ts";
import { StatementRunner, writeLine } from "./_observer.ts";
import { checkStatement, closedError, HeldConnection } from "./_runner.ts";
import { OutageLog } from "./_outage_log.ts";
import { type DatabaseSettings, resolveSettings } from "./_settings.ts";
import {
  createSession,
  type DatabaseSession,
  type SessionOwner,
} from "./_session.ts";
import { type DatabaseTransaction, withTransaction } from "./_transaction.ts";
import { checkConnectionBudget } from "./_connection_budget.ts";
import {
  type MigrateOptions,
  type MigrationReport,
  runMigrations,
} from "./migrate.ts";
import type {
  DatabaseConfiguration,
  DatabaseConfigurationOptions,
  DatabaseOptions,
  PoolCounters,
  Queryable,
  QueryResult,
  TransactionOptions,
} from "./database_options.ts";

/** How the test kit opens a database on its own engine. */
export interface EngineOverride {
  readonly open: () => Promise<Engine>;
  /** The engine runs inside a transaction: outermost ones are savepoints. */
  readonly outer: boolean;
}

/**
 * The test kit's engine, given as an option under this key. A registered
 * symbol: the test kit's npm bundle is not this one.
 */
export const ENGINE_OVERRIDE: unique symbol = Symbol.for(
  "@vendor/kit-platform/database.engine",
);

/** Settings resolved by fromConfiguration, handed to the constructor. */
const SETTINGS = Symbol("kit.database.settings");

/**
 * The relational database an application's configuration describes
 * (`database:*`): a pool of connections to a PostgreSQL server (through
 * `pg`), or PostgreSQL in this process (PGlite) for `pglite:memory` and
 * `pglite:<folder>`, with one API for both:
 *
 * - `query(text, params)` runs a statement on a free connection;
 * - `transaction(fn)` runs `fn` in a transaction, rolled back when it
 *   throws or the connection breaks;
 * - `session()` is a unit of work on one connection, taken at its first
 *   statement and given back on `dispose()`: register it as a scoped
 *   service for a session per request;
 * - `migrate()` applies the `.sql` files of a folder once, across every
 *   instance that starts at the same time;
 * - `checkHealth()` is picked up by the application host (`/health`, and
 *   readiness 503 while the server cannot be reached);
 * - `dispose()` lets the statements in flight finish, then closes the
 *   pool, within the host's deadline.
 *
 * Nothing connects until the first statement (or `open()`), and the
 * drivers are loaded then: `pg` and `@electric-sql/pglite` are optional
 * peer dependencies, install the one you use. Statements are logged at
 * debug under `kit.database` with `database:enableLogging`, never with
 * their parameters; with an OpenTelemetry SDK each statement is a CLIENT
 * span. The connection string's password never appears in a message, log
 * line, health report or span.
 *
 * @example Usage
 * ```ts
 * import { Database } from "@vendor/kit/platform/database";
 *
 * await using db = new Database({ connectionString: "pglite:memory" });
 * await db.query("CREATE TABLE users (id serial PRIMARY KEY, name text)");
 * await db.query("INSERT INTO users (name) VALUES ($1)", ["Ada"]);
 * const { rows } = await db.query<{ id: number; name: string }>(
 *   "SELECT id, name FROM users WHERE name = $1",
 *   ["Ada"],
 * );
 * console.log(rows[0].name); // "Ada"
 * ```
 */
export class Database implements Queryable, AsyncDisposable {
  readonly #settings: DatabaseSettings;
  readonly #runner: StatementRunner;
  readonly #override: EngineOverride | undefined;
  #engine: Promise<Engine> | undefined;
  #opened: Engine | undefined;
  #checked: Promise<void> | undefined;
  #closed = false;
  #disposing: Promise<void> | undefined;
  #active = 0;
  #idle: (() => void) | undefined;
  readonly #held = new Set<HeldConnection>();
  readonly #outages: OutageLog;
  readonly #sessionOwner: SessionOwner;

  /**
   * Creates the database from options in code. Nothing connects yet.
   *
   * @param options The connection string, pool size, time limit and the
   * rest (see {@linkcode DatabaseOptions}).
   * @throws {DatabaseConfigurationError} When an option cannot be used: a
   * connection string that is neither `postgres://…` nor `pglite:…`, a pool
   * size or timeout out of range, the embedded engine in production.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * const db = new Database({
   *   connectionString: "postgres://app:secret@127.0.0.1:5432/app",
   *   poolSize: 5,
   * });
   * console.log(db.address); // "postgres://app:***@127.0.0.1:5432/app"
   * await db.dispose();
   * ```
   */
  constructor(options: DatabaseOptions) {
    const override =
      (options as { [ENGINE_OVERRIDE]?: EngineOverride } | undefined)
        ?.[ENGINE_OVERRIDE];
    this.#override = override;
    this.#settings = (options as { [SETTINGS]?: DatabaseSettings })
      ?.[SETTINGS] ?? resolveSettings(options);
    const settings = this.#settings;
    const target = settings.target;
    const outages = new OutageLog(target.address, settings.options.logger);
    this.#outages = outages;
    this.#runner = new StatementRunner(
      {
        enableLogging: settings.enableLogging,
        slowStatementThreshold: settings.slowStatementThreshold,
        logger: settings.options.logger,
        attributes: {
          system: "postgresql",
          namespace: target.kind === "postgresql" ? target.database : undefined,
          host: target.kind === "postgresql" ? target.host : undefined,
          port: target.kind === "postgresql" ? target.port : undefined,
        },
      },
      outages,
      {
        begin: () => this.#begin(),
        end: () => this.#end(),
      },
    );
    // One owner for every session (a session per request): sessions hold
    // no closures of their own.
    this.#sessionOwner = {
      engine: () => this.#engineOpen(),
      opened: () => this.#opened,
      runner: this.#runner,
      outer: this.#override?.outer ?? false,
      begin: () => this.#begin(),
      end: () => this.#end(),
      checkOpen: () => this.#checkOpen(),
      hold: (held) => this.#held.add(held),
      letGo: (held) => this.#held.delete(held),
    };
  }

  /**
   * Creates the database from the configuration's `database` section:
   * `database:connectionString` (required; also the standard variable
   * `DB_CONNECTION_STRING`), `database:poolSize` (`DB_POOL_SIZE`),
   * `database:timeout` (`DB_TIMEOUT`) and `database:enableLogging`.
   * Options given in code win over the configuration.
   *
   * @param config A `ConfigurationManager`, or a plain object of sections.
   * @param options Options that win over the configuration.
   * @returns The database (nothing connects yet).
   * @throws {DatabaseConfigurationError} When the connection string is
   * missing, or a setting cannot be used; the message names the key and
   * where its value came from, with the value's secrets masked.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * const config = { database: { connectionString: "pglite:memory", poolSize: 4 } };
   * await using db = Database.fromConfiguration(config, { enableLogging: true });
   * console.log(db.poolSize); // 1 (the embedded engine has one connection)
   * ```
   */
  static fromConfiguration(
    config: DatabaseConfiguration,
    options: DatabaseConfigurationOptions = {},
  ): Database {
    const settings = resolveSettings(options, config);
    return new Database({
      ...settings.options,
      [SETTINGS]: settings,
    } as DatabaseOptions);
  }

  /**
   * Which engine runs the statements: `postgresql` (a server, through
   * `pg`) or `pglite` (in this process).
   *
   * @returns The engine's name.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * console.log(db.engine); // "pglite"
   * ```
   */
  get engine(): "postgresql" | "pglite" {
    return this.#settings.target.kind;
  }

  /**
   * The connection string as messages show it: its password masked.
   *
   * @returns The address.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * console.log(db.address); // "pglite:memory"
   * ```
   */
  get address(): string {
    return this.#settings.target.address;
  }

  /**
   * The pool's size in force: `database:poolSize` for a server, 1 for the
   * embedded engine (it has one connection).
   *
   * @returns The size.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * const db = new Database({ connectionString: "postgres://db/app", poolSize: 4 });
   * console.log(db.poolSize); // 4
   * await db.dispose();
   * ```
   */
  get poolSize(): number {
    return this.#settings.target.kind === "pglite"
      ? 1
      : this.#settings.poolSize;
  }

  /**
   * The pool's counters now: connections open, idle, and callers waiting.
   * All 0 before the first statement.
   *
   * @returns The counters.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * await db.query("SELECT 1");
   * console.log(db.counters); // { total: 1, idle: 1, waiting: 0 }
   * ```
   */
  get counters(): PoolCounters {
    return this.#opened?.counters() ?? { total: 0, idle: 0, waiting: 0 };
  }

  /**
   * The driver's own object, opened if need be: the `pg.Pool` for a
   * server, the `PGlite` instance for the embedded engine. Use it for what
   * Kit does not do (an ORM's own adapter, `LISTEN`/`NOTIFY`, `COPY`);
   * statements run through it are not logged or traced by Kit, and the
   * pool must not be ended by hand.
   *
   * @typeParam T The driver's type (`pg.Pool`, `PGlite`).
   * @returns The driver's object.
   * @throws {DependencyLoadError} When the driver is not installed.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   * import type { PGlite } from "@electric-sql/pglite";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * const pglite = await db.driver<PGlite>();
   * console.log((await pglite.query("SELECT 1 AS one")).rows); // [{ one: 1 }]
   * ```
   */
  async driver<T = unknown>(): Promise<T> {
    return (await this.#engineOpen()).driver as T;
  }

  /**
   * Opens the pool and checks the server once, which an eagerly created
   * service does at start-up: the embedded engine is created (PGlite takes
   * a few seconds for a new database), a server is asked for its
   * `max_connections`, and a warning says when `database:poolSize` is more
   * than the server accepts. A server that cannot be reached is reported
   * (a warning, and `checkHealth()` unhealthy) without failing, so the
   * application starts and recovers by itself once the server is back.
   * Calling it again does nothing.
   *
   * @returns Settles once the engine is open and checked.
   * @throws {DatabaseConfigurationError} When the embedded engine's folder
   * is a file.
   * @throws {DependencyLoadError} When the driver is not installed.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * await db.open();
   * console.log(db.counters.total); // 1
   * ```
   */
  open(): Promise<void> {
    this.#checked ??= (async () => {
      const engine = await this.#engineOpen();
      if (engine.kind !== "postgresql") return;
      try {
        await checkConnectionBudget(
          (text) => engine.query(text),
          this.#settings.poolSize,
          (message, properties) =>
            writeLine(
              this.#settings.options.logger,
              "warning",
              message,
              properties,
            ),
        );
        this.#outages.reached();
      } catch (error) {
        this.#runner.noted(error);
      }
    })();
    return this.#checked;
  }

  #engineOpen(): Promise<Engine> {
    if (this.#closed && this.#engine === undefined) {
      return Promise.reject(this.#closedError());
    }
    this.#engine ??= this.#openEngine().then((engine) => {
      this.#opened = engine;
      return engine;
    }, (error) => {
      // A later call tries again (a driver installed meanwhile).
      this.#engine = undefined;
      throw error;
    });
    return this.#engine;
  }

  #openEngine(): Promise<Engine> {
    if (this.#override !== undefined) return this.#override.open();
    const settings = this.#settings;
    const target = settings.target;
    const includeErrorDetail = settings.options.includeErrorDetail === true;
    if (target.kind === "pglite") {
      return openPgliteEngine(target, {
        timeout: settings.timeout,
        includeErrorDetail,
        key: settings.key,
        source: settings.source,
      });
    }
    return openPgEngine(target, {
      poolSize: settings.poolSize,
      timeout: settings.timeout,
      idleTimeout: settings.idleTimeout,
      applicationName: settings.options.applicationName,
      includeErrorDetail,
      driverOptions: settings.options.driverOptions,
      onLinkError: (error) => this.#outages.linkError(error),
      onNotice: (message) =>
        writeLine(settings.options.logger, "warning", message, {}),
    });
  }

  /**
   * Runs one statement on a free connection of the pool.
   *
   * @typeParam Row The shape of one row (not checked: it names what the
   * statement selects).
   * @param text The statement, with `$1`, `$2`… for the parameters.
   * @param params The parameters' values, in order (never logged).
   * @returns The rows and the row count.
   * @throws {DatabaseQueryError} When the server refused the statement
   * (its message, SQLSTATE and the statement's first line, no values).
   * @throws {DatabaseTimeoutError} When it ran past `database:timeout`.
   * @throws {DatabaseUnavailableError} When the server cannot be reached.
   * @throws {DatabasePoolTimeoutError} When no connection was free within
   * `database:timeout`.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * const { rows } = await db.query<{ sum: number }>("SELECT $1::int + $2::int AS sum", [2, 3]);
   * console.log(rows[0].sum); // 5
   * ```
   */
  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<Row>> {
    try {
      checkStatement(text, params);
      this.#checkOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    // The runner counts the statement in flight (for dispose) from here.
    const opened = this.#opened;
    const result = this.#runner.run(
      text,
      opened !== undefined
        ? () => opened.query(text, params)
        : () => this.#engineOpen().then((engine) => engine.query(text, params)),
    );
    // The engine's rows are objects keyed by column: the caller's type
    // argument names their shape.
    return result as Promise<unknown> as Promise<QueryResult<Row>>;
  }

  /**
   * Runs `fn` in a transaction on one connection: `BEGIN`, then `COMMIT`
   * once `fn`'s promise resolves, or `ROLLBACK` when it rejects (its error
   * is thrown on). The connection goes back to the pool either way; one
   * that broke, or whose rollback failed, is closed instead of reused.
   * `tx.transaction()` inside nests a savepoint.
   *
   * @typeParam T What `fn` returns.
   * @param fn The work, given the transaction's handle.
   * @param options Isolation level and read-only mode.
   * @returns What `fn` returned, once committed.
   * @throws {DatabaseError} What a statement threw, or whatever `fn`
   * threw, after the rollback.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * await db.query("CREATE TABLE orders (id int)");
   * await db.transaction(async (tx) => {
   *   await tx.query("INSERT INTO orders VALUES (1)");
   *   throw new Error("out of stock");
   * }).catch((error) => console.log(error.message)); // "out of stock"
   * console.log((await db.query("SELECT * FROM orders")).rowCount); // 0
   * ```
   */
  async transaction<T>(
    fn: (tx: DatabaseTransaction) => T | Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> {
    if (typeof fn !== "function") {
      throw new TypeError("transaction: fn must be a function");
    }
    this.#checkOpen();
    this.#begin();
    try {
      const engine = this.#opened ?? await this.#engineOpen();
      let connection;
      try {
        connection = await engine.connect();
      } catch (error) {
        throw this.#runner.noted(error);
      }
      const held = new HeldConnection(connection, this.#runner);
      this.#held.add(held);
      try {
        return await withTransaction(
          held,
          0,
          this.#override?.outer ?? false,
          options,
          fn,
        );
      } finally {
        this.#held.delete(held);
        held.release();
      }
    } finally {
      this.#end();
    }
  }

  /**
   * A unit of work on one connection: taken at its first statement (a
   * session that runs none takes none) and given back on `dispose()` or at
   * the end of an `await using` block. Register it as a scoped service to
   * give each request its own:
   * `services.register("db", (s) => s.get("database").session(), { lifetime: "scoped" })`
   * (or use {@linkcode addDatabase}).
   *
   * @returns The session.
   * @throws {DatabaseError} `closed` when the database is disposed.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * await using session = db.session();
   * console.log(session.connected); // false
   * await session.query("SELECT 1");
   * console.log(session.connected); // true
   * ```
   */
  session(): DatabaseSession {
    this.#checkOpen();
    return createSession(this.#sessionOwner);
  }

  /**
   * Applies the migrations of a folder: its `.sql` files in the order of
   * their number (`001_users.sql`, `002_email.sql`), each in its own
   * transaction, each recorded with its checksum in a table of Kit's
   * (`kit_migrations`). Instances that start at the same time apply each
   * file exactly once (an advisory lock of the server orders them, also
   * through PgBouncer). A file changed after it was applied stops it,
   * naming the file; so does a file whose statement fails (with its line
   * and column), a file that is not `.sql`, or two files with one number.
   *
   * @param options The folder (default `migrations`) and the table.
   * @returns What was applied, and what had been already.
   * @throws {MigrationError} Naming the file and what to do.
   * @throws {DatabaseUnavailableError} When the server cannot be reached.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * const directory = await Deno.makeTempDir();
   * await Deno.writeTextFile(`${directory}/001_users.sql`, "CREATE TABLE users (id int);");
   * await using db = new Database({ connectionString: "pglite:memory" });
   * const report = await db.migrate({ directory });
   * console.log(report.applied); // ["001_users.sql"]
   * ```
   */
  async migrate(options: MigrateOptions = {}): Promise<MigrationReport> {
    this.#checkOpen();
    this.#begin();
    try {
      const engine = this.#opened ?? await this.#engineOpen();
      return await runMigrations(options, {
        connect: async () => {
          let connection;
          try {
            connection = await engine.connect();
          } catch (error) {
            throw this.#runner.noted(error);
          }
          return new HeldConnection(connection, this.#runner);
        },
        outer: this.#override?.outer ?? false,
        log: (level, message, properties) =>
          writeLine(this.#settings.options.logger, level, message, properties),
      });
    } finally {
      this.#end();
    }
  }

  /**
   * The database's health, which the application host picks up for its
   * `database` service (`GET /health`, and readiness 503 while it is
   * unhealthy): `SELECT 1` answered before `signal` aborts is healthy; a
   * server that cannot be reached is unhealthy. While every connection of
   * the pool is in use the check runs no statement (it would queue behind
   * the work): healthy, or degraded when callers wait for a connection.
   *
   * @param signal Aborts when the check's time is up.
   * @returns The status, with the engine, address and pool counters.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * await using db = new Database({ connectionString: "pglite:memory" });
   * console.log((await db.checkHealth()).status); // "healthy"
   * ```
   */
  async checkHealth(signal?: AbortSignal): Promise<HealthCheckResult> {
    const describe = (): Record<string, unknown> => ({
      engine: this.engine,
      address: this.address,
      ...this.counters,
    });
    if (this.#closed) {
      return { status: "unhealthy", detail: "the database is disposed" };
    }
    // Every connection in use: a health statement would queue behind the
    // work (and time out on a busy, healthy server). Callers waiting make it
    // degraded: it works, slowly.
    const counters = this.#opened?.counters();
    if (
      counters !== undefined && counters.idle === 0 &&
      counters.total >= this.poolSize
    ) {
      return {
        status: counters.waiting > 0 ? "degraded" : "healthy",
        detail: {
          ...describe(),
          reason: `all ${counters.total} connections are in use${
            counters.waiting > 0 ? ` and ${counters.waiting} callers wait` : ""
          }`,
        },
      };
    }
    const started = performance.now();
    try {
      await abortable(this.query("SELECT 1"), signal);
      return {
        status: "healthy",
        detail: {
          ...describe(),
          latencyMs: Math.round((performance.now() - started) * 10) / 10,
        },
      };
    } catch (error) {
      return {
        status: "unhealthy",
        detail: error instanceof Error ? error.message : String(error),
      };
    }
  }

  /**
   * Stops taking work, lets the statements, transactions and sessions in
   * flight finish, then closes the pool's connections. With a `signal` or
   * `timeout` (the application host passes its shutdown deadline), the
   * connections still held when it fires are closed, which ends their
   * statements. Calling it again returns the same promise.
   *
   * @param options A deadline: `signal`, `timeout` in milliseconds, or both.
   * @returns Settles once the pool is closed.
   *
   * @example Usage
   * ```ts
   * import { Database } from "@vendor/kit/platform/database";
   *
   * const db = new Database({ connectionString: "pglite:memory" });
   * await db.query("SELECT 1");
   * await db.dispose({ timeout: 5_000 });
   * ```
   */
  dispose(options?: DisposeOptions): Promise<void> {
    this.#disposing ??= this.#dispose(options);
    return this.#disposing;
  }

  async #dispose(options: DisposeOptions | undefined): Promise<void> {
    this.#closed = true;
    const signal = deadlineSignal(options);
    if (this.#active > 0) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal?.removeEventListener("abort", done);
          this.#idle = undefined;
          resolve();
        };
        this.#idle = done;
        if (signal?.aborted) done();
        else signal?.addEventListener("abort", done, { once: true });
      });
    }
    // Past the deadline: the connections still held are closed, which
    // ends their statements (a held connection is never given back).
    for (const held of this.#held) {
      held.spoiled = true;
      held.release();
    }
    this.#held.clear();
    // An engine given by the test kit holds its connection from the start:
    // it is ended even when no statement ran.
    const opening = this.#engine ?? this.#override?.open();
    const engine = await opening?.catch(() => undefined);
    await engine?.end(signal);
  }

  /**
   * Disposes the database (`await using`).
   *
   * @returns Settles once the pool is closed.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #begin(): void {
    this.#active++;
  }

  #end(): void {
    if (--this.#active === 0) this.#idle?.();
  }

  #checkOpen(): void {
    if (this.#closed) throw this.#closedError();
  }

  #closedError(): Error {
    return closedError(
      `The database at ${this.address} is disposed: no statement can run after dispose()`,
    );
  }
}

/** Rejects when `signal` aborts first. */
function abortable<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const stop = (): void =>
      reject(new Error("no answer before the health check's deadline"));
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    work.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", stop)
    );
  });
}

export type { PGliteLike };
