/**
 * The relational database an application's configuration describes:
 * `database:connectionString` (a PostgreSQL server, or the embedded engine
 * with `pglite:memory` / `pglite:<folder>`), `database:poolSize`,
 * `database:timeout` and `database:enableLogging`. {@linkcode Database}
 * gives a pool with statements, transactions, sessions, migrations applied
 * once across instances, a health check the host picks up, and a bounded
 * disposal; {@linkcode addDatabase} registers it and a session per request
 * in one line.
 *
 * Its drivers are optional peer dependencies, loaded on first use only:
 * install `pg` for a server, `@electric-sql/pglite` for the embedded
 * engine. Nothing else in Kit loads this entry point.
 *
 * @example Usage
 * ```ts
 * import { Database } from "@vendor/kit/platform/database";
 *
 * await using db = Database.fromConfiguration({
 *   database: { connectionString: "pglite:memory" },
 * });
 * await db.query("CREATE TABLE notes (id serial PRIMARY KEY, body text)");
 * await db.transaction(async (tx) => {
 *   await tx.query("INSERT INTO notes (body) VALUES ($1)", ["first"]);
 * });
 * console.log((await db.query("SELECT body FROM notes")).rows); // [{ body: "first" }]
 * ```
 *
 * @module
 */
export { Database } from "./database.ts";
export { addDatabase, type AddDatabaseOptions } from "./add_database.ts";
export type { DatabaseSession } from "./_session.ts";
export type { DatabaseTransaction } from "./_transaction.ts";
export type { MigrateOptions, MigrationReport } from "./migrate.ts";
export type {
  DatabaseConfiguration,
  DatabaseConfigurationOptions,
  DatabaseOptions,
  PoolCounters,
  Queryable,
  QueryResult,
  TransactionOptions,
} from "./database_options.ts";
export { DatabaseError, type DatabaseErrorCode } from "./database_error.ts";
export { DatabaseConfigurationError } from "./database_configuration_error.ts";
export { DatabaseUnavailableError } from "./database_unavailable_error.ts";
export { DatabasePoolTimeoutError } from "./database_pool_timeout_error.ts";
export { DatabaseTimeoutError } from "./database_timeout_error.ts";
export { DatabaseQueryError } from "./database_query_error.ts";
export { MigrationError } from "./migration_error.ts";
export {
  createTestDatabase,
  type TestDatabaseOptions,
} from "./_test_database.ts";
