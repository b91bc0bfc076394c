// The embedded engine: PGlite (PostgreSQL compiled to WebAssembly) in this
// process, in memory or in a folder, loaded on first use. It has one
// connection, so the "pool" is that connection behind a queue: a session or
// transaction holds it until it is given back, a single statement takes it
// for itself, and a caller that waits longer than database:timeout gets the
// same error as from a full pool. A statement cannot be cut short: it runs
// on this thread.
import { mkdir, stat } from "node:fs/promises";
import type {
  Engine,
  EngineConnection,
  EngineResult,
  PoolCounters,
} from "./_engine.ts";
import type { ConnectionTarget } from "./_connection_target.ts";
import { type ErrorContext, translateError } from "./_driver_errors.ts";
import { DatabaseConfigurationError } from "./database_configuration_error.ts";
import { ConnectionQueue } from "./_connection_queue.ts";
import { loadDriver } from "./_load_driver.ts";
import { firstLine } from "./_statement.ts";

/** What the engine uses of a PGlite instance. */
export interface PGliteLike {
  query(
    text: string,
    params?: unknown[],
  ): Promise<
    { rows: Record<string, unknown>[]; affectedRows?: number }
  >;
  exec(text: string): Promise<unknown>;
  close(): Promise<void>;
  readonly closed?: boolean;
}

interface PGliteModule {
  PGlite: {
    create(options?: Record<string, unknown>): Promise<PGliteLike>;
  };
}

/** The settings of the embedded engine. */
export interface PgliteEngineSettings {
  readonly timeout: number;
  readonly includeErrorDetail: boolean;
  /** The setting the folder came from, for a message about it. */
  readonly key: string;
  readonly source: string;
  /** An instance to use instead of opening one (the test kit's). */
  readonly instance?: PGliteLike;
}

function rowCountOf(
  result: { rows: unknown[]; affectedRows?: number },
): number {
  // PGlite counts affected rows for INSERT, UPDATE and DELETE (with or
  // without RETURNING) and none for a SELECT.
  return result.affectedRows !== undefined && result.affectedRows > 0
    ? result.affectedRows
    : result.rows.length;
}

/**
 * Opens PGlite for `target` (seconds for a new data folder or memory: it
 * runs initdb), or wraps the given instance.
 *
 * @throws {DatabaseConfigurationError} When the folder is a file.
 * @throws {DependencyLoadError} When `@electric-sql/pglite` is not
 * installed.
 */
export async function openPgliteEngine(
  target: Extract<ConnectionTarget, { kind: "pglite" }>,
  settings: PgliteEngineSettings,
): Promise<Engine> {
  let db = settings.instance;
  if (db === undefined) {
    const dataDir = target.dataDir;
    if (dataDir !== undefined) {
      const found = await stat(dataDir).catch(() => undefined);
      if (found !== undefined && !found.isDirectory()) {
        throw new DatabaseConfigurationError(
          settings.key,
          settings.source,
          `${settings.key} points the embedded engine at '${dataDir}' (from ${settings.source}), which is not a folder: give a folder (it is created when missing), or pglite:memory`,
        );
      }
      if (found === undefined) {
        // PGlite makes the folder itself, but not its missing parents
        // (pglite:.data/database in a project that has no .data yet).
        await mkdir(dataDir, { recursive: true }).catch((error: unknown) => {
          throw new DatabaseConfigurationError(
            settings.key,
            settings.source,
            `${settings.key} points the embedded engine at '${dataDir}' (from ${settings.source}), which could not be created: ${
              error instanceof Error ? error.message : String(error)
            }. Give a folder this process may create, or pglite:memory`,
          );
        });
      }
    }
    const { PGlite } = await loadDriver<PGliteModule>("@electric-sql/pglite");
    db = await PGlite.create(dataDir === undefined ? {} : { dataDir });
  }
  const instance = db;
  const queue = new ConnectionQueue();
  const context = (text: string): ErrorContext => ({
    statement: firstLine(text),
    address: target.address,
    timeout: settings.timeout,
    includeDetail: settings.includeErrorDetail,
  });
  const run = async (
    text: string,
    params?: readonly unknown[],
  ): Promise<EngineResult> => {
    try {
      const result = await instance.query(
        text,
        params === undefined ? undefined : [...params],
      );
      return { rows: result.rows, rowCount: rowCountOf(result) };
    } catch (error) {
      throw translateError(error, context(text));
    }
  };
  return {
    kind: "pglite",
    driver: instance,
    poolSize: 1,
    async connect(): Promise<EngineConnection> {
      await queue.take(settings.timeout);
      let released = false;
      return {
        broken: false,
        query: run,
        async execute(text: string): Promise<void> {
          try {
            await instance.exec(text);
          } catch (error) {
            throw translateError(error, context(text));
          }
        },
        release(): void {
          if (released) return;
          released = true;
          queue.give();
        },
      };
    },
    async query(
      text: string,
      params?: readonly unknown[],
    ): Promise<EngineResult> {
      await queue.take(settings.timeout);
      try {
        return await run(text, params);
      } finally {
        queue.give();
      }
    },
    counters(): PoolCounters {
      return {
        total: 1,
        idle: queue.held ? 0 : 1,
        waiting: queue.waiting,
      };
    },
    async end(): Promise<void> {
      // The test kit's shared instance outlives the database using it.
      if (settings.instance === undefined && instance.closed !== true) {
        await instance.close();
      }
    },
  };
}
