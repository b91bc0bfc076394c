/**
 * The database against a bare `pg.Pool` on the same PostgreSQL server
 * (started here on loopback by the test fixture, tests/_support/postgres.ts),
 * in the same run:
 *
 * - a one-row `SELECT` with a parameter: `db.query` against `pool.query`
 *   (goal ≤ 1.05×; logging off and no OpenTelemetry SDK, so neither may cost
 *   anything measurable);
 * - a session per request that runs one statement (take the session, run the
 *   statement, dispose it, as a request's scope does) against `pool.query`
 *   (goal ≤ 1.10×);
 * - the test kit: a fresh isolated test database (`createTestDatabase()` and
 *   its `dispose()`, after the first) against a bare `BEGIN`/`ROLLBACK` on a
 *   PGlite instance (goal: ≤ 50 ms). For scale: a new `PGlite.create()` runs
 *   initdb (seconds), which the test kit does once per process.
 *
 * Run: `deno bench -A --config deno.dev.json bench/database_bench.ts`. Skipped, saying so, when
 * PostgreSQL is not installed. On a shared machine, where load that comes and
 * goes lands on one side of a `deno bench` group, run it as a script:
 * `deno run -A --config deno.dev.json bench/database_bench.ts --interleaved` times each pair in
 * short alternating batches (200 calls, 60 rounds, the order flipped each
 * round) and prints the median of the per-round ratios.
 *
 * @module
 */
// @ts-types="@types/pg"
import pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { Database } from "@vendor/kit-platform/database";
import { createTestDatabase } from "@vendor/kit-platform/testing";
import {
  type PostgresServer,
  skipUnlessPostgres,
  startPostgres,
} from "../tests/_support/postgres.ts";

const missing = skipUnlessPostgres();
let server: PostgresServer | undefined;
let pool: pg.Pool | undefined;
let db: Database | undefined;
if (missing === false) {
  server = await startPostgres();
  pool = new pg.Pool({ connectionString: server.url(), max: 10 });
  // The server is killed with this process: its idle connections then
  // report an error, which must not end the run.
  pool.on("error", () => {});
  db = new Database({ connectionString: server.url(), poolSize: 10 });
  // Both pools warmed: connections open before the first measured call.
  await Promise.all(
    Array.from({ length: 10 }, () => pool!.query("SELECT 1")),
  );
  await Promise.all(Array.from({ length: 10 }, () => db!.query("SELECT 1")));
}
const STATEMENT = "SELECT $1::int AS n";

Deno.bench({
  name: "pg.Pool query (one row)",
  group: "one-row SELECT",
  baseline: true,
  ignore: pool === undefined,
  async fn() {
    await pool!.query(STATEMENT, [1]);
  },
});

Deno.bench({
  name: "Kit db.query (one row)",
  group: "one-row SELECT",
  ignore: db === undefined,
  async fn() {
    await db!.query(STATEMENT, [1]);
  },
});

Deno.bench({
  name: "pg.Pool query (per request)",
  group: "session per request",
  baseline: true,
  ignore: pool === undefined,
  async fn() {
    await pool!.query(STATEMENT, [1]);
  },
});

Deno.bench({
  name: "Kit session: take, one statement, dispose",
  group: "session per request",
  ignore: db === undefined,
  async fn() {
    const session = db!.session();
    await session.query(STATEMENT, [1]);
    await session.dispose();
  },
});

// The test kit's base is made (and migrated) by the first call.
const pglite = await PGlite.create();
await (await createTestDatabase({ migrations: false })).dispose();

Deno.bench({
  name: "PGlite BEGIN + ROLLBACK",
  group: "isolated test database",
  baseline: true,
  async fn() {
    await pglite.query("BEGIN");
    await pglite.query("ROLLBACK");
  },
});

Deno.bench({
  name: "createTestDatabase() + a statement + dispose()",
  group: "isolated test database",
  async fn() {
    const test = await createTestDatabase({ migrations: false });
    await test.query("SELECT 1");
    await test.dispose();
  },
});

// --- interleaved, for a shared machine -------------------------------------
if (import.meta.main && Deno.args.includes("--interleaved")) {
  const median = (list: number[]): number =>
    [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const batch = async (call: () => Promise<unknown>): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < 200; i++) await call();
    return (performance.now() - start) / 200;
  };
  const pairs: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    [
      "db.query ÷ pool.query",
      () => db!.query(STATEMENT, [1]),
      () => pool!.query(STATEMENT, [1]),
    ],
    [
      "session (take, one statement, dispose) ÷ pool.query",
      async () => {
        const session = db!.session();
        await session.query(STATEMENT, [1]);
        await session.dispose();
      },
      () => pool!.query(STATEMENT, [1]),
    ],
    [
      "createTestDatabase + statement + dispose ÷ PGlite BEGIN/ROLLBACK",
      async () => {
        const test = await createTestDatabase({ migrations: false });
        await test.query("SELECT 1");
        await test.dispose();
      },
      async () => {
        await pglite.query("BEGIN");
        await pglite.query("ROLLBACK");
      },
    ],
  ];
  for (const [name, kit, peer] of pairs) {
    if (db === undefined && !name.startsWith("createTestDatabase")) continue;
    const ratios: number[] = [];
    const kitTimes: number[] = [];
    const peerTimes: number[] = [];
    for (let round = 0; round < 60; round++) {
      let a: number, b: number;
      if (round % 2 === 0) {
        a = await batch(kit);
        b = await batch(peer);
      } else {
        b = await batch(peer);
        a = await batch(kit);
      }
      kitTimes.push(a);
      peerTimes.push(b);
      ratios.push(a / b);
    }
    console.log(
      `${name}: ${median(ratios).toFixed(3)} (Kit ${
        (median(kitTimes) * 1000).toFixed(1)
      } µs, peer ${(median(peerTimes) * 1000).toFixed(1)} µs)`,
    );
  }
  await db?.dispose();
  await pool?.end();
  await server?.close();
}
