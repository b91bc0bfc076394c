// The embedded engine (PGlite, PostgreSQL in this process) behind the same
// API, and the test kit's databases on it: a folder that keeps its data, a
// folder that is a file, the refusal in production, the one connection's
// queue, and a test database per test, migrated once, rolled back at its
// end, with required settings supplied to createTestApplication.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  addDatabase,
  Database,
  DatabaseConfigurationError,
  DatabasePoolTimeoutError,
  DatabaseQueryError,
  type DatabaseSession,
} from "@vendor/kit-platform/database";
import {
  createTestApplication,
  createTestDatabase,
} from "@vendor/kit-platform/testing";
import { waitFor } from "../../_support/wait_for.ts";
import { runChildScript } from "../../_support/child_script.ts";
import { moduleUrl } from "../../_support/module_url.ts";
import {
  type ConfigurationManager,
  createConfiguration,
} from "../../../config/mod.ts";

// PGlite's first start runs initdb: seconds, more on a loaded machine.
const LIMIT = { timeout: 180_000 };

describe("the embedded engine", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kit-pglite-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(
    "keeps its data in a folder across instances, with the same API as a server",
    LIMIT,
    async () => {
      // A folder whose parent is missing too (pglite:.data/database in a
      // project that has no .data yet): both are created.
      const folder = join(dir, "missing-parent", "data");
      {
        await using db = new Database({ connectionString: `pglite:${folder}` });
        assert.equal(db.engine, "pglite");
        await db.query("CREATE TABLE notes (id serial PRIMARY KEY, body text)");
        await db.transaction(async (tx) => {
          await tx.query("INSERT INTO notes (body) VALUES ($1)", ["kept"]);
          await tx.transaction(async (inner) => {
            await inner.query("INSERT INTO notes (body) VALUES ($1)", [
              "undone",
            ]);
            throw new Error("undo");
          }).catch(() => {});
        });
        await assert.rejects(
          db.query("INSERT INTO nowhere VALUES ($1)", ["a value"]),
          (error: unknown) => {
            assert.ok(error instanceof DatabaseQueryError);
            assert.equal(error.sqlState, "42P01");
            assert.ok(!error.message.includes("a value"));
            return true;
          },
        );
      }
      await using again = new Database({
        connectionString: `pglite:${folder}`,
        timeout: 1000,
      });
      const { rows } = await again.query<{ body: string }>(
        "SELECT body FROM notes",
      );
      assert.deepEqual(rows, [{ body: "kept" }]);
      assert.equal((await again.checkHealth()).status, "healthy");

      // One connection: a session holding it makes others wait, then fail
      // after database:timeout as from a full pool.
      await using session = again.session();
      await session.query("SELECT 1");
      await assert.rejects(again.query("SELECT 2"), (error: unknown) => {
        assert.ok(error instanceof DatabasePoolTimeoutError);
        assert.match(error.message, /1 of 1 \(database:poolSize\) are in use/);
        return true;
      });
      await session.dispose();
      assert.equal((await again.query("SELECT 3 AS n")).rows[0].n, 3);
    },
  );

  it(
    "refuses a folder that is a file, naming the key and its source",
    LIMIT,
    async () => {
      const file = join(dir, "a-file");
      await writeFile(file, "not a folder");
      await using db = Database.fromConfiguration({
        database: { connectionString: `pglite:${file}` },
      });
      await assert.rejects(db.open(), (error: unknown) => {
        assert.ok(error instanceof DatabaseConfigurationError);
        assert.equal(
          error.message,
          `database:connectionString points the embedded engine at '${file}' (from the configuration), which is not a folder: give a folder (it is created when missing), or pglite:memory`,
        );
        return true;
      });
      // A folder that cannot be created: inside that file.
      await using below = Database.fromConfiguration({
        database: { connectionString: `pglite:${file}/data` },
      });
      await assert.rejects(below.open(), (error: unknown) => {
        assert.ok(error instanceof DatabaseConfigurationError);
        assert.match(
          error.message,
          /^database:connectionString points the embedded engine at '.*\/a-file\/data' \(from the configuration\), which could not be created: .*ENOTDIR.*\. Give a folder this process may create, or pglite:memory$/,
        );
        return true;
      });
    },
  );

  it("is refused in production unless allowed in code", () => {
    const config = {
      environment: "production",
      database: { connectionString: "pglite:memory" },
    };
    assert.throws(
      () => Database.fromConfiguration(config),
      (error: unknown) => {
        assert.ok(error instanceof DatabaseConfigurationError);
        assert.match(
          error.message,
          /^database:connectionString selects the embedded engine \(pglite:memory, from the configuration\) in production/,
        );
        return true;
      },
    );
    const allowed = Database.fromConfiguration(config, {
      allowEmbeddedInProduction: true,
    });
    assert.equal(allowed.engine, "pglite");
  });
});

describe("the test kit's databases", () => {
  let migrations: string;
  before(async () => {
    migrations = await mkdtemp(join(tmpdir(), "kit-test-db-migrations-"));
    await writeFile(
      join(migrations, "001_users.sql"),
      "CREATE TABLE users (id serial PRIMARY KEY, email text UNIQUE NOT NULL);\n",
    );
    await writeFile(
      join(migrations, "002_seed.sql"),
      "INSERT INTO users (email) VALUES ('seed@example.com');\n",
    );
  });
  after(async () => {
    await rm(migrations, { recursive: true, force: true });
  });

  it(
    "gives each test the migrated database and rolls its work back",
    LIMIT,
    async () => {
      {
        await using db = await createTestDatabase({ migrations });
        await db.query("INSERT INTO users (email) VALUES ($1)", [
          "ada@example.com",
        ]);
        // A failed statement spoils nothing else of the test.
        await assert.rejects(
          db.query("INSERT INTO users (email) VALUES ($1)", [
            "ada@example.com",
          ]),
          { sqlState: "23505" },
        );
        await db.transaction(async (tx) => {
          await tx.query("INSERT INTO users (email) VALUES ($1)", [
            "grace@example.com",
          ]);
        });
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.query("INSERT INTO users (email) VALUES ($1)", [
              "gone@example.com",
            ]);
            throw new Error("roll back");
          }),
        );
        const { rows } = await db.query<{ email: string }>(
          "SELECT email FROM users ORDER BY id",
        );
        assert.deepEqual(rows.map((row) => row.email), [
          "seed@example.com",
          "ada@example.com",
          "grace@example.com",
        ]);
      }
      // One never used gives its connection back too.
      await (await createTestDatabase({ migrations })).dispose();
      await using next = await createTestDatabase({ migrations });
      const { rows } = await next.query<{ email: string }>(
        "SELECT email FROM users",
      );
      assert.deepEqual(rows, [{ email: "seed@example.com" }]);
    },
  );

  it(
    "gives the connection back when a test database that ran no statement is disposed",
    LIMIT,
    async () => {
      // A test whose requests never reach the database (a route without
      // one, a readiness probe) still took the base's one connection.
      const unused = await createTestDatabase({ migrations });
      await unused.dispose();
      const taken = performance.now();
      await using next = await createTestDatabase({ migrations });
      assert.ok(
        performance.now() - taken < 5_000,
        "the next test database waited for the connection",
      );
      const { rows } = await next.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM users",
      );
      assert.deepEqual(rows, [{ n: 1 }]);
    },
  );

  it(
    "lets a test process exit once its test databases are disposed",
    LIMIT,
    async () => {
      // PGlite keeps a timer of PostgreSQL's armed, so a base left open
      // would keep a test runner's process (node --test) running forever.
      const testing = moduleUrl("platform").replace(
        /mod\.(ts|js)$/,
        "testing.$1",
      );
      const child = await runChildScript(
        `import { createTestDatabase } from ${JSON.stringify(testing)};
for (let i = 0; i < 2; i++) {
  const db = await createTestDatabase({ migrations: ${
          JSON.stringify(migrations)
        } });
  await db.query("SELECT count(*) FROM users");
  await db.dispose();
}
console.log("disposed");
`,
        { timeoutMs: 120_000 },
      );
      assert.equal(child.code, 0, child.out);
      assert.match(child.out, /disposed/);
    },
  );

  it(
    "supplies required settings to createTestApplication before it validates",
    LIMIT,
    async () => {
      const root = await mkdtemp(join(tmpdir(), "kit-test-app-"));
      try {
        // The application's own settings lack the connection string, which
        // Kit's default rules require.
        await writeFile(
          join(root, "appsettings.json"),
          JSON.stringify({
            api: { baseUrl: "http://127.0.0.1:1" },
            logging: { level: "info", providers: [{ type: "console" }] },
          }),
        );
        await using db = await createTestDatabase({ migrations });
        await using app = await createTestApplication<
          { database: Database; db: DatabaseSession },
          ConfigurationManager
        >({
          configuration: () => createConfiguration({ basePath: root }),
          config: { "database:connectionString": "pglite:memory" },
          platform: (services, config) => addDatabase(services, config),
          overrides: { database: () => db },
          serve: (services) => async (request) => {
            const session = services.get("db");
            if (new URL(request.url).pathname === "/fail") {
              await session.query("SELECT 1");
              throw new Error("the handler failed after its first statement");
            }
            const { rows } = await session.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM users",
            );
            return Response.json(rows[0]);
          },
        });
        assert.deepEqual(await (await app.request("/count")).json(), { n: 1 });
        const failed = await app.request("/fail");
        assert.equal(failed.status, 500);
        await failed.text(); // the response is done once its body is read
        // Each request's session gave its connection back (its scope ends
        // once the response is done), the failed one's too.
        await waitFor(
          () => db.counters.idle === 1,
          "the sessions to give the connection back",
        );
        assert.deepEqual(db.counters, { total: 1, idle: 1, waiting: 0 });
        const health = await (await app.request("/health")).json();
        assert.equal(health.checks.database.status, "healthy");
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    },
  );
});
