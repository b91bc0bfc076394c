// db.migrate(): the migrations folder applied once across instances. Each
// file runs in its own transaction that first takes a transaction-scoped
// advisory lock (so it also holds through PgBouncer in transaction mode),
// checks that no other instance applied the file meanwhile, runs it and
// records its name and checksum. Files applied before are checked against
// their recorded checksum first: a changed one stops everything.
import type { HeldConnection } from "./_runner.ts";
import { withTransaction } from "./_transaction.ts";
import {
  lineAndColumn,
  type MigrationFile,
  readMigrations,
} from "./_migration_files.ts";
import { DatabaseQueryError } from "./database_query_error.ts";
import { MigrationError } from "./migration_error.ts";

/**
 * What `db.migrate()` applies, and where it records it.
 *
 * @example Usage
 * ```ts
 * import type { MigrateOptions } from "@vendor/kit/platform/database";
 *
 * const options: MigrateOptions = { directory: "db/migrations" };
 * ```
 */
export interface MigrateOptions {
  /**
   * The folder of `.sql` files, resolved against the working directory.
   * Default `migrations`.
   */
  directory?: string;
  /**
   * The table that records what was applied (created when missing; a name
   * of lower-case letters, digits and `_`, optionally with its schema).
   * Default `kit_migrations`.
   */
  table?: string;
}

/**
 * What `db.migrate()` did.
 *
 * @example Usage
 * ```ts
 * import type { MigrationReport } from "@vendor/kit/platform/database";
 *
 * const report: MigrationReport = { applied: ["002_email.sql"], alreadyApplied: 1 };
 * ```
 */
export interface MigrationReport {
  /** The files this call applied, in order. */
  readonly applied: readonly string[];
  /** How many files had been applied before (by this or another instance). */
  readonly alreadyApplied: number;
}

/** What the migrations need of the database. */
export interface MigrationDeps {
  connect(): Promise<HeldConnection>;
  readonly outer: boolean;
  log(
    level: "info" | "warning",
    message: string,
    properties: Record<string, unknown>,
  ): void;
}

const TABLE = /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/;

// The advisory lock's key: FNV-1a of the table's name, so that two tables
// (two applications on one database) do not wait on each other.
function lockKey(table: string): number {
  let hash = 0x811c9dc5;
  for (const char of `kit:migrations:${table}`) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

function failed(file: MigrationFile, error: unknown): MigrationError {
  if (error instanceof DatabaseQueryError) {
    const where = error.position === undefined ? "" : (() => {
      const { line, column } = lineAndColumn(file.text, error.position!);
      return `:${line}:${column}`;
    })();
    const reason = error.sqlState === undefined
      ? error.reason
      : `${error.reason} (${error.sqlState})`;
    return new MigrationError(
      file.path,
      `${file.path}${where}: ${reason}. The migration was rolled back; fix the file and start again`,
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new MigrationError(
    file.path,
    `${file.path} could not be applied: ${reason}`,
    { cause: error },
  );
}

/**
 * Applies the pending migrations of `options.directory`.
 *
 * @throws {MigrationError} Naming the file at fault.
 */
export async function runMigrations(
  options: MigrateOptions,
  deps: MigrationDeps,
): Promise<MigrationReport> {
  const directory = options.directory ?? "migrations";
  const table = options.table ?? "kit_migrations";
  if (typeof directory !== "string" || directory === "") {
    throw new TypeError("migrate: directory must be a non-empty string");
  }
  if (typeof table !== "string" || !TABLE.test(table)) {
    throw new TypeError(
      `migrate: table must be lower-case letters, digits and _ (with an optional schema.): ${
        JSON.stringify(table)
      }`,
    );
  }
  const files = await readMigrations(directory);
  const key = lockKey(table);
  const held = await deps.connect();
  try {
    const run = <T>(work: (held: HeldConnection) => Promise<T>): Promise<T> =>
      withTransaction(held, 0, deps.outer, undefined, async () => {
        await held.query("SELECT pg_advisory_xact_lock($1::bigint)", [key]);
        return await work(held);
      });
    await run((held) =>
      held.query(
        `CREATE TABLE IF NOT EXISTS ${table} (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  duration_ms integer NOT NULL
)`,
      )
    );
    const recorded = new Map<string, { checksum: string; appliedAt: string }>();
    for (
      const row of (await held.query<
        { name: string; checksum: string; applied_at: string }
      >(`SELECT name, checksum, applied_at::text FROM ${table}`)).rows
    ) {
      recorded.set(row.name, {
        checksum: row.checksum,
        appliedAt: row.applied_at,
      });
    }
    const check = (file: MigrationFile, checksum: string, at: string): void => {
      if (checksum === file.checksum) return;
      throw new MigrationError(
        file.path,
        `${file.path} was changed after it was applied (at ${at}): its checksum is ${
          file.checksum.slice(0, 12)
        }… where ${
          checksum.slice(0, 12)
        }… was recorded. Put it back as it was applied, and make the change in a new migration`,
      );
    };
    for (const file of files) {
      const before = recorded.get(file.name);
      if (before !== undefined) check(file, before.checksum, before.appliedAt);
    }
    const known = new Set(files.map((file) => file.name));
    const missing = [...recorded.keys()].filter((name) => !known.has(name));
    if (missing.length > 0) {
      deps.log(
        "warning",
        `${missing.length} applied migration(s) have no file in ${directory}: ${
          missing.slice(0, 5).join(", ")
        }${missing.length > 5 ? ", …" : ""}`,
        { missing },
      );
    }
    const applied: string[] = [];
    let alreadyApplied = recorded.size - missing.length;
    for (const file of files) {
      if (recorded.has(file.name)) continue;
      const done = await run(async (held) => {
        // Another instance may have applied it while this one waited.
        const { rows } = await held.query<
          { checksum: string; applied_at: string }
        >(
          `SELECT checksum, applied_at::text FROM ${table} WHERE name = $1`,
          [file.name],
        );
        if (rows.length > 0) {
          check(file, rows[0].checksum, rows[0].applied_at);
          return false;
        }
        const started = performance.now();
        try {
          await held.execute(file.text);
        } catch (error) {
          throw failed(file, error);
        }
        const duration = Math.round(performance.now() - started);
        await held.query(
          `INSERT INTO ${table} (name, checksum, duration_ms) VALUES ($1, $2, $3)`,
          [file.name, file.checksum, duration],
        );
        deps.log("info", `Applied migration ${file.path} in ${duration} ms`, {
          migration: file.name,
          durationMs: duration,
        });
        return true;
      });
      if (done) applied.push(file.name);
      else alreadyApplied++;
    }
    return { applied, alreadyApplied };
  } finally {
    held.release();
  }
}
