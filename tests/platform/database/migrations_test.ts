// Migrations against a real PostgreSQL server, and through PgBouncer in
// transaction mode: files applied in the order of their number, each once
// and recorded with its checksum, by several instances starting at once; a
// changed file, a failing file, a stray file, two files of one number and a
// missing folder each stop it, naming the file.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database, MigrationError } from "@vendor/kit-platform/database";
import {
  type PgBouncer,
  type PostgresServer,
  skipUnlessPostgres,
  startPgBouncer,
  startPostgres,
} from "../../_support/postgres.ts";

const skip = skipUnlessPostgres(true);
const LIMIT = { timeout: 120_000 };

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kit-migrations-"));
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(dir, name), text);
  }
  return dir;
}

const USERS =
  "CREATE TABLE users (id serial PRIMARY KEY, name text NOT NULL);\n";
const EMAIL = "ALTER TABLE users ADD COLUMN email text;\n" +
  "INSERT INTO applied_count VALUES ('002');\n";
const COUNT = "CREATE TABLE applied_count (migration text);\n" +
  "INSERT INTO applied_count VALUES ('000');\n";

describe("migrations", { skip }, () => {
  let server: PostgresServer;
  let bouncer: PgBouncer;
  let database = 0;
  const dirs: string[] = [];
  before(async () => {
    server = await startPostgres({ max_connections: "60" });
    bouncer = await startPgBouncer(server, { poolSize: 4 });
  }, LIMIT);
  after(async () => {
    await bouncer?.close();
    await server?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }, LIMIT);

  // A database of its own per test.
  function freshDatabase(): string {
    const name = `migrations_${++database}`;
    server.sql(`CREATE DATABASE ${name}`);
    return name;
  }

  async function migrationsOf(files: Record<string, string>): Promise<string> {
    const dir = await folder(files);
    dirs.push(dir);
    return dir;
  }

  it(
    "applies the files in the order of their number, each once, with their checksums",
    LIMIT,
    async () => {
      const name = freshDatabase();
      const directory = await migrationsOf({
        "10_email.sql": EMAIL,
        "2_users.sql": USERS,
        "001_count.sql": COUNT,
        ".gitkeep": "",
      });
      await using db = new Database({ connectionString: server.url(name) });
      const first = await db.migrate({ directory });
      assert.deepEqual(first, {
        applied: ["001_count.sql", "2_users.sql", "10_email.sql"],
        alreadyApplied: 0,
      });
      const again = await db.migrate({ directory });
      assert.deepEqual(again, { applied: [], alreadyApplied: 3 });
      const recorded = server.sql(
        "SELECT name || ' ' || length(checksum) FROM kit_migrations ORDER BY name",
        name,
      );
      assert.equal(
        recorded,
        "001_count.sql 64\n10_email.sql 64\n2_users.sql 64",
      );
      await db.query("INSERT INTO users (name, email) VALUES ($1, $2)", [
        "Ada",
        "a@x",
      ]);
    },
  );

  it(
    "eight instances starting at once apply each file exactly once, and all start",
    LIMIT,
    async () => {
      const name = freshDatabase();
      const directory = await migrationsOf({
        "001_count.sql": COUNT,
        "002_users.sql": USERS + "SELECT pg_sleep(0.1);\n",
        "003_email.sql": EMAIL,
      });
      const instances = Array.from(
        { length: 8 },
        () => new Database({ connectionString: server.url(name), poolSize: 2 }),
      );
      try {
        const reports = await Promise.all(
          instances.map((db) => db.migrate({ directory })),
        );
        const applied = reports.flatMap((report) => report.applied).sort();
        assert.deepEqual(applied, [
          "001_count.sql",
          "002_users.sql",
          "003_email.sql",
        ]);
        for (const report of reports) {
          assert.equal(report.applied.length + report.alreadyApplied, 3);
        }
        assert.equal(
          server.sql(
            "SELECT string_agg(migration, ',' ORDER BY migration) FROM applied_count",
            name,
          ),
          "000,002",
        );
      } finally {
        await Promise.all(instances.map((db) => db.dispose()));
      }
    },
  );

  it(
    "works through PgBouncer in transaction mode, several instances at once",
    LIMIT,
    async () => {
      const name = freshDatabase();
      const directory = await migrationsOf({
        "001_count.sql": COUNT,
        "002_users.sql": USERS,
        "003_email.sql": EMAIL,
      });
      const instances = Array.from(
        { length: 4 },
        () =>
          new Database({ connectionString: bouncer.url(name), poolSize: 3 }),
      );
      try {
        const reports = await Promise.all(
          instances.map((db) => db.migrate({ directory })),
        );
        assert.equal(
          reports.reduce((sum, report) => sum + report.applied.length, 0),
          3,
        );
        assert.equal(
          server.sql("SELECT count(*) FROM applied_count", name),
          "2",
        );
      } finally {
        await Promise.all(instances.map((db) => db.dispose()));
      }
    },
  );

  it(
    "refuses to start when an applied file was changed, naming it",
    LIMIT,
    async () => {
      const name = freshDatabase();
      const directory = await migrationsOf({ "001_users.sql": USERS });
      await using db = new Database({ connectionString: server.url(name) });
      await db.migrate({ directory });
      // Line endings alone are no change.
      await writeFile(
        join(directory, "001_users.sql"),
        USERS.replace("\n", "\r\n"),
      );
      assert.deepEqual(await db.migrate({ directory }), {
        applied: [],
        alreadyApplied: 1,
      });
      await writeFile(join(directory, "001_users.sql"), USERS + "-- edited\n");
      await assert.rejects(db.migrate({ directory }), (error: unknown) => {
        assert.ok(error instanceof MigrationError);
        assert.equal(error.file, join(directory, "001_users.sql"));
        assert.match(
          error.message,
          /001_users\.sql was changed after it was applied \(at .+\): its checksum is [0-9a-f]{12}… where [0-9a-f]{12}… was recorded\. Put it back as it was applied, and make the change in a new migration$/,
        );
        return true;
      });
    },
  );

  it(
    "a failing file names the file, line and column, and is rolled back whole",
    LIMIT,
    async () => {
      const name = freshDatabase();
      const directory = await migrationsOf({
        "001_users.sql": USERS,
        "002_bad.sql":
          "ALTER TABLE users ADD COLUMN email text;\n\nUPDATE users SET emial = 'x';\n",
      });
      await using db = new Database({ connectionString: server.url(name) });
      await assert.rejects(db.migrate({ directory }), (error: unknown) => {
        assert.ok(error instanceof MigrationError);
        assert.equal(
          error.message,
          `${
            join(directory, "002_bad.sql")
          }:3:18: column "emial" of relation "users" does not exist (42703). The migration was rolled back; fix the file and start again`,
        );
        return true;
      });
      // The first file stays applied; none of the second's statements do.
      assert.equal(
        server.sql("SELECT string_agg(name, ',') FROM kit_migrations", name),
        "001_users.sql",
      );
      assert.equal(
        server.sql(
          "SELECT count(*) FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'email'",
          name,
        ),
        "0",
      );
    },
  );

  it(
    "names a stray file, two files of one number, a name without a number and a missing folder",
    LIMIT,
    async () => {
      await using db = new Database({ connectionString: server.url() });
      const stray = await migrationsOf({
        "001_users.sql": USERS,
        "README.md": "# notes",
      });
      await assert.rejects(db.migrate({ directory: stray }), {
        name: "MigrationError",
        message: `${
          join(stray, "README.md")
        } is not a .sql file: the migrations folder holds only migrations (001_create_users.sql); move it elsewhere`,
      });
      const twice = await migrationsOf({
        "002_a.sql": USERS,
        "2_b.sql": USERS,
      });
      await assert.rejects(db.migrate({ directory: twice }), {
        message: `${join(twice, "002_a.sql")} and ${
          join(twice, "2_b.sql")
        } have the same number (2): give one of them the next free number`,
      });
      const unnumbered = await migrationsOf({ "users.sql": USERS });
      await assert.rejects(
        db.migrate({ directory: unnumbered }),
        /users\.sql does not start with a number/,
      );
      const missing = join(stray, "nowhere");
      await assert.rejects(
        db.migrate({ directory: missing }),
        (error: unknown) => {
          assert.ok(error instanceof MigrationError);
          assert.match(
            error.message,
            /^The migrations folder '.*nowhere' does not exist/,
          );
          return true;
        },
      );
    },
  );
});
