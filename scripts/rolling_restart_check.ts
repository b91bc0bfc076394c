/**
 * A rolling restart of the example service behind a real nginx, under load,
 * run by `.ci/run`:
 *
 * - a `redis-server` on a free loopback port (its own temp folder, no
 *   persistence), the cache the instances share;
 * - three instances of `examples/service` (`deno run -A
 *   examples/service/main.ts`), each on its own loopback port;
 * - nginx from Debian's package in front of them (see
 *   `tests/_support/nginx.ts` for its configuration and why);
 * - a steady load through nginx with autocannon: a fixed rate well below
 *   what the three instances can serve, `GET /api/hello?name=Ada` (a
 *   greeting read from the shared cache);
 * - while it runs, each instance in turn gets SIGTERM, must drain (its
 *   `GET /health/ready` turns 503 at once while `GET /health/live` stays 200
 *   and it keeps serving for `server:drainDelay`, 1 s here), must exit 0, is
 *   started again on its port and must be ready (`GET /health/ready` 200)
 *   before the next one goes; passes repeat while enough of the load is
 *   left.
 *
 * It prints the roll's timeline, `failed requests: N of M` (answers other
 * than 2xx, socket errors and timeouts, as the client saw them through
 * nginx), the p99 latency during the roll, and ends with
 * `rolling restart check: N passed, N failed, N skipped`. It exits 1 unless
 * no request failed, enough requests ran to mean the load really ran, and
 * every instance stopped cleanly and came back. Without nginx or
 * redis-server it prints `SKIPPED: <why>` and exits 0.
 *
 * Everything is bounded in time, and every process it started (nginx with
 * its workers, the instances, redis-server) is killed when it ends, also on
 * failure, on SIGINT/SIGTERM, or when the whole run overruns its bound.
 *
 * Run: `deno run -A --config deno.dev.json scripts/rolling_restart_check.ts`
 * (`KIT_ROLL_SECONDS`, default 30, and `KIT_ROLL_RATE`, default 200
 * requests/s, change the load.)
 *
 * @module
 */
import autocannon from "npm:autocannon@^8.0.0";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  findNginx,
  type RunningNginx,
  startNginx,
} from "../tests/_support/nginx.ts";
import {
  redisServerPath,
  type RedisTestServer,
  startRedisServer,
} from "../tests/caching/_redis_server.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SERVICE_DIR = join(ROOT, "examples", "service");
const INSTANCES = 3;

function setting(
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.log(
      `FAILED: rolling restart check: ${name} must be a whole number from ${min} to ${max}, not ${raw}`,
    );
    finish(0, 1, 0);
  }
  return value;
}

// Long enough for at least one pass of restarts under load.
const SECONDS = setting("KIT_ROLL_SECONDS", 30, 15, 600);
const RATE = setting("KIT_ROLL_RATE", 200, 10, 5_000);
// Few connections at a fixed rate: a steady stream, not a saturation test.
const CONNECTIONS = 10;
const ROUTE = "/api/hello?name=Ada";
// Fewer requests than this means the load did not really run.
const MIN_REQUESTS = Math.floor(RATE * SECONDS * 0.9);
// The load starts before the first SIGTERM, and another pass of restarts
// begins only while at least this much of it is left (or one and a half
// times the last pass, when that took longer), so every restart happens
// under load.
const LEAD_MS = 2_000;
const PASS_BUDGET_MS = 12_000;
// nginx leaves a failed instance out for 1 s (fail_timeout); waiting a
// little longer after an instance is ready lets nginx send it traffic again
// before the next one leaves.
const SETTLE_MS = 1_500;
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
// After SIGTERM an instance keeps serving this long (readiness 503) before
// it stops accepting.
const DRAIN_DELAY_MS = 1_000;
// The whole run, start-up and clean-up included.
const RUN_TIMEOUT_MS = SECONDS * 1000 + 120_000;

const sleep = (ms: number): Promise<void> =>
  new Promise((done) => setTimeout(done, ms));

function finish(passed: number, failed: number, skipped: number): never {
  console.log(
    `rolling restart check: ${passed} passed, ${failed} failed, ${skipped} skipped`,
  );
  process.exit(failed === 0 ? 0 : 1);
}

async function freePort(): Promise<number> {
  return await new Promise((done, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => done(port));
    });
  });
}

async function status(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return undefined;
  }
}

/** One instance of the example service on a fixed port. */
class Instance {
  #child: ChildProcess | undefined;
  #exited: Promise<number | null> = Promise.resolve(null);
  #output = "";

  constructor(
    readonly name: string,
    readonly port: number,
    readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The last lines it printed, for a failure's explanation. */
  get output(): string {
    return this.#output;
  }

  start(): void {
    // Its own process group, so kill() takes whatever it started with it.
    const child = spawn(Deno.execPath(), [
      "run",
      "-A",
      join(SERVICE_DIR, "main.ts"),
    ], {
      cwd: ROOT,
      env: this.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.#child = child;
    this.#output = "";
    const keep = (chunk: Uint8Array): void => {
      this.#output = (this.#output + new TextDecoder().decode(chunk)).slice(
        -4_000,
      );
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    this.#exited = new Promise((done) => {
      child.once("exit", (code) => done(code));
      child.once("error", (error) => {
        keep(new TextEncoder().encode(error.message));
        done(null);
      });
    });
  }

  get running(): boolean {
    const child = this.#child;
    return child !== undefined && child.exitCode === null &&
      child.signalCode === null;
  }

  /** Waits until it is ready: `/health/ready` answers 200. */
  async ready(): Promise<{ ms: number; probe: string } | undefined> {
    const began = performance.now();
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline && this.running) {
      if (await status(`${this.url}/health/ready`) === 200) {
        return { ms: performance.now() - began, probe: "/health/ready" };
      }
      await sleep(50);
    }
    return undefined;
  }

  /**
   * SIGTERM, then what the probes answer while it drains, then waits for
   * the exit; SIGKILL when it does not come.
   */
  async stop(): Promise<
    { code: number | null; ms: number; ready?: number; live?: number }
  > {
    const began = performance.now();
    const pid = this.#child?.pid;
    if (pid === undefined || !this.running) return { code: null, ms: 0 };
    // process.kill, not child.kill: Deno's ChildProcess reports a signal
    // sent through child.kill as the cause of exit even when the child
    // handled it and exited with its own code.
    process.kill(pid, "SIGTERM");
    // Within the drain delay: not ready any more, still alive and serving.
    await sleep(DRAIN_DELAY_MS / 4);
    const ready = await status(`${this.url}/health/ready`);
    const live = await status(`${this.url}/health/live`);
    const code = await Promise.race([
      this.#exited,
      sleep(STOP_TIMEOUT_MS).then(() => "late" as const),
    ]);
    if (code === "late") {
      this.kill();
      return { code: null, ms: performance.now() - began, ready, live };
    }
    return { code, ms: performance.now() - began, ready, live };
  }

  kill(): void {
    const pid = this.#child?.pid;
    if (pid === undefined || !this.running) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

interface Sample {
  at: number;
  ms: number;
  status: number;
}

interface LoadResult {
  "2xx": number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

interface Cannon {
  on(
    event: "response",
    listener: (
      client: unknown,
      status: number,
      bytes: number,
      ms: number,
    ) => void,
  ): void;
  on(event: "reqError", listener: (error: Error) => void): void;
  stop(): void;
}

type Autocannon = (
  options: Record<string, unknown>,
  done: (error: Error | null, result: LoadResult) => void,
) => Cannon;

function p99(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.ceil(sorted.length * 0.99) - 1] * 10) / 10;
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1);

// --- What is needed --------------------------------------------------------

const nginxBinary = findNginx();
if (nginxBinary === undefined) {
  console.log(
    "SKIPPED: rolling restart check: nginx is not installed (apt-get install nginx; .ci/run does it)",
  );
  finish(0, 0, 1);
}
if (redisServerPath === undefined) {
  console.log(
    "SKIPPED: rolling restart check: redis-server is not installed (apt-get install redis-server; .ci/run does it)",
  );
  finish(0, 0, 1);
}

// --- Clean-up, whatever happens ---------------------------------------------

const instances: Instance[] = [];
let nginx: RunningNginx | undefined;
let redis: RedisTestServer | undefined;
let cannon: Cannon | undefined;

async function cleanUp(): Promise<void> {
  cannon?.stop();
  for (const instance of instances) instance.kill();
  await nginx?.close().catch(() => {});
  await redis?.close().catch(() => {});
}

// The last resort when the script ends some other way: synchronous kills of
// the process groups it started.
process.on("exit", () => {
  for (const instance of instances) instance.kill();
  nginx?.kill();
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    console.log(`FAILED: rolling restart check: stopped by ${signal}`);
    void cleanUp().finally(() => finish(0, 1, 0));
  });
}
const overrun = setTimeout(() => {
  console.log(
    `FAILED: rolling restart check: did not finish within ${
      seconds(RUN_TIMEOUT_MS)
    } s`,
  );
  void cleanUp().finally(() => finish(0, 1, 0));
}, RUN_TIMEOUT_MS);

// --- The run ------------------------------------------------------------------

const problems: string[] = [];
let summary: string | undefined;
try {
  redis = await startRedisServer();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  // The settings beside main.ts, a fresh environment of the service's own
  // variables (none inherited from the caller's shell), users in memory.
  for (
    const key of [
      "RUNTIME_ENV",
      "NODE_ENV",
      "APP_ENV",
      "DB_CONNECTION_STRING",
      "REDIS_PASSWORD",
      "REDIS_URL",
    ]
  ) delete env[key];
  Object.assign(env, {
    KIT_CONFIG_PATH: SERVICE_DIR,
    APP_SERVER__HOST: "127.0.0.1",
    REDIS_HOST: "127.0.0.1",
    REDIS_PORT: String(redis.port),
    // No access line per request: the machine's cores go to serving.
    LOG_LEVEL: "warning",
    // After SIGTERM, keep answering (and report not ready) this long before
    // no longer accepting.
    APP_SERVER__DRAIN_DELAY: String(DRAIN_DELAY_MS),
  });
  for (let index = 0; index < INSTANCES; index++) {
    const port = await freePort();
    instances.push(
      new Instance(`instance ${index + 1}`, port, {
        ...env,
        PORT: String(port),
      }),
    );
  }
  for (const instance of instances) instance.start();
  const first = await Promise.all(instances.map((one) => one.ready()));
  first.forEach((ready, index) => {
    if (ready === undefined) {
      throw new Error(
        `${instances[index].name} did not become ready within ${
          seconds(READY_TIMEOUT_MS)
        } s:\n${instances[index].output}`,
      );
    }
  });
  nginx = await startNginx({
    binary: nginxBinary!,
    port: await freePort(),
    upstreams: instances.map((one) => `127.0.0.1:${one.port}`),
  });
  console.log(
    `${nginx.version} on ${nginx.url} in front of ${INSTANCES} instances (${
      instances.map((one) => one.port).join(", ")
    }), redis-server on 127.0.0.1:${redis.port}; ready via ${first[0]!.probe}`,
  );
  const probe = await status(`${nginx.url}${ROUTE}`);
  if (probe !== 200) {
    throw new Error(`GET ${ROUTE} through nginx answered ${probe}`);
  }

  // The load, and every answer's time and status as the client saw it.
  const samples: Sample[] = [];
  const errors = new Map<string, number>();
  const began = performance.now();
  const at = (): number => performance.now() - began;
  const loaded = new Promise<LoadResult>((done, reject) => {
    cannon = (autocannon as unknown as Autocannon)({
      url: `${nginx!.url}${ROUTE}`,
      connections: CONNECTIONS,
      overallRate: RATE,
      duration: SECONDS,
      timeout: 10,
    }, (error, result) => error ? reject(error) : done(result));
    cannon.on("response", (_client, status, _bytes, ms) => {
      samples.push({ at: at(), ms, status });
    });
    cannon.on("reqError", (error) => {
      samples.push({ at: at(), ms: 0, status: 0 });
      errors.set(error.message, (errors.get(error.message) ?? 0) + 1);
    });
  });

  // Awaited after the roll; a failure before then must not go unhandled.
  loaded.catch(() => {});

  // The roll.
  await sleep(LEAD_MS);
  const rollBegan = at();
  let restarts = 0;
  let passes = 0;
  let budget = PASS_BUDGET_MS;
  while (passes === 0 || SECONDS * 1000 - at() > budget) {
    passes++;
    const passBegan = at();
    for (const instance of instances) {
      const sent = at();
      const stopped = await instance.stop();
      if (stopped.ready !== 503 || stopped.live !== 200) {
        problems.push(
          `${instance.name}: while draining, /health/ready answered ${stopped.ready} (503 expected) and /health/live ${stopped.live} (200 expected)`,
        );
      }
      if (stopped.code !== 0) {
        problems.push(
          `${instance.name}: ${
            stopped.code === null
              ? `still running ${seconds(STOP_TIMEOUT_MS)} s after SIGTERM`
              : `exit ${stopped.code} after SIGTERM`
          }:\n${instance.output}`,
        );
      }
      instance.start();
      const ready = await instance.ready();
      if (ready === undefined) {
        problems.push(
          `${instance.name}: not ready within ${
            seconds(READY_TIMEOUT_MS)
          } s of its start:\n${instance.output}`,
        );
        break;
      }
      restarts++;
      console.log(
        `t=${
          seconds(sent)
        } s  ${instance.name}: SIGTERM -> ready ${stopped.ready}, live ${stopped.live} -> exit ${
          stopped.code ?? "(killed)"
        } in ${Math.round(stopped.ms)} ms, started again, ready in ${
          Math.round(ready.ms)
        } ms (${ready.probe})`,
      );
      await sleep(SETTLE_MS);
    }
    if (problems.length > 0) break;
    budget = Math.max(PASS_BUDGET_MS, (at() - passBegan) * 1.5);
  }
  const rollEnded = at();
  if (rollEnded > SECONDS * 1000) {
    problems.push(
      `the roll (${
        seconds(rollEnded - rollBegan)
      } s) outlasted the load (${SECONDS} s): a longer KIT_ROLL_SECONDS is needed here`,
    );
  }

  const result = await loaded;
  cannon = undefined;
  const failed = result.non2xx + result.errors;
  const total = result["2xx"] + failed;
  const during = samples.filter((one) =>
    one.status !== 0 && one.at >= rollBegan && one.at <= rollEnded
  ).map((one) => one.ms);
  const all = samples.filter((one) => one.status !== 0).map((one) => one.ms);
  const access = (await nginx.accessLog()).trim().split("\n").filter(Boolean);
  // "$upstream_addr" lists every instance a request was sent to.
  const retried = access.filter((line) => line.includes(", ")).length;
  const perInstance = instances.map((one) =>
    access.filter((line) => line.includes(`127.0.0.1:${one.port}`)).length
  );
  console.log(
    `load: ${RATE} req/s for ${SECONDS} s over ${CONNECTIONS} connections, GET ${ROUTE}; roll: ${restarts} restarts in ${passes} passes from t=${
      seconds(rollBegan)
    } s to t=${seconds(rollEnded)} s`,
  );
  console.log(
    `nginx: ${retried} requests sent on to another instance; attempts per instance: ${
      perInstance.join(" / ")
    }`,
  );
  console.log(
    `failed requests: ${failed} of ${total} (non-2xx: ${result.non2xx}, socket errors: ${
      result.errors - result.timeouts
    }, timeouts: ${result.timeouts})`,
  );
  console.log(
    `p99 latency during the roll: ${p99(during)} ms (whole run: ${
      p99(all)
    } ms)`,
  );
  if (failed > 0) {
    const codes = Object.entries(result.statusCodeStats)
      .filter(([code]) => !code.startsWith("2"))
      .map(([code, { count }]) => `${code} x${count}`);
    const times = samples.filter((one) => one.status < 200 || one.status > 299)
      .slice(0, 20).map((one) =>
        `t=${seconds(one.at)} s ${one.status || "error"}`
      );
    problems.push(
      `${failed} requests failed: ${
        [...codes, ...[...errors].map(([why, count]) => `${why} x${count}`)]
          .join(", ")
      }; first at ${times.join(", ")}\nnginx error log:\n${
        (await nginx.errorLog()).slice(-3_000)
      }`,
    );
  }
  if (total < MIN_REQUESTS) {
    problems.push(
      `only ${total} requests ran; at ${RATE} req/s for ${SECONDS} s at least ${MIN_REQUESTS} were expected`,
    );
  }
  summary =
    `rolling restart of ${INSTANCES} instances behind nginx: ${failed} of ${total} requests failed, p99 ${
      p99(during)
    } ms during the roll`;
} catch (error) {
  problems.push((error as Error).message);
} finally {
  clearTimeout(overrun);
  await cleanUp();
}

if (problems.length === 0) {
  console.log(`ok: ${summary}`);
  finish(1, 0, 0);
}
for (const problem of problems) {
  console.log(`FAILED: rolling restart check: ${problem}`);
}
finish(0, 1, 0);
