/**
 * Redis and PostgreSQL for scripts/create_check.ts: a redis-server and a
 * PostgreSQL 15 (Debian's packages) started on given loopback ports for the
 * length of one case, and the check that a service reports both healthy.
 *
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** Where Debian puts the programs of PostgreSQL 15. */
export const PG_BIN = "/usr/lib/postgresql/15/bin";

/**
 * Why redis-server and PostgreSQL cannot be started here, if they cannot.
 *
 * @returns The reason, or `undefined` when both can be started.
 */
export function whyNoBackends(): string | undefined {
  if (spawnSync("redis-server", ["--version"]).status !== 0) {
    return "redis-server is not installed";
  }
  if (!existsSync(join(PG_BIN, "initdb"))) {
    return `PostgreSQL 15 is not installed (no ${PG_BIN}/initdb)`;
  }
  if (process.getuid?.() !== 0) {
    return "PostgreSQL is started as the postgres user, which needs root";
  }
  if (spawnSync("id", ["postgres"]).status !== 0) return "no postgres user";
  return undefined;
}

/** Resolves once something accepts connections on the port (10 s at most). */
async function waitForPort(port: number, what: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const open = await new Promise<boolean>((resolvePromise) => {
      const socket = connect(port, "127.0.0.1");
      socket.setTimeout(1_000);
      socket.once("connect", () => {
        socket.destroy();
        resolvePromise(true);
      });
      socket.once("error", () => resolvePromise(false));
      socket.once("timeout", () => {
        socket.destroy();
        resolvePromise(false);
      });
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not listen on port ${port} within 10 s`);
}

/** Runs a PostgreSQL program as the postgres user; throws on failure. */
function asPostgres(args: string[]): void {
  const ran = spawnSync("runuser", ["-u", "postgres", "--", ...args], {
    cwd: "/tmp",
    encoding: "utf8",
    timeout: 60_000,
  });
  if (ran.status !== 0) {
    throw new Error(
      `${args[0]} failed (${
        ran.status ?? ran.signal
      }): ${ran.stdout}${ran.stderr}`,
    );
  }
}

/** Redis and PostgreSQL on loopback, as the service's variables name them. */
export interface Backends {
  /** REDIS_HOST, REDIS_PORT and DB_CONNECTION_STRING. */
  env: Record<string, string>;
}

/**
 * Starts a redis-server and a PostgreSQL 15 (user `kit`, trusted) on the
 * given loopback ports, runs `body`, and stops both (and removes
 * PostgreSQL's folder) whatever happens.
 *
 * @param redisPort A free port for Redis.
 * @param pgPort Another free port, for PostgreSQL.
 * @param body What to run while both serve.
 * @returns What `body` returned.
 * @throws {Error} When either does not start (with its output), or what
 * `body` threw.
 */
export async function withBackends<T>(
  redisPort: number,
  pgPort: number,
  body: (backends: Backends) => Promise<T>,
): Promise<T> {
  const redis = spawn("redis-server", [
    "--port",
    String(redisPort),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ], { stdio: "ignore" });
  // Its own folder: the scratch folder is for root only, and the
  // postgres user must reach its data directory.
  const pgDir = await mkdtemp(join(tmpdir(), "kit-create-pg-"));
  const postgresUid = Number(
    spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout,
  );
  await chown(pgDir, postgresUid, -1);
  let pgStarted = false;
  try {
    await waitForPort(redisPort, "redis-server");
    asPostgres([
      join(PG_BIN, "initdb"),
      "-D",
      join(pgDir, "data"),
      "-U",
      "kit",
      "--auth=trust",
    ]);
    asPostgres([
      join(PG_BIN, "pg_ctl"),
      "-D",
      join(pgDir, "data"),
      "-l",
      join(pgDir, "postgres.log"),
      "-w",
      "-t",
      "30",
      "-o",
      `-p ${pgPort} -k ${pgDir} -h 127.0.0.1`,
      "start",
    ]);
    pgStarted = true;
    return await body({
      env: {
        REDIS_HOST: "127.0.0.1",
        REDIS_PORT: String(redisPort),
        DB_CONNECTION_STRING: `postgres://kit@127.0.0.1:${pgPort}/postgres`,
      },
    });
  } finally {
    if (pgStarted) {
      spawnSync("runuser", [
        "-u",
        "postgres",
        "--",
        join(PG_BIN, "pg_ctl"),
        "-D",
        join(pgDir, "data"),
        "-m",
        "immediate",
        "-w",
        "stop",
      ], { cwd: "/tmp", timeout: 30_000 });
    }
    redis.kill("SIGKILL");
    await rm(pgDir, { recursive: true, force: true });
  }
}

/**
 * `GET /health` must answer 200 with the cache and the database healthy.
 *
 * @param url The service's base URL.
 * @throws {Error} With the status and the report otherwise.
 */
export async function expectBackendsHealthy(url: string): Promise<void> {
  const response = await fetch(`${url}/health`, {
    signal: AbortSignal.timeout(5_000),
  });
  const report = await response.json() as {
    checks?: Record<string, { status?: string }>;
  };
  const cache = report.checks?.cache?.status;
  const database = report.checks?.database?.status;
  if (
    response.status !== 200 || cache !== "healthy" || database !== "healthy"
  ) {
    throw new Error(
      `GET /health: ${response.status} ${JSON.stringify(report)}`,
    );
  }
}
