// The test kit's databases (createTestDatabase): one base per process and
// per migrations folder — PGlite in memory by default, or a real server
// given by a connection string — migrated once; each test database then
// holds one connection of the base inside a transaction that its dispose()
// rolls back, so a test sees only its own work and leaves nothing behind.
//
// Inside that transaction, Kit's transactions are savepoints, and every
// statement outside one runs in a savepoint of its own, so a statement that
// fails (a test of a unique violation) does not abort the rest of the test,
// as it would not outside a transaction.
//
// A new PGlite takes seconds (initdb): the migrated data folder is kept in
// the system's temporary folder, named by the migrations' checksums, and
// later processes start from it.
//
// A base nobody uses is closed after a moment: PGlite keeps one of
// PostgreSQL's timers armed (every 10 s, for ever) and a pool keeps its idle
// sockets, either of which would keep a test process (node --test, a
// script) running once its tests are done. The next test database opens it
// again (about a second from the kept folder).
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Engine, EngineConnection, EngineResult } from "./_engine.ts";
import { ConnectionQueue } from "./_connection_queue.ts";
import { parseConnectionString } from "./_connection_target.ts";
import { loadDriver } from "./_load_driver.ts";
import { readMigrations } from "./_migration_files.ts";
import { openPgEngine } from "./_pg_engine.ts";
import { openPgliteEngine, type PGliteLike } from "./_pglite_engine.ts";
import { Database, ENGINE_OVERRIDE, type EngineOverride } from "./database.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import type { MigrateOptions } from "./migrate.ts";

/**
 * The options of `createTestDatabase`.
 *
 * @example Usage
 * ```ts
 * import type { TestDatabaseOptions } from "@vendor/kit/testing";
 *
 * const options: TestDatabaseOptions = { migrations: "db/migrations" };
 * ```
 */
export interface TestDatabaseOptions {
  /**
   * The migrations applied once per process before the first test: a
   * folder, the options of `db.migrate()`, or `false` for none. Default:
   * the folder `migrations` when it exists.
   */
  migrations?: string | false | MigrateOptions;
  /**
   * A real PostgreSQL server (a database kept for tests: the migrations
   * are committed there once, each test's work is rolled back). Default
   * `pglite:memory`, the embedded engine.
   */
  connectionString?: string;
  /**
   * Keep the embedded engine's migrated data folder in the system's
   * temporary folder for the next test process (it starts in about a
   * second instead of several). Default `true`.
   */
  snapshot?: boolean;
}

interface Base {
  readonly engine: Engine;
  /** Closes the engine (PGlite, or the pool). */
  readonly close: () => Promise<void>;
  /** Test databases open on it now. */
  users: number;
  /** Closes it once nobody uses it (unref'd: it keeps nothing alive). */
  idle?: ReturnType<typeof setTimeout>;
}

const bases = new Map<string, Promise<Base>>();

/** Milliseconds a base nobody uses stays open for the next test. */
const IDLE_CLOSE = 1_000;

/** A test database is done with `base`: close it if nobody else uses it. */
function letGo(key: string, base: Base): void {
  if (--base.users > 0) return;
  base.idle = unrefTimer(setTimeout(() => {
    if (base.users > 0) return;
    bases.delete(key);
    void base.close().catch(() => {});
  }, IDLE_CLOSE));
}

/** How long a test database waits for the base's connection. */
const TAKE_TIMEOUT = 10_000;

interface PGliteModule {
  PGlite: {
    create(options?: Record<string, unknown>): Promise<
      PGliteLike & { dumpDataDir(compression?: string): Promise<Blob> }
    >;
  };
}

function migrationsOf(
  options: TestDatabaseOptions,
): MigrateOptions | undefined {
  const migrations = options.migrations;
  if (migrations === false) return undefined;
  if (migrations === undefined) {
    return existsSync("migrations") ? { directory: "migrations" } : undefined;
  }
  return typeof migrations === "string"
    ? { directory: migrations }
    : migrations;
}

async function migrate(
  engine: Engine,
  migrations: MigrateOptions | undefined,
): Promise<void> {
  if (migrations === undefined) return;
  const db = new Database({
    connectionString: "pglite:memory",
    [ENGINE_OVERRIDE]: { open: () => Promise.resolve(engine), outer: false },
  } as never);
  // Not disposed: that would close the base's engine.
  await db.migrate(migrations);
}

async function pgliteBase(
  migrations: MigrateOptions | undefined,
  key: string,
  snapshot: boolean,
): Promise<Base> {
  const { PGlite } = await loadDriver<PGliteModule>("@electric-sql/pglite");
  const file = join(tmpdir(), "kit-test-pglite", `${key}.tar.gz`);
  let instance;
  if (snapshot && existsSync(file)) {
    // A folder of an older PGlite may not load: start afresh then.
    instance = await PGlite.create({
      // A Uint8Array over an ArrayBuffer, as Blob's types ask (a Buffer's
      // may be typed as shared, depending on the Node.js types in use).
      loadDataDir: new Blob([new Uint8Array(await readFile(file))]),
    }).catch(() => undefined);
  }
  const fresh = instance === undefined;
  instance ??= await PGlite.create();
  const target = parseConnectionString({
    value: "pglite:memory",
    source: "createTestDatabase",
  }, "connectionString");
  const engine = await openPgliteEngine(
    target as Extract<typeof target, { kind: "pglite" }>,
    {
      timeout: TAKE_TIMEOUT,
      includeErrorDetail: true,
      key: "connectionString",
      source: "createTestDatabase",
      instance,
    },
  );
  if (fresh) {
    await migrate(engine, migrations);
    if (snapshot) {
      // Written apart and renamed, so a process reading it never sees half.
      const bytes = new Uint8Array(
        await (await instance.dumpDataDir("gzip")).arrayBuffer(),
      );
      await mkdir(join(tmpdir(), "kit-test-pglite"), { recursive: true });
      const part = `${file}.${crypto.randomUUID()}.part`;
      await writeFile(part, bytes);
      await rename(part, file);
    }
  }
  const opened = instance;
  return { engine, close: () => opened.close(), users: 0 };
}

async function serverBase(
  connectionString: string,
  migrations: MigrateOptions | undefined,
): Promise<Base> {
  const target = parseConnectionString({
    value: connectionString,
    source: "createTestDatabase",
  }, "connectionString");
  if (target.kind !== "postgresql") {
    throw new TypeError(
      "createTestDatabase: connectionString must be a postgres:// URL (leave it out for the embedded engine)",
    );
  }
  const engine = await openPgEngine(target, {
    poolSize: 20,
    timeout: TAKE_TIMEOUT,
    idleTimeout: 10_000,
    applicationName: "kit-test",
    includeErrorDetail: true,
    driverOptions: undefined,
    onLinkError: () => {},
    onNotice: () => {},
  });
  await migrate(engine, migrations);
  return { engine, close: () => engine.end(), users: 0 };
}

// The savepoint every statement outside a transaction runs in.
const STATEMENT_SAVEPOINT = "kit_test_statement";
// Kit's own transaction statements (see _runner.ts): passed on as they are.
const KIT_SAVEPOINT =
  /^(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT) kit_savepoint_\d+$/;

/**
 * The engine of one test database: the base's connection, in turns.
 * `done` runs once the connection is given back.
 */
function rolledBackEngine(
  base: Base,
  connection: EngineConnection,
  done: () => void,
): Engine {
  const queue = new ConnectionQueue();
  let depth = 0;
  const run = async (
    text: string,
    params?: readonly unknown[],
  ): Promise<EngineResult> => {
    const kit = KIT_SAVEPOINT.exec(text);
    if (kit !== null) {
      const result = await connection.query(text);
      if (kit[1] === "SAVEPOINT") depth++;
      else if (kit[1] === "RELEASE SAVEPOINT") depth--;
      return result;
    }
    if (depth > 0) return await connection.query(text, params);
    await connection.query(`SAVEPOINT ${STATEMENT_SAVEPOINT}`);
    try {
      const result = await connection.query(text, params);
      await connection.query(`RELEASE SAVEPOINT ${STATEMENT_SAVEPOINT}`);
      return result;
    } catch (error) {
      await connection.query(`ROLLBACK TO SAVEPOINT ${STATEMENT_SAVEPOINT}`)
        .catch(() => {});
      throw error;
    }
  };
  const turn = async (): Promise<() => void> => {
    await queue.take(TAKE_TIMEOUT);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      queue.give();
    };
  };
  return {
    kind: base.engine.kind,
    get driver(): unknown {
      return base.engine.driver;
    },
    poolSize: 1,
    async connect(): Promise<EngineConnection> {
      const give = await turn();
      return {
        get broken(): boolean {
          return connection.broken;
        },
        query: run,
        execute: (text: string) => connection.execute(text),
        release: give,
      };
    },
    async query(
      text: string,
      params?: readonly unknown[],
    ): Promise<EngineResult> {
      const give = await turn();
      try {
        return await run(text, params);
      } finally {
        give();
      }
    },
    counters: () => ({
      total: 1,
      idle: queue.held ? 0 : 1,
      waiting: queue.waiting,
    }),
    async end(): Promise<void> {
      await connection.query("ROLLBACK").catch(() => {});
      connection.release(connection.broken);
      done();
    },
  };
}

/**
 * An isolated database for one test, also exported by the test kit
 * (`@vendor/kit/testing`). The first call of a process opens the base
 * (PGlite in memory, or the server of `connectionString`) and applies the
 * migrations once; each call then returns a {@linkcode Database} whose
 * work happens in a transaction that `dispose()` (or the end of an
 * `await using` block) rolls back, so the next test starts from the
 * migrated state in a few milliseconds. Inside it, the database behaves as
 * usual: transactions (savepoints here) commit and roll back, a failed
 * statement spoils nothing else, sessions share the one connection in
 * turn. Each test database must be disposed before the next is taken on
 * the embedded engine (it has one connection).
 *
 * @param options The migrations, a real server instead of PGlite, and
 * whether to keep PGlite's migrated folder for the next process.
 * @returns The test's database; dispose it when the test ends.
 * @throws {MigrationError} When the migrations cannot be applied.
 * @throws {DependencyLoadError} When the driver is not installed.
 *
 * @example Usage
 * ```ts
 * import { createTestDatabase } from "@vendor/kit/testing";
 *
 * await using db = await createTestDatabase({ migrations: false });
 * await db.query("CREATE TABLE notes (body text)");
 * await db.query("INSERT INTO notes VALUES ($1)", ["only in this test"]);
 * console.log((await db.query("SELECT * FROM notes")).rowCount); // 1
 * // Rolled back at the end of the block: the next test has no table.
 * ```
 */
export async function createTestDatabase(
  options: TestDatabaseOptions = {},
): Promise<Database> {
  if (options === null || typeof options !== "object") {
    throw new TypeError("createTestDatabase: options must be an object");
  }
  const migrations = migrationsOf(options);
  const files = migrations === undefined
    ? []
    : await readMigrations(migrations.directory ?? "migrations");
  const connectionString = options.connectionString ?? "pglite:memory";
  const embedded = /^pglite:memory$/i.test(connectionString);
  const fingerprint = await digest(
    JSON.stringify([
      embedded ? "pglite" : connectionString,
      migrations?.table ?? "kit_migrations",
      files.map((file) => [file.name, file.checksum]),
    ]),
  );
  const key = `${fingerprint}:${
    resolve(migrations?.directory ?? "migrations")
  }`;
  let base = bases.get(key);
  if (base === undefined) {
    base = embedded
      ? pgliteBase(migrations, fingerprint, options.snapshot !== false)
      : serverBase(connectionString, migrations);
    bases.set(key, base);
    base.catch(() => bases.delete(key));
  }
  const opened = await base;
  // Counted before the wait, so the base is not closed under a caller
  // that waits for its connection.
  opened.users++;
  clearTimeout(opened.idle);
  let given = false;
  const done = (): void => {
    if (given) return;
    given = true;
    letGo(key, opened);
  };
  let connection: EngineConnection;
  try {
    connection = await opened.engine.connect();
  } catch (error) {
    done();
    throw new Error(
      "createTestDatabase: the test database's connection did not come free: dispose each test database when its test ends (await using db = await createTestDatabase())",
      { cause: error },
    );
  }
  try {
    await connection.query("BEGIN");
  } catch (error) {
    connection.release(true);
    done();
    throw error;
  }
  const engine = rolledBackEngine(opened, connection, done);
  const override: EngineOverride = {
    open: () => Promise.resolve(engine),
    outer: true,
  };
  return new Database({
    connectionString: embedded ? "pglite:memory" : connectionString,
    allowEmbeddedInProduction: true,
    [ENGINE_OVERRIDE]: override,
  } as never);
}

async function digest(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return Array.from(
    new Uint8Array(bytes).slice(0, 12),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}
