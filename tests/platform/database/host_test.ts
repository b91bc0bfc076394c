// The database inside an application served by Kit's host, against a real
// PostgreSQL: addDatabase's migrations at start-up, a session per request
// (each given back, also when the handler threw), /health and readiness
// while the server is stopped and once it is back, and the pool closed
// when the application stops.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Application } from "../../../platform/mod.ts";
import {
  addDatabase,
  type Database,
  type DatabaseSession,
} from "@vendor/kit-platform/database";
import {
  type PostgresServer,
  skipUnlessPostgres,
  startPostgres,
} from "../../_support/postgres.ts";
import { waitFor } from "../../_support/wait_for.ts";

const skip = skipUnlessPostgres();
const LIMIT = { timeout: 120_000 };

type Services = { database: Database; db: DatabaseSession };

describe("the database in a served application", { skip }, () => {
  let server: PostgresServer;
  let migrations: string;
  before(async () => {
    server = await startPostgres();
    migrations = await mkdtemp(join(tmpdir(), "kit-host-migrations-"));
    await writeFile(
      join(migrations, "001_visits.sql"),
      "CREATE TABLE visits (id serial PRIMARY KEY, path text NOT NULL);\n",
    );
  }, LIMIT);
  after(async () => {
    await server?.close();
    await rm(migrations, { recursive: true, force: true });
  }, LIMIT);

  it(
    "migrates at start-up, gives each request a session, reports health and recovers from a restart",
    LIMIT,
    async () => {
      const app = await Application.start<Services>({
        configuration: () => ({
          database: {
            connectionString: server.url("postgres", "host-test-pw"),
            poolSize: 3,
            timeout: 5000,
          },
        }),
        platform: (services, config) =>
          addDatabase(services, config, { migrations }),
        serve: (services) => async (request) => {
          const db = services.get("db");
          const path = new URL(request.url).pathname;
          await db.query("INSERT INTO visits (path) VALUES ($1)", [path]);
          if (path === "/fail") throw new Error("after its statement");
          const { rows } = await db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM visits",
          );
          return Response.json(rows[0]);
        },
        server: { port: 0, hostname: "127.0.0.1" },
      });
      try {
        const database = app.services.get("database");
        // Forty requests at once on three connections: each request holds
        // one connection for its two statements, then gives it back.
        const answers = await Promise.all(
          Array.from({ length: 40 }, () => fetch(new URL("/visit", app.url!))),
        );
        for (const answer of answers) {
          assert.equal(answer.status, 200);
          await answer.body?.cancel();
        }
        const failed = await fetch(new URL("/fail", app.url!));
        assert.equal(failed.status, 500);
        await failed.text();
        await waitFor(
          () => database.counters.idle === database.counters.total,
          "every connection to be given back",
        );
        assert.ok(database.counters.total <= 3);

        const health = await (await fetch(new URL("/health", app.url!))).json();
        assert.equal(health.checks.database.status, "healthy");
        assert.ok(!JSON.stringify(health).includes("host-test-pw"));

        await server.stop("fast");
        await waitFor(
          async () => {
            const ready = await fetch(new URL("/health/ready", app.url!));
            await ready.body?.cancel();
            return ready.status === 503;
          },
          "readiness 503 while the database is down",
          30_000,
          50,
        );
        const down = await (await fetch(new URL("/health", app.url!))).json();
        assert.equal(down.checks.database.status, "unhealthy");
        assert.match(down.checks.database.detail, /is unreachable/);

        await server.start();
        const back = performance.now();
        await waitFor(
          async () => {
            const ready = await fetch(new URL("/health/ready", app.url!));
            await ready.body?.cancel();
            return ready.status === 200;
          },
          "readiness 200 once the database is back",
          30_000,
          50,
        );
        const recovery = performance.now() - back;
        console.log(
          `readiness back ${recovery.toFixed(0)} ms after the server`,
        );
        const visit = await fetch(new URL("/visit", app.url!));
        assert.equal(visit.status, 200);
        // 40 visits, the failed request's (no transaction: it stays), this one.
        assert.equal((await visit.json()).n, 42);
      } finally {
        await app.stop();
      }
      assert.equal(
        server.sql(
          "SELECT count(*) FROM pg_stat_activity WHERE datname = 'postgres' AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND application_name <> 'psql'",
        ),
        "0",
        "the pool was closed when the application stopped",
      );
    },
  );
});
