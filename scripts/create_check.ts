/**
 * Checks the project generator end to end, as a user runs it:
 *
 * - `deno`: `deno task create` from this checkout (Kit linked); the
 *   project's `deno task test`, then `deno run -A main.ts`;
 * - `node-esm`: `deno task create --runtime node` from this checkout (Kit's
 *   packages built and packed into the project's vendor/); `npm install`,
 *   `npm test` (tsc, then node --test), then `node dist/main.js`;
 * - `node-cjs (npm package)`: the generator's npm package, packed, run as
 *   `npm exec --package=<tgz> -- create-kit <folder> --module commonjs` (Kit
 *   at `^` its version, as from the registry); the registry's part is played
 *   by Kit's packed packages (`npm install --no-save <tarballs>`), then
 *   `npm test` and `node dist/main.js`.
 *
 * - `deno --redis --postgres`: the same with a cache and a database, served
 *   against a real redis-server and PostgreSQL 15 (Debian's packages,
 *   started here on free loopback ports); `GET /health` must report both
 *   checks healthy. Skipped, saying why, when either is missing or the
 *   check does not run as root (PostgreSQL runs as its own user).
 *
 * The generator's own sources are type-checked first (`deno check create/`),
 * since no entry point of the test suite imports them.
 *
 * Each started service gets a free port through `PORT`; `GET /health/ready`
 * must answer 200, and SIGTERM must end it with exit code 0. One line per
 * case with the time to generate and run the project's tests, then
 * `create check: N passed, N failed, N skipped`. Every command has a time
 * limit, the whole check a deadline; whatever it started is killed on the
 * way out, and its scratch folder is removed.
 *
 * Run: `deno run -A scripts/create_check.ts`.
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The whole check's deadline. */
const DEADLINE = Date.now() + 10 * 60_000;
/** Output kept per command, for the failure line. */
const OUTPUT_LIMIT = 64 * 1024;

const started = new Set<ChildProcess>();

interface Result {
  code: number | null;
  output: string;
}

/** Runs a command to its end, failing it past `timeoutMs` (or the deadline). */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  timeoutMs = 180_000,
): Promise<Result> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    started.add(child);
    let output = "";
    const keep = (chunk: Uint8Array): void => {
      output = (output + new TextDecoder().decode(chunk)).slice(-OUTPUT_LIMIT);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    const limit = Math.max(1_000, Math.min(timeoutMs, DEADLINE - Date.now()));
    const timer = setTimeout(() => {
      output += `\n(killed after ${Math.round(limit / 1000)} s)`;
      child.kill("SIGKILL");
    }, limit);
    child.on("error", (error) => {
      output += `\n${error.message}`;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      started.delete(child);
      resolvePromise({ code, output });
    });
  });
}

/** A port free on loopback right now. */
function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolvePromise(address.port)
          : reject(new Error("no port"))
      );
    });
  });
}

/** Something that went wrong in a case, with what to look at. */
class CaseFailure extends Error {}

/** A case that cannot run here, with the reason. */
class CaseSkipped extends Error {}

const PG_BIN = "/usr/lib/postgresql/15/bin";

/** Why redis-server and PostgreSQL cannot be started here, if they cannot. */
function whyNoBackends(): string | undefined {
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
  throw new CaseFailure(`${what} did not listen on port ${port} within 10 s`);
}

/** Runs a PostgreSQL program as the postgres user; throws on failure. */
function asPostgres(args: string[]): void {
  const ran = spawnSync("runuser", ["-u", "postgres", "--", ...args], {
    cwd: "/tmp",
    encoding: "utf8",
    timeout: 60_000,
  });
  if (ran.status !== 0) {
    throw new CaseFailure(
      `${args[0]} failed (${
        ran.status ?? ran.signal
      }): ${ran.stdout}${ran.stderr}`,
    );
  }
}

function expectOk(what: string, result: Result): void {
  if (result.code !== 0) {
    throw new CaseFailure(
      `${what} exited with ${result.code}:\n${result.output.slice(-3000)}`,
    );
  }
}

/**
 * Starts the service, waits for `GET /health/ready` to answer 200 (30 s at
 * most), sends SIGTERM and expects exit code 0 within 20 s.
 *
 * @returns The milliseconds from start to the first 200.
 */
async function serveAndStop(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  afterReady: (url: string) => Promise<void> = () => Promise.resolve(),
): Promise<number> {
  const port = await freePort();
  const begin = performance.now();
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let output = "";
  const keep = (chunk: Uint8Array): void => {
    output = (output + new TextDecoder().decode(chunk)).slice(-OUTPUT_LIMIT);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolvePromise) =>
    child.on("close", (code) => {
      started.delete(child);
      resolvePromise(code);
    })
  );
  try {
    let readyMs: number | undefined;
    let last = "no answer";
    while (readyMs === undefined && performance.now() - begin < 30_000) {
      if (child.exitCode !== null) break;
      try {
        const response = await fetch(`http://127.0.0.1:${port}/health/ready`, {
          signal: AbortSignal.timeout(2_000),
        });
        await response.body?.cancel();
        if (response.status === 200) readyMs = performance.now() - begin;
        else last = `status ${response.status}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      if (readyMs === undefined) {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    if (readyMs === undefined) {
      throw new CaseFailure(
        `GET /health/ready never answered 200 (last: ${last}):\n${
          output.slice(-3000)
        }`,
      );
    }
    await afterReady(`http://127.0.0.1:${port}`);
    // process.kill, not child.kill: Deno's child_process reports a child
    // it signalled itself as killed by the signal, whatever its exit code.
    process.kill(child.pid!, "SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const code = await Promise.race([
      exited,
      new Promise<"timeout">((r) => {
        timer = setTimeout(() => r("timeout"), 20_000);
      }),
    ]);
    clearTimeout(timer);
    if (code !== 0) {
      throw new CaseFailure(
        `after SIGTERM the service ${
          code === "timeout" ? "was still running 20 s later" : `exited ${code}`
        }, expected exit code 0:\n${output.slice(-3000)}`,
      );
    }
    return readyMs;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
    }
  }
}

interface CaseReport {
  name: string;
  status: "ok" | "FAILED" | "SKIPPED";
  detail: string;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), "kit-create-check-"));
  // The packages the generator builds go here, not into the checkout's npm/.
  const npmOut = join(scratch, "npm");
  const deno = process.execPath;
  const reports: CaseReport[] = [];
  const attempt = async (
    name: string,
    body: () => Promise<string>,
  ): Promise<void> => {
    if (Date.now() > DEADLINE) {
      reports.push({ name, status: "SKIPPED", detail: "past the deadline" });
      return;
    }
    try {
      reports.push({ name, status: "ok", detail: await body() });
    } catch (error) {
      if (error instanceof CaseSkipped) {
        reports.push({ name, status: "SKIPPED", detail: error.message });
      } else {reports.push({
          name,
          status: "FAILED",
          detail: error instanceof Error ? error.message : String(error),
        });}
    }
    const last = reports.at(-1)!;
    console.log(`${last.status}: ${last.name}: ${last.detail}`);
  };
  const create = (args: string[]): Promise<Result> =>
    run(deno, ["run", "-A", join(ROOT, "create", "main.ts"), ...args], ROOT, {
      INIT_CWD: scratch,
      KIT_NPM_OUT: npmOut,
    });

  try {
    await attempt("the generator's sources type-check", async () => {
      expectOk(
        "deno check create/",
        await run(deno, ["check", "create/"], ROOT),
      );
      return "deno check create/";
    });

    await attempt("deno", async () => {
      const t0 = performance.now();
      expectOk("deno task create deno-app", await create(["deno-app"]));
      const dir = join(scratch, "deno-app");
      const generated = performance.now() - t0;
      expectOk("deno task test", await run(deno, ["task", "test"], dir));
      const tested = performance.now() - t0;
      const ready = await serveAndStop(deno, ["run", "-A", "main.ts"], dir);
      return `generate ${seconds(generated)}, generate + tests ${
        seconds(tested)
      }; ready in ${seconds(ready)}; SIGTERM exit 0`;
    });

    await attempt("node-esm", async () => {
      const t0 = performance.now();
      expectOk(
        "deno task create node-esm --runtime node",
        await create(["node-esm", "--runtime", "node"]),
      );
      const generated = performance.now() - t0;
      const dir = join(scratch, "node-esm");
      expectOk(
        "npm install",
        await run("npm", [
          "install",
          "--no-audit",
          "--no-fund",
          "--loglevel=error",
        ], dir),
      );
      expectOk("npm test", await run("npm", ["test"], dir));
      const tested = performance.now() - t0;
      const ready = await serveAndStop("node", ["dist/main.js"], dir);
      return `generate (Kit's packages built and packed) ${
        seconds(generated)
      }, generate + install + tests ${seconds(tested)}; ready in ${
        seconds(ready)
      }; SIGTERM exit 0`;
    });

    await attempt("node-cjs (npm package)", async () => {
      // The packages the previous case built, or a build of our own.
      const packs = join(scratch, "packs");
      await mkdir(packs, { recursive: true });
      if (!(await readdir(scratch)).includes("npm")) {
        expectOk(
          "scripts/build_npm.ts",
          await run(deno, ["run", "-A", "scripts/build_npm.ts"], ROOT, {
            KIT_NPM_OUT: npmOut,
          }),
        );
      }
      for (
        const dir of [
          "create-kit",
          "kit-core",
          "kit-platform",
          "kit-platform-configuration",
          "kit-platform-logging",
        ]
      ) {
        expectOk(
          `npm pack ${dir}`,
          await run("npm", [
            "pack",
            "--silent",
            "--pack-destination",
            packs,
            join(npmOut, dir),
          ], scratch),
        );
      }
      const tarballs = (await readdir(packs)).sort();
      const generator = tarballs.find((name) => name.includes("create-kit"));
      if (generator === undefined) {
        throw new CaseFailure(`npm pack made no create-kit tarball`);
      }
      const t0 = performance.now();
      expectOk(
        "npm exec create-kit node-cjs --module commonjs",
        await run("npm", [
          "exec",
          "--yes",
          `--package=${join(packs, generator)}`,
          "--",
          "create-kit",
          "node-cjs",
          "--module",
          "commonjs",
        ], scratch),
      );
      const generated = performance.now() - t0;
      const dir = join(scratch, "node-cjs");
      expectOk(
        "npm install (Kit's tarballs in the registry's place)",
        await run("npm", [
          "install",
          "--no-save",
          "--no-audit",
          "--no-fund",
          "--loglevel=error",
          ...tarballs.filter((name) => name !== generator).map((name) =>
            join(packs, name)
          ),
        ], dir),
      );
      expectOk("npm test", await run("npm", ["test"], dir));
      const tested = performance.now() - t0;
      const ready = await serveAndStop("node", ["dist/main.js"], dir);
      return `generate ${seconds(generated)}, generate + install + tests ${
        seconds(tested)
      }; ready in ${seconds(ready)}; SIGTERM exit 0`;
    });
    await attempt("deno --redis --postgres", async () => {
      const why = whyNoBackends();
      if (why !== undefined) throw new CaseSkipped(why);
      const redisPort = await freePort();
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
      started.add(redis);
      redis.on("close", () => started.delete(redis));
      // Its own folder: the scratch folder is for root only, and the
      // postgres user must reach its data directory.
      const pgDir = await mkdtemp(join(tmpdir(), "kit-create-pg-"));
      const postgresUid = Number(
        spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout,
      );
      await chown(pgDir, postgresUid, -1);
      const pgPort = await freePort();
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
        const t0 = performance.now();
        expectOk(
          "deno task create deno-backends --redis --postgres",
          await create(["deno-backends", "--redis", "--postgres"]),
        );
        const dir = join(scratch, "deno-backends");
        expectOk("deno task test", await run(deno, ["task", "test"], dir));
        const tested = performance.now() - t0;
        const ready = await serveAndStop(deno, ["run", "-A", "main.ts"], dir, {
          REDIS_HOST: "127.0.0.1",
          REDIS_PORT: String(redisPort),
          DB_CONNECTION_STRING: `postgres://kit@127.0.0.1:${pgPort}/postgres`,
        }, async (url) => {
          const response = await fetch(`${url}/health`, {
            signal: AbortSignal.timeout(5_000),
          });
          const report = await response.json() as {
            checks?: Record<string, { status?: string }>;
          };
          const cache = report.checks?.cache?.status;
          const database = report.checks?.database?.status;
          if (
            response.status !== 200 || cache !== "healthy" ||
            database !== "healthy"
          ) {
            throw new CaseFailure(
              `GET /health: ${response.status} ${JSON.stringify(report)}`,
            );
          }
        });
        return `generate + tests ${seconds(tested)}; ready in ${
          seconds(ready)
        }; /health: cache (Redis) and database (PostgreSQL) healthy; SIGTERM exit 0`;
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
    });
  } finally {
    for (const child of started) child.kill("SIGKILL");
    await rm(scratch, { recursive: true, force: true });
  }

  const count = (status: CaseReport["status"]): number =>
    reports.filter((report) => report.status === status).length;
  console.log(
    `create check: ${count("ok")} passed, ${count("FAILED")} failed, ${
      count("SKIPPED")
    } skipped`,
  );
  return count("FAILED") > 0 ? 1 : 0;
}

process.exitCode = await main();
