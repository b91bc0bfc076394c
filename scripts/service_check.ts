/**
 * The example service's end-to-end check, run by `.ci/run` after
 * the npm passes:
 *
 * 1. **Runtimes**: starts `examples/service` on Deno (`main.ts`), on Node.js
 *    (built from the packed npm packages the way the Dockerfile builds it)
 *    and on Bun (`npm/node_modules/.bin/bun`, installed by the npm passes;
 *    skipped with the reason when absent); on each: time to the first
 *    healthy `GET /health`, a greeting, then SIGTERM with a request in
 *    flight: readiness (`GET /health/ready`) turns 503 while liveness
 *    (`/health/live`) stays 200, the request is answered during the drain,
 *    exit 0 with a last line saying it stopped.
 * 2. **Container**: builds `examples/service/Dockerfile` unchanged with
 *    podman (installed with apt-get when missing, with runc, busybox-static,
 *    redis-server and postgresql), runs the image with the
 *    environment of `docker-compose.yml` against a real `redis-server` and a
 *    real PostgreSQL started here on loopback, waits for the image's own
 *    HEALTHCHECK, calls the routes, stops and restarts Redis and PostgreSQL
 *    under it, and stops it with `podman stop`. No image registry is
 *    reachable on these machines, so the base image `node:20-bookworm-slim`
 *    is a local stand-in made from this machine's Node.js 20 and npm (same
 *    major version); everything above it is the real Dockerfile.
 *
 * Output: `ok: …`, `FAILED: …` and `SKIPPED: <why>` lines, then
 * `service check: N passed, N failed, N skipped`; exit 1 when one failed.
 * `KIT_SERVICE_CHECK=runtimes` or `=container` runs one part.
 *
 * Run: `deno run -A --config deno.dev.json scripts/service_check.ts`
 *
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  buildNodeApp,
  packKit,
  SERVICE_DIR,
} from "../examples/service/tools/pack_kit.ts";
import { readCompose } from "../examples/service/tools/compose.ts";
import {
  BASE_IMAGE,
  containerLogs,
  ensureBaseImage,
  must,
  podman,
  type Ran,
  run,
  ULIMITS,
} from "./_podman.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const IMAGE = "localhost/kit-example-service:check";

// Whether this run packed the Kit packages into examples/service/vendor/.
let packed = false;
let passed = 0;
let failed = 0;
let skipped = 0;

function ok(what: string): void {
  passed++;
  console.log(`ok: ${what}`);
}
function fail(what: string, why: string): void {
  failed++;
  console.log(`FAILED: ${what}: ${why}`);
}
function skip(why: string): void {
  skipped++;
  console.log(`SKIPPED: ${why}`);
}
function check(condition: boolean, what: string, why: string): boolean {
  if (condition) ok(what);
  else fail(what, why);
  return condition;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

interface Answer {
  status: number;
  body: unknown;
}

async function request(
  url: string,
  init: RequestInit = {},
): Promise<Answer | undefined> {
  try {
    const response = await fetch(url, {
      ...init,
      signal: AbortSignal.timeout(5_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, body };
  } catch {
    return undefined;
  }
}

async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeout: number,
  interval = 100,
): Promise<T | undefined> {
  const deadline = Date.now() + timeout;
  while (true) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) return undefined;
    await sleep(interval);
  }
}

function statusOf(answer: Answer | undefined): string | undefined {
  return (answer?.body as { status?: string } | undefined)?.status;
}
function checkStatus(answer: Answer | undefined, name: string): unknown {
  const checks = (answer?.body as { checks?: Record<string, unknown> })
    ?.checks;
  return (checks?.[name] as { status?: string } | undefined)?.status;
}

// The browser page: its HTML names the bundle, and the bundle is served (built
// by `npm run build` for Node.js and the image, in memory on Deno).
async function checkPage(url: string, prefix: string): Promise<void> {
  const page = await request(`${url}/`);
  const script = await request(`${url}/app.js`);
  check(
    page?.status === 200 && typeof page.body === "string" &&
      page.body.includes("app.js") && script?.status === 200 &&
      typeof script.body === "string" && script.body.length > 10_000,
    `${prefix}GET / serves the browser page and /app.js its bundle (${
      Math.round(
        (typeof script?.body === "string" ? script.body.length : 0) /
          1024,
      )
    } KiB)`,
    `/ ${page?.status}, /app.js ${script?.status}`,
  );
}

// --- 1. Runtimes -------------------------------------------------------------

interface Started {
  child: ChildProcess;
  output: () => string;
  url: Promise<string | undefined>;
  exited: Promise<number | null>;
}

function startProcess(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Started {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...env })) {
    if (value !== undefined) merged[key] = value;
  }
  const child = spawn(command, args, {
    cwd,
    env: merged,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let found: (url: string | undefined) => void;
  const url = new Promise<string | undefined>((resolve) => found = resolve);
  const onData = (chunk: Uint8Array): void => {
    output += new TextDecoder().decode(chunk);
    const match = /[Ll]istening on (http:\/\/\S+)/.exec(output);
    if (match) found(match[1]);
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      found(undefined);
      resolve(code);
    })
  );
  return { child, output: () => output, url, exited };
}

/** Start-up times to the first healthy /health, for BENCHMARKS.md. */
const startupTimes: Record<string, number> = {};

async function runtimeCheck(
  name: string,
  command: string,
  args: string[],
  cwd: string,
): Promise<void> {
  const began = performance.now();
  const started = startProcess(command, args, cwd, {
    PORT: "0",
    APP_SERVER__HOST: "127.0.0.1",
    // As behind a load balancer: after SIGTERM, serve on (not ready) 1 s.
    APP_SERVER__DRAIN_DELAY: "1000",
    RUNTIME_ENV: undefined,
    LOG_LEVEL: "info",
    DB_CONNECTION_STRING: undefined,
    REDIS_HOST: undefined,
  });
  try {
    const url = await Promise.race([started.url, sleep(60_000)]);
    if (typeof url !== "string") {
      fail(`${name}: the service starts`, started.output().slice(-2000));
      return;
    }
    const healthy = await waitFor(
      async () => {
        const answer = await request(`${url}/health`);
        return answer?.status === 200 ? answer : undefined;
      },
      20_000,
      20,
    );
    const ms = Math.round(performance.now() - began);
    if (
      !check(
        statusOf(healthy) === "healthy",
        `${name}: GET /health answers 200 healthy, ${ms} ms after the process started`,
        JSON.stringify(healthy?.body),
      )
    ) return;
    startupTimes[name] = ms;
    const hello = await request(`${url}/api/hello?name=Ada`, {
      headers: { "Accept-Language": "de-DE,de;q=0.9" },
    });
    check(
      hello?.status === 200 &&
        (hello.body as { message?: string }).message === "Hallo, Ada!",
      `${name}: GET /api/hello negotiates de-DE`,
      JSON.stringify(hello),
    );
    await checkPage(url, `${name}: `);
    // A POST whose body arrives in two parts with SIGTERM in between: the
    // request in flight must still be answered. process.kill, not
    // child.kill: Deno's child_process reports a signal sent through
    // child.kill as the cause of exit even when the child handled it and
    // exited with its own code.
    const { hostname, port } = new URL(url);
    const probes: Record<string, number | undefined> = {};
    const inFlight = new Promise<number>((resolve) => {
      const post = httpRequest({
        hostname,
        port,
        method: "POST",
        path: "/api/users",
        headers: { "Content-Type": "application/json" },
      }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      });
      post.on("error", () => resolve(0));
      post.write('{"name":"Ada",');
      setTimeout(() => {
        process.kill(started.child.pid!, "SIGTERM");
        setTimeout(async () => {
          for (const path of ["/health/ready", "/health/live"]) {
            probes[path] = (await request(`${url}${path}`))?.status;
          }
          post.end('"email":"ada@example.com"}');
        }, 300);
      }, 300);
    });
    const inFlightStatus = await inFlight;
    check(
      probes["/health/ready"] === 503 && probes["/health/live"] === 200,
      `${name}: while draining, GET /health/ready 503 and /health/live 200`,
      JSON.stringify(probes),
    );
    check(
      inFlightStatus === 201,
      `${name}: a request in flight at SIGTERM is answered (201)`,
      `status ${inFlightStatus}`,
    );
    const code = await Promise.race([started.exited, sleep(10_000)]);
    const lines = started.output().trim().split("\n");
    // The shutdown waits for the drain delay (1 s) and the request above,
    // not for idle keep-alive connections to time out.
    const stoppedIn = Number(
      /stopped in ([\d.]+) ms/.exec(lines[lines.length - 1] ?? "")?.[1] ??
        Infinity,
    );
    check(
      code === 0 && stoppedIn < 3_000,
      `${name}: SIGTERM → exit 0, last line "${
        (lines[lines.length - 1] ?? "").slice(0, 80)
      }"`,
      `exit ${code}; output:\n${started.output().slice(-1500)}`,
    );
  } finally {
    if (started.child.exitCode === null) started.child.kill("SIGKILL");
  }
}

async function runtimes(): Promise<void> {
  console.log("\n--- the example service on Deno, Node.js and Bun");
  await runtimeCheck(
    "deno",
    Deno.execPath(),
    ["run", "-A", "examples/service/main.ts"],
    ROOT,
  );
  const app = await mkdtemp(join(tmpdir(), "kit-service-node-"));
  try {
    try {
      await packKit();
      packed = true;
      await buildNodeApp(app);
      ok(
        "node: the service builds from the packed npm packages (npm install, tsc)",
      );
    } catch (error) {
      fail("node: the service builds", (error as Error).message);
      return;
    }
    await runtimeCheck("node", "node", ["dist/main.js"], app);
    const bun = join(ROOT, "npm", "node_modules", ".bin", "bun");
    if (!existsSync(bun)) {
      skip(
        "bun: npm/node_modules/.bin/bun is missing (scripts/test_npm.ts installs it)",
      );
    } else {
      await runtimeCheck("bun", bun, ["dist/main.js"], app);
    }
  } finally {
    await rm(app, { recursive: true, force: true });
  }
}

// --- 2. Container ------------------------------------------------------------

function installTools(): string | undefined {
  const has = (tool: string): boolean =>
    run("sh", ["-c", `command -v ${tool}`]).code === 0;
  const need = ["podman", "runc", "redis-server"].filter((tool) => !has(tool));
  if (!existsSync("/bin/busybox")) need.push("busybox-static");
  if (!existsSync("/usr/lib/postgresql")) need.push("postgresql");
  if (need.length === 0) return undefined;
  const root = process.getuid?.() === 0;
  if (!root && run("sh", ["-c", "command -v sudo"]).code !== 0) {
    return `${
      need.join(", ")
    } missing and neither root nor sudo is available to install them`;
  }
  const sudo = root ? [] : ["sudo"];
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  console.log(`installing ${need.join(" ")} with apt-get`);
  const update = run(sudo[0] ?? "apt-get", [
    ...(root ? [] : ["apt-get"]),
    "update",
    "-qq",
  ], { env, timeout: 300_000 });
  const install = run(sudo[0] ?? "apt-get", [
    ...(root ? [] : ["apt-get"]),
    "install",
    "-y",
    "-qq",
    "--no-install-recommends",
    ...need,
  ], { env, timeout: 600_000 });
  if (install.code !== 0) {
    return `apt-get install ${need.join(" ")} failed: ${
      (update.stderr + install.stderr).trim().split("\n").slice(-3).join(" ")
    }`;
  }
  // The packaged services are not used: the check starts its own on
  // ephemeral ports.
  for (const service of ["postgresql", "redis-server"]) {
    if (need.includes(service)) {
      run(sudo[0] ?? "service", [
        ...(root ? [] : ["service"]),
        service,
        "stop",
      ]);
    }
  }
  return undefined;
}

class Redis {
  #child: ChildProcess | undefined;
  constructor(readonly port: number, readonly password: string) {}
  async start(): Promise<void> {
    this.#child = spawn("redis-server", [
      "--port",
      String(this.port),
      "--bind",
      "127.0.0.1",
      "--requirepass",
      this.password,
      "--save",
      "",
      "--appendonly",
      "no",
    ], { stdio: "ignore" });
    const up = await waitFor(
      () =>
        run("redis-cli", [
            "-p",
            String(this.port),
            "-a",
            this.password,
            "--no-auth-warning",
            "ping",
          ]).stdout.includes("PONG")
          ? true
          : undefined,
      10_000,
    );
    if (!up) throw new Error(`redis-server did not start on ${this.port}`);
  }
  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

class Postgres {
  readonly #bin: string;
  readonly #data: string;
  constructor(readonly dir: string, readonly port: number) {
    const versions = existsSync("/usr/lib/postgresql")
      ? spawnSync("ls", ["/usr/lib/postgresql"], { encoding: "utf8" }).stdout
        .trim().split("\n").filter(Boolean).sort((a, b) =>
          Number(b) - Number(a)
        )
      : [];
    this.#bin = join("/usr/lib/postgresql", versions[0] ?? "none", "bin");
    this.#data = join(dir, "data");
  }
  static available(): string | undefined {
    if (!existsSync("/usr/lib/postgresql")) {
      return "PostgreSQL is not installed (apt-get install postgresql)";
    }
    if (process.getuid?.() !== 0) {
      return "PostgreSQL must be started as the postgres user, which needs root";
    }
    if (run("id", ["postgres"]).code !== 0) return "no postgres user";
    return undefined;
  }
  #asPostgres(args: string[]): Ran {
    return run("runuser", ["-u", "postgres", "--", ...args], {
      cwd: "/tmp",
      timeout: 60_000,
    });
  }
  async init(user: string, password: string): Promise<void> {
    await chown(this.dir, 101, 104).catch(() => {});
    run("chown", ["-R", "postgres:postgres", this.dir]);
    must(
      this.#asPostgres([
        join(this.#bin, "initdb"),
        "-D",
        this.#data,
        "-U",
        "postgres",
        "--auth-local=trust",
        "--auth-host=scram-sha-256",
        "-E",
        "UTF8",
      ]),
      "initdb",
    );
    this.start();
    const sql = (statement: string): void => {
      must(
        this.#asPostgres([
          "psql",
          "-h",
          this.dir,
          "-p",
          String(this.port),
          "-U",
          "postgres",
          "-v",
          "ON_ERROR_STOP=1",
          "-c",
          statement,
        ]),
        `psql ${statement.split(" ").slice(0, 2).join(" ")}`,
      );
    };
    sql(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
    sql(`CREATE DATABASE kit OWNER ${user}`);
  }
  start(): void {
    must(
      this.#asPostgres([
        join(this.#bin, "pg_ctl"),
        "-D",
        this.#data,
        "-l",
        join(this.dir, "postgres.log"),
        "-w",
        "-o",
        `-p ${this.port} -k ${this.dir} -h 127.0.0.1`,
        "start",
      ]),
      "pg_ctl start",
    );
  }
  stop(): void {
    this.#asPostgres([
      join(this.#bin, "pg_ctl"),
      "-D",
      this.#data,
      "-m",
      "fast",
      "-w",
      "stop",
    ]);
  }
}

function randomSecret(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/** The app service's environment in docker-compose.yml, `${VAR}` filled in. */
async function composeEnvironment(
  variables: Record<string, string>,
): Promise<Record<string, string>> {
  const compose = await readCompose();
  const out: Record<string, string> = {};
  for (
    const [name, value] of Object.entries(
      compose.services.app.environment ?? {},
    )
  ) {
    out[name] = String(value).replace(
      /\$\{(\w+)(?::?[-?][^}]*)?\}/g,
      (_, variable: string) => {
        if (!(variable in variables)) {
          throw new Error(
            `docker-compose.yml uses \${${variable}}: not provided`,
          );
        }
        return variables[variable];
      },
    );
  }
  return out;
}

async function container(): Promise<void> {
  console.log("\n--- the example service's container (podman)");
  const reason = installTools();
  if (reason !== undefined) {
    skip(`container check: ${reason}`);
    return;
  }
  const info = podman(["info", "--format", "{{.Host.OCIRuntime.Name}}"]);
  if (info.code !== 0) {
    skip(
      `container check: podman cannot run here: ${
        info.stderr.trim().split("\n").slice(-2).join(" ")
      }`,
    );
    return;
  }
  if (run("sh", ["-c", "command -v redis-server"]).code !== 0) {
    skip("container check: redis-server is not installed");
    return;
  }
  const noPostgres = Postgres.available();
  if (noPostgres !== undefined) {
    skip(`container check: ${noPostgres}`);
    return;
  }

  const work = await mkdtemp(join(tmpdir(), "kit-service-container-"));
  // PostgreSQL runs as the postgres user, which must reach its folder.
  await chmod(work, 0o755);
  const name = `kit-service-check-${process.pid}`;
  const pg = new Postgres(join(work, "pg"), await freePort());
  await mkdir(pg.dir);
  const redis = new Redis(await freePort(), randomSecret());
  try {
    const base = await ensureBaseImage();
    console.log(
      `base image ${BASE_IMAGE}: ${base} (a local stand-in: no image registry is reachable here; the Dockerfile above it is built unchanged)`,
    );
    if (!packed) await packKit();
    const buildStarted = performance.now();
    const built = podman([
      "build",
      "--pull=never",
      "--format",
      "docker",
      ...ULIMITS,
      "-t",
      IMAGE,
      "-f",
      join(SERVICE_DIR, "Dockerfile"),
      SERVICE_DIR,
    ], 900_000);
    if (
      !check(
        built.code === 0,
        `podman build of examples/service/Dockerfile (${
          Math.round((performance.now() - buildStarted) / 1000)
        } s)`,
        (built.stdout + built.stderr).slice(-3000),
      )
    ) return;
    const inspect = JSON.parse(
      podman(["image", "inspect", IMAGE]).stdout,
    )[0] as {
      Healthcheck?: {
        Test: string[];
        Interval: number;
        Timeout: number;
        StartPeriod: number;
        Retries: number;
      };
      Config: {
        User?: string;
        Env?: string[];
        ExposedPorts?: Record<string, unknown>;
      };
    };
    const healthcheck = inspect.Healthcheck;
    check(
      healthcheck !== undefined &&
        healthcheck.Interval === 30e9 && healthcheck.Timeout === 3e9 &&
        healthcheck.StartPeriod === 5e9 && healthcheck.Retries === 3 &&
        healthcheck.Test.join(" ") === "CMD node dist/healthcheck.js" &&
        inspect.Config.User === "node" &&
        "3000/tcp" in (inspect.Config.ExposedPorts ?? {}) &&
        (inspect.Config.Env ?? []).includes("RUNTIME_ENV=production") &&
        (inspect.Config.Env ?? []).includes("LOG_LEVEL=info"),
      "the image: HEALTHCHECK 30 s/3 s/5 s/3 retries with node dist/healthcheck.js, user node, port 3000, RUNTIME_ENV=production, LOG_LEVEL=info",
      JSON.stringify({ ...inspect.Config, Healthcheck: healthcheck }),
    );

    const dbUser = "kit";
    const dbPassword = randomSecret();
    await pg.init(dbUser, dbPassword);
    await redis.start();
    const port = await freePort();
    const environment = await composeEnvironment({
      DB_USER: dbUser,
      DB_PASSWORD: dbPassword,
      REDIS_PASSWORD: redis.password,
    });
    // The compose file's hosts (db, cache) are this machine's loopback here.
    environment.DB_CONNECTION_STRING = environment.DB_CONNECTION_STRING
      .replace("@db:5432/", `@127.0.0.1:${pg.port}/`);
    environment.REDIS_HOST = "127.0.0.1";
    environment.REDIS_PORT = String(redis.port);
    environment.PORT = String(port);
    const logs = join(work, "logs");
    await mkdir(logs);
    await chmod(logs, 0o777);
    const envArgs = Object.entries(environment).flatMap((
      [key, value],
    ) => ["-e", `${key}=${value}`]);
    const runStarted = performance.now();
    must(
      podman([
        "run",
        "-d",
        "--name",
        name,
        "--network",
        "host",
        ...ULIMITS,
        "-v",
        `${logs}:/app/logs`,
        ...envArgs,
        IMAGE,
      ]),
      "podman run",
    );
    const healthy = await waitFor(
      () => podman(["healthcheck", "run", name]).code === 0 ? true : undefined,
      60_000,
      250,
    );
    const startMs = Math.round(performance.now() - runStarted);
    if (
      !check(
        healthy === true,
        `podman healthcheck run: healthy ${startMs} ms after podman run`,
        podman(["logs", name]).stdout.slice(-3000) +
          podman(["logs", name]).stderr.slice(-3000),
      )
    ) return;
    startupTimes.container = startMs;
    const url = `http://127.0.0.1:${port}`;
    const health = await request(`${url}/health`);
    check(
      health?.status === 200 && statusOf(health) === "healthy" &&
        checkStatus(health, "database") === "healthy" &&
        checkStatus(health, "cache") === "healthy",
      "GET /health: 200 healthy, database and cache checks healthy",
      JSON.stringify(health),
    );
    const live = await request(`${url}/health/live`);
    const ready = await request(`${url}/health/ready`);
    check(
      live?.status === 200 && ready?.status === 200,
      "GET /health/live and /health/ready: 200 (mounted by Kit's server)",
      JSON.stringify({ live, ready }),
    );
    const resource = await request(`${url}/api/localization/en-US.json`);
    check(
      resource?.status === 200 &&
        (resource.body as { hello?: { greeting?: string } }).hello
            ?.greeting === "Hello, {0}!",
      "GET /api/localization/en-US.json: the translation resource",
      JSON.stringify(resource),
    );
    await checkPage(url, "");
    const created = await request(`${url}/api/users`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Ada", email: "ada@example.com" }),
    });
    const id = (created?.body as { id?: string } | undefined)?.id;
    const read = await request(`${url}/api/users/${id}`);
    check(
      created?.status === 201 && read?.status === 200 &&
        (read.body as { name?: string }).name === "Ada",
      "POST /api/users then GET /api/users/:id through PostgreSQL",
      JSON.stringify({ created, read }),
    );

    await redis.stop();
    const degraded = await waitFor(
      async () => {
        const answer = await request(`${url}/health`);
        return checkStatus(answer, "cache") === "degraded" ? answer : undefined;
      },
      15_000,
      200,
    );
    check(
      degraded?.status === 200 && statusOf(degraded) === "degraded",
      "Redis stopped: GET /health 200 degraded",
      JSON.stringify(degraded),
    );
    check(
      podman(["healthcheck", "run", name]).code === 0,
      "Redis stopped: the HEALTHCHECK still passes",
      "podman healthcheck run failed",
    );
    const hello = await request(`${url}/api/hello?name=Ada&culture=fr-FR`);
    check(
      hello?.status === 200,
      "Redis stopped: GET /api/hello still answers (cache misses)",
      JSON.stringify(hello),
    );

    pg.stop();
    const down = await waitFor(
      async () => {
        const answer = await request(`${url}/health`);
        return answer?.status === 503 ? answer : undefined;
      },
      15_000,
      200,
    );
    check(
      down !== undefined && checkStatus(down, "database") === "unhealthy",
      "PostgreSQL stopped: GET /health 503, database unhealthy",
      JSON.stringify(down),
    );
    check(
      podman(["healthcheck", "run", name]).code !== 0,
      "PostgreSQL stopped: the HEALTHCHECK fails",
      "podman healthcheck run passed",
    );

    pg.start();
    await redis.start();
    const back = await waitFor(
      async () => {
        const answer = await request(`${url}/health`);
        return statusOf(answer) === "healthy" ? answer : undefined;
      },
      30_000,
      250,
    );
    check(
      back?.status === 200,
      "Redis and PostgreSQL restarted: GET /health 200 healthy again, same container",
      JSON.stringify(back ?? await request(`${url}/health`)),
    );
    check(
      podman(["healthcheck", "run", name]).code === 0,
      "restarted: the HEALTHCHECK passes again",
      "podman healthcheck run failed",
    );
    const again = await request(`${url}/api/users/${id}`);
    check(
      again?.status === 200,
      "restarted: the user is read again",
      JSON.stringify(again),
    );

    const stopStarted = performance.now();
    const stopped = podman(["stop", "-t", "10", name], 30_000);
    const stopMs = Math.round(performance.now() - stopStarted);
    const exitCode = podman([
      "inspect",
      name,
      "--format",
      "{{.State.ExitCode}}",
    ]).stdout.trim();
    const lines = containerLogs(name);
    const last = lines[lines.length - 1] ?? "";
    check(
      stopped.code === 0 && exitCode === "0" && stopMs < 10_000 &&
        /stopped/i.test(last) && !/SIGKILL/.test(stopped.stderr),
      `podman stop: exit 0 in ${stopMs} ms, last line: ${last.slice(0, 120)}`,
      `exit ${exitCode}; ${stopped.stderr.trim()}; last line: ${last}`,
    );
    const files = await readdir(logs);
    check(
      files.some((file) => file.startsWith("service")),
      `the log folder mounted from the host holds ${files.join(", ")}`,
      `no log file in ${logs}`,
    );
  } catch (error) {
    fail("container check", (error as Error).message);
  } finally {
    podman(["rm", "-f", name]);
    await redis.stop().catch(() => {});
    pg.stop();
    await rm(work, { recursive: true, force: true });
  }
}

const part = process.env.KIT_SERVICE_CHECK;
if (part === undefined || part === "runtimes") await runtimes();
if (part === undefined || part === "container") await container();
if (Object.keys(startupTimes).length > 0) {
  console.log(
    `start-up to the first healthy /health: ${
      Object.entries(startupTimes).map(([name, ms]) => `${name} ${ms} ms`)
        .join(", ")
    }`,
  );
}
console.log(
  `service check: ${passed} passed, ${failed} failed, ${skipped} skipped`,
);
process.exit(failed === 0 ? 0 : 1);
