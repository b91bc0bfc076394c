// Drizzle and Kysely on the pool of Kit's Database, as docs/database.md
// shows them: both take the driver's own pool (db.driver()), share its
// connections with Kit's statements, and leave closing it to Kit's dispose.
// Against a real PostgreSQL server; Drizzle also on the embedded engine.
// @ts-types="@types/pg"
import type pg from "pg";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Generated, Kysely, PostgresDialect } from "kysely";
import { drizzle } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { eq } from "drizzle-orm";
import { integer, pgTable, serial, text } from "drizzle-orm/pg-core";
import type { PGlite } from "@electric-sql/pglite";
import { Database } from "@vendor/kit-platform/database";
import { createTestDatabase } from "@vendor/kit-platform/testing";
import {
  type PostgresServer,
  skipUnlessPostgres,
  startPostgres,
} from "../../_support/postgres.ts";

const skip = skipUnlessPostgres();
const LIMIT = { timeout: 180_000 };

const books = pgTable("books", {
  id: serial("id").primaryKey(),
  title: text("title").notNull(),
  pages: integer("pages").notNull(),
});

interface Tables {
  books: { id: Generated<number>; title: string; pages: number };
}

const CREATE =
  "CREATE TABLE books (id serial PRIMARY KEY, title text NOT NULL, pages integer NOT NULL)";

describe("Drizzle and Kysely on Kit's pool", { skip }, () => {
  let server: PostgresServer;
  before(async () => {
    server = await startPostgres();
  }, LIMIT);
  after(async () => {
    await server?.close();
  }, LIMIT);

  it(
    "share the pool with Kit's statements and transactions",
    LIMIT,
    async () => {
      await using db = new Database({
        connectionString: server.url(),
        poolSize: 4,
      });
      await db.query(CREATE);
      const pool = await db.driver<pg.Pool>();
      const kysely = new Kysely<Tables>({
        dialect: new PostgresDialect({ pool }),
      });
      const orm = drizzle(pool);

      await kysely.insertInto("books").values({ title: "Dune", pages: 412 })
        .execute();
      await orm.insert(books).values({ title: "Emma", pages: 474 });
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO books (title, pages) VALUES ($1, $2)", [
          "Ulysses",
          730,
        ]);
      });
      const viaKysely = await kysely.selectFrom("books").select(["title"])
        .where("pages", ">", 450).orderBy("title").execute();
      assert.deepEqual(viaKysely.map((row) => row.title), ["Emma", "Ulysses"]);
      const viaDrizzle = await orm.select().from(books).where(
        eq(books.title, "Dune"),
      );
      assert.equal(viaDrizzle[0].pages, 412);
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM books",
      );
      assert.equal(rows[0].n, 3);
      // One pool: every connection came back to it, and Kit closes it.
      assert.ok(db.counters.total <= 4);
      assert.equal(db.counters.idle, db.counters.total);
    },
  );

  it(
    "Drizzle's PGlite adapter runs on the embedded engine, in a test database's transaction too",
    LIMIT,
    async () => {
      await using db = await createTestDatabase({ migrations: false });
      await db.query(CREATE);
      const orm = drizzlePglite(await db.driver<PGlite>());
      await orm.insert(books).values({ title: "Beloved", pages: 324 });
      const { rows } = await db.query<{ title: string }>(
        "SELECT title FROM books",
      );
      assert.deepEqual(rows, [{ title: "Beloved" }]);
    },
  );
});
