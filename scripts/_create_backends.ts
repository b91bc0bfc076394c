/**
 * Redis and PostgreSQL for scripts/create_check.ts: a redis-server and a
 * PostgreSQL (Debian's packages; the test suite's fixture) started on
 * loopback for the length of one case, the check that a service reports
 * both healthy, and the check that it survives a restart of PostgreSQL
 * under requests.
 *
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import process from "node:process";
import {
  type PostgresServer,
  startPostgres,
} from "../tests/_support/postgres.ts";

/** The folder of the newest PostgreSQL's programs, when installed. */
function postgresBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  return readdirSync(root).filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(root, version, "bin"))
    .find((bin) => existsSync(join(bin, "initdb")));
}

/**
 * Why redis-server and PostgreSQL cannot be started here, if they cannot.
 *
 * @returns The reason, or `undefined` when both can be started.
 */
export function whyNoBackends(): string | undefined {
  if (spawnSync("redis-server", ["--version"]).status !== 0) {
    return "redis-server is not installed";
  }
  const bin = postgresBin();
  if (bin === undefined) {
    return "PostgreSQL is not installed (no /usr/lib/postgresql/<version>/bin/initdb)";
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

/** Redis and PostgreSQL on loopback, as the service's variables name them. */
export interface Backends {
  /** REDIS_HOST, REDIS_PORT and DB_CONNECTION_STRING. */
  env: Record<string, string>;
  /** The PostgreSQL server, to stop and start under the service. */
  postgres: PostgresServer;
}

/**
 * Starts a redis-server on the given loopback port and a PostgreSQL (user
 * `kit`, trusted; the test suite's fixture, tests/_support/postgres.ts) on
 * a free one, runs `body`, and stops both (and removes PostgreSQL's folder)
 * whatever happens.
 *
 * @param redisPort A free port for Redis.
 * @param body What to run while both serve.
 * @returns What `body` returned.
 * @throws {Error} When either does not start (with its output), or what
 * `body` threw.
 */
export async function withBackends<T>(
  redisPort: number,
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
  let postgres: PostgresServer | undefined;
  try {
    await waitForPort(redisPort, "redis-server");
    postgres = await startPostgres();
    return await body({
      env: {
        REDIS_HOST: "127.0.0.1",
        REDIS_PORT: String(redisPort),
        DB_CONNECTION_STRING: postgres.url(),
      },
      postgres,
    });
  } finally {
    await postgres?.close();
    redis.kill("SIGKILL");
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

/** What {@linkcode expectSurvivesRestart} watches of the running service. */
export interface ServiceUnderTest {
  /** Its base URL. */
  url: string;
  /** Whether its process (or container) still runs. */
  alive(): boolean;
  /** What it wrote so far: its standard error (a container: its output). */
  errors(): string;
}

/**
 * A driver's error that reached the runtime instead of Kit: an `error`
 * event nobody listened to, an uncaught exception or rejection, PostgreSQL's
 * message printed as `pg` prints its errors.
 */
const RAW_DRIVER_ERROR =
  /Uncaught|Unhandled|Emitted 'error' event|triggerUncaughtException|^error: /m;

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** The status of `GET /health/ready`, or the reason there was none. */
async function readiness(url: string): Promise<number | string> {
  try {
    const response = await fetch(`${url}/health/ready`, {
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
    return response.status;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Polls `probe` every `interval` ms until it is true; false past `ms`. */
async function until(
  probe: () => Promise<boolean> | boolean,
  ms: number,
  interval = 50,
): Promise<boolean> {
  const end = performance.now() + ms;
  while (true) {
    if (await probe()) return true;
    if (performance.now() > end) return false;
    await sleep(interval);
  }
}

/**
 * PostgreSQL stopped and started again under the service while requests
 * keep coming (`GET /notes`, which reads the database through the
 * request's session, from two clients in a loop): `pg_ctl -m fast stop`
 * (the fixture's `stop("fast")`, which ends every connection with
 * "terminating connection due to administrator command"); readiness must
 * turn 503, every request must still be answered and the process stay
 * alive while the server is down; once it is back, readiness must be 200
 * within 5 s and `GET /notes` 200 again; no driver error may reach the
 * runtime (an unhandled `error` event, an uncaught exception).
 *
 * @param service The running service.
 * @param postgres Its PostgreSQL server.
 * @returns A line with the figures; the recovery time (from the server
 * accepting connections again to readiness 200) first.
 * @throws {Error} Naming what failed, with the service's error output.
 */
export async function expectSurvivesRestart(
  service: ServiceUnderTest,
  postgres: PostgresServer,
): Promise<string> {
  const { url } = service;
  type Phase = "before" | "down" | "after";
  let phase: Phase = "before";
  const answered: Record<Phase, Record<string, number>> = {
    before: {},
    down: {},
    after: {},
  };
  const count = (at: Phase, status?: string): number =>
    Object.entries(answered[at]).filter(([key]) =>
      status === undefined ? !key.startsWith("no answer") : key === status
    ).reduce((sum, [, n]) => sum + n, 0);
  let loading = true;
  const client = async (): Promise<void> => {
    while (loading) {
      const at = phase;
      let key: string;
      try {
        const response = await fetch(`${url}/notes`, {
          signal: AbortSignal.timeout(10_000),
        });
        await response.body?.cancel();
        key = String(response.status);
      } catch (error) {
        key = `no answer (${
          error instanceof Error ? error.message : String(error)
        })`;
      }
      answered[at][key] = (answered[at][key] ?? 0) + 1;
      await sleep(25);
    }
  };
  const clients = [client(), client()];
  const fail = (what: string): never => {
    throw new Error(
      `${what}; requests answered: ${
        JSON.stringify(answered)
      }; the service's errors:\n${service.errors().slice(-3000)}`,
    );
  };
  try {
    if (!await until(() => count("before", "200") >= 10, 20_000)) {
      fail("GET /notes did not answer 200 ten times before the restart");
    }
    await postgres.stop("fast");
    const stopped = performance.now();
    phase = "down";
    if (!await until(async () => await readiness(url) === 503, 15_000, 100)) {
      fail(`readiness did not turn 503 within 15 s of pg_ctl -m fast stop`);
    }
    const notReadyMs = performance.now() - stopped;
    // Requests keep being answered while the server is down.
    if (!await until(() => count("down") >= 20, 30_000)) {
      fail("fewer than 20 requests answered while PostgreSQL was down");
    }
    const downReady = await readiness(url);
    if (downReady !== 503) fail(`readiness ${downReady} while down, not 503`);
    if (!service.alive()) fail("the service died while PostgreSQL was down");
    await postgres.start();
    const back = performance.now();
    phase = "after";
    const last: { ready: number | string } = { ready: "none" };
    await until(
      async () => (last.ready = await readiness(url)) === 200,
      5_000,
    );
    const ready = last.ready;
    const recoveryMs = performance.now() - back;
    if (ready !== 200) {
      fail(
        `readiness ${ready} 5 s after PostgreSQL accepted connections again, not 200`,
      );
    }
    if (!await until(() => count("after", "200") >= 10, 20_000)) {
      fail("GET /notes did not answer 200 ten times after the restart");
    }
    const created = await fetch(`${url}/notes`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: "after the restart" }),
      signal: AbortSignal.timeout(10_000),
    });
    await created.body?.cancel();
    if (created.status !== 201) fail(`POST /notes ${created.status} after`);
    loading = false;
    await Promise.all(clients);
    const lost = Object.values(answered).flatMap((statuses) =>
      Object.keys(statuses).filter((key) => key.startsWith("no answer"))
    );
    if (lost.length > 0) fail(`requests went unanswered: ${lost.join("; ")}`);
    if (!service.alive()) fail("the service died after the restart");
    const raw = RAW_DRIVER_ERROR.exec(service.errors());
    if (raw !== null) fail(`a raw driver error reached the output: ${raw[0]}`);
    const show = (at: Phase): string =>
      Object.entries(answered[at]).map(([status, n]) => `${n}×${status}`)
        .join(" ");
    return `readiness 200 ${
      Math.round(recoveryMs)
    } ms after PostgreSQL was back (503 ${
      Math.round(notReadyMs)
    } ms after pg_ctl -m fast stop); GET /notes answered throughout, by when sent: until the stop returned ${
      show("before")
    }, while down ${show("down")}, after the start ${
      show("after")
    }; alive, no raw driver error`;
  } finally {
    loading = false;
    await Promise.all(clients);
  }
}
