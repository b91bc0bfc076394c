// The database through PgBouncer in transaction mode (Debian's pgbouncer in
// front of a real PostgreSQL): statements, transactions and sessions work
// with no session state across transactions; PgBouncer refuses the
// statement_timeout Kit sends at connection start-up, so Kit says so once
// and gives up on a slow statement itself, closing its connection.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Database, DatabaseTimeoutError } from "@vendor/kit-platform/database";
import type { ApplicationLogger } from "../../../platform/mod.ts";
import {
  type PgBouncer,
  type PostgresServer,
  skipUnlessPostgres,
  startPgBouncer,
  startPostgres,
} from "../../_support/postgres.ts";

const skip = skipUnlessPostgres(true);
const LIMIT = { timeout: 120_000 };

function recorder(): { logger: ApplicationLogger; warnings: string[] } {
  const warnings: string[] = [];
  const none = (): void => {};
  return {
    warnings,
    logger: {
      debug: none,
      info: none,
      warning: (message: string) => warnings.push(message),
      error: (message: string) => warnings.push(message),
    },
  };
}

describe("database through PgBouncer (transaction mode)", { skip }, () => {
  let server: PostgresServer;
  let bouncer: PgBouncer;
  before(async () => {
    server = await startPostgres();
    bouncer = await startPgBouncer(server, { poolSize: 3 });
    server.sql("CREATE TABLE items (id serial PRIMARY KEY, name text)");
  }, LIMIT);
  after(async () => {
    await bouncer?.close();
    await server?.close();
  }, LIMIT);

  it("runs statements, transactions and sessions", LIMIT, async () => {
    const { logger, warnings } = recorder();
    await using db = new Database({
      connectionString: bouncer.url("postgres", "bouncer-pw"),
      poolSize: 8,
      logger,
    });
    await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          db.query("INSERT INTO items (name) VALUES ($1)", [`item ${i}`]),
      ),
    );
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO items (name) VALUES ($1)", [
        "in a transaction",
      ]);
      await tx.transaction(async (inner) => {
        await inner.query("INSERT INTO items (name) VALUES ($1)", ["undone"]);
        throw new Error("undo");
      }).catch(() => {});
    });
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO items (name) VALUES ($1)", ["rolled back"]);
        throw new Error("rolled back");
      }),
    );
    await using session = db.session();
    const { rows } = await session.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM items",
    );
    assert.equal(rows[0].n, 21);
    assert.equal((await db.checkHealth()).status, "healthy");
    // Said once: the server refused statement_timeout at start-up.
    const refused = warnings.filter((line) =>
      line.includes("refused statement_timeout")
    );
    assert.equal(refused.length, 1, warnings.join("\n"));
    assert.match(
      refused[0],
      /ALTER ROLE <user> SET statement_timeout = '30000ms'/,
    );
    assert.ok(!warnings.join("\n").includes("bouncer-pw"));
  });

  it(
    "gives up on a statement past database:timeout and closes its connection",
    LIMIT,
    async () => {
      await using db = new Database({
        connectionString: bouncer.url(),
        poolSize: 2,
        timeout: 1000,
        logger: recorder().logger,
      });
      const started = performance.now();
      await assert.rejects(
        db.query("SELECT pg_sleep(20)"),
        (error: unknown) => {
          assert.ok(error instanceof DatabaseTimeoutError, String(error));
          return true;
        },
      );
      assert.ok(performance.now() - started < 15_000);
      const { rows } = await db.query<{ one: number }>("SELECT 1 AS one");
      assert.equal(rows[0].one, 1);
    },
  );
});
