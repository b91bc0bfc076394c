import type { ServiceLocator, ServiceMap, WithService } from "../mod.ts";
import type { DatabaseSession } from "./_session.ts";
import { Database } from "./database.ts";
import type {
  DatabaseConfiguration,
  DatabaseConfigurationOptions,
} from "./database_options.ts";
import type { MigrateOptions } from "./migrate.ts";

/**
 * The options of {@linkcode addDatabase}: those of
 * `Database.fromConfiguration`, the migrations to apply at start-up and the
 * services' names.
 *
 * @example Usage
 * ```ts
 * import type { AddDatabaseOptions } from "@vendor/kit/platform/database";
 *
 * const options: AddDatabaseOptions = { migrations: "migrations" };
 * ```
 */
export interface AddDatabaseOptions<
  TName extends string = "database",
  TSession extends string | false = "db",
> extends DatabaseConfigurationOptions {
  /**
   * Apply migrations at start-up, before the application serves: a folder
   * (`"migrations"`), `true` for the folder `migrations`, or the options of
   * `db.migrate()`. Default: none (run them from a command instead).
   */
  migrations?: boolean | string | MigrateOptions;
  /** The database's service name. Default `"database"`. */
  name?: TName;
  /**
   * The scoped session's service name (a session per request), or `false`
   * for none. Default `"db"`.
   */
  session?: TSession;
}

/**
 * Registers the database the configuration describes, as .NET's
 * `AddNpgsqlDataSource` does: the service `database` (a
 * {@linkcode Database}, created at start-up: its pool is opened and the
 * server checked, and the migrations applied when `migrations` is given;
 * the host reports its health and disposes it last, within the shutdown
 * deadline), and the scoped service `db`, a session per request that takes
 * one connection at its first statement and gives it back when the
 * response is done, also when the handler threw.
 *
 * @param services The locator of the platform or services step.
 * @param config The configuration step's result (a
 * `ConfigurationManager`, or a plain object): its `database` section.
 * @param options Migrations, names, and the options of
 * `Database.fromConfiguration`.
 * @returns The locator, typed with both services: return it from the step
 * (or chain more registrations on it) and `get("database")` and `get("db")`
 * are typed where they are used.
 * @throws {DatabaseConfigurationError} At start-up, naming the setting at
 * fault; {@linkcode MigrationError} when a migration cannot be applied.
 *
 * @example Usage
 * ```ts
 * import { Application } from "@vendor/kit/platform";
 * import { addDatabase, type Database, type DatabaseSession } from "@vendor/kit/platform/database";
 *
 * const app = await Application.start({
 *   configuration: () => ({ database: { connectionString: "pglite:memory" } }),
 *   platform: (services, config) => addDatabase(services, config),
 * });
 * const db: Database = app.services.get("database");
 * console.log((await db.checkHealth()).status); // "healthy"
 * await using scope = app.services.createScope();
 * const session: DatabaseSession = scope.get("db");
 * console.log((await session.query("SELECT 1 AS one")).rows); // [{ one: 1 }]
 * await app.stop();
 * ```
 */
export function addDatabase<
  TServices extends object,
  TName extends string = "database",
  TSession extends string | false = "db",
>(
  services: ServiceLocator<TServices>,
  config: unknown,
  options: AddDatabaseOptions<TName, TSession> = {},
): ServiceLocator<
  TSession extends string ? WithService<
      WithService<TServices, TName, Database>,
      TSession,
      DatabaseSession
    >
    : WithService<TServices, TName, Database>
> {
  const { migrations, name = "database", session = "db", ...rest } = options;
  const locator = services as unknown as ServiceLocator<ServiceMap>;
  locator.register(name, async () => {
    const db = Database.fromConfiguration(
      config as DatabaseConfiguration,
      rest,
    );
    try {
      await db.open();
      if (migrations !== undefined && migrations !== false) {
        await db.migrate(
          migrations === true
            ? {}
            : typeof migrations === "string"
            ? { directory: migrations }
            : migrations,
        );
      }
    } catch (error) {
      await db.dispose();
      throw error;
    }
    return db;
  }, { eager: true });
  if (session !== false) {
    locator.register(
      session,
      (scope) => scope.get<Database>(name).session(),
      { lifetime: "scoped" },
    );
  }
  return locator as never;
}
