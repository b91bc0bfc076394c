// A real PostgreSQL (Debian's packages) for the database tests, and
// PgBouncer in front of it: each fixture runs its own server process on a
// free loopback port with its own data folder, so a test can stop it
// (`pg_ctl -m fast stop` is SIGINT to the server), start it again on the
// same port and data, or kill it. The server trusts the user `kit` on
// loopback, so any password in a test's URL is accepted (and must never be
// printed). As root, the programs run as the `postgres` user (initdb and
// PgBouncer refuse root); a folder made by initdb once is copied for each
// server, which is faster than initdb each time.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import {
  cp,
  mkdir,
  mkdtemp,
  readFile,
  rename,
  rm,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { freePort } from "./redis_process.ts";
import { waitFor } from "./wait_for.ts";

/** The folder of PostgreSQL's programs, when installed. */
function binFolder(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = join(root, version, "bin");
    if (existsSync(join(bin, "initdb"))) return bin;
  }
  return undefined;
}

const BIN = binFolder();
const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((path) =>
  existsSync(path)
);
const ROOT = process.getuid?.() === 0;

/**
 * `false` when PostgreSQL can be started here, else the reason a test
 * gives to node:test's `skip` option (printed once, loudly).
 */
export function skipUnlessPostgres(withPgBouncer = false): string | false {
  let missing: string | undefined;
  if (BIN === undefined) missing = "postgresql";
  else if (withPgBouncer && PGBOUNCER === undefined) missing = "pgbouncer";
  else if (
    ROOT && spawnSync("id", ["-u", "postgres"]).status !== 0
  ) missing = "the postgres user";
  if (missing === undefined) return false;
  const reason =
    `${missing} not installed (apt-get install postgresql pgbouncer; .ci/run does it): database tests SKIPPED`;
  console.warn(`\n!!!!! ${reason} !!!!!\n`);
  return reason;
}

/** Runs a program as the postgres user when root, else as is. */
function command(program: string, args: string[]): [string, string[]] {
  return ROOT
    ? [
      "setpriv",
      [
        "--reuid=postgres",
        "--regid=postgres",
        "--init-groups",
        "--",
        program,
        ...args,
      ],
    ]
    : [program, args];
}

function giveToPostgres(path: string): void {
  if (ROOT) spawnSync("chown", ["-R", "postgres:postgres", path]);
}

// initdb once per machine and PostgreSQL version: the data folder every
// fixture copies. Made in a folder of its own and renamed into place, so
// two processes making it at once both end with a whole one.
async function template(): Promise<string> {
  const path = join(tmpdir(), `kit-test-pg-template-${BIN!.split("/").at(-2)}`);
  if (existsSync(join(path, "PG_VERSION"))) return path;
  const work = await mkdtemp(join(tmpdir(), "kit-test-pg-initdb-"));
  spawnSync("chmod", ["755", work]);
  const data = join(work, "data");
  giveToPostgres(work);
  const [program, args] = command(join(BIN!, "initdb"), [
    "-D",
    data,
    "-U",
    "kit",
    "--auth=trust",
    "--no-sync",
    "-E",
    "UTF8",
    "--locale=C",
  ]);
  const made = spawnSync(program, args, { encoding: "utf8", timeout: 120_000 });
  if (made.status !== 0) {
    throw new Error(`initdb failed: ${made.stderr}${made.stdout}`);
  }
  await rename(data, path).catch((error) => {
    // Another process won the race: use its folder.
    if (!existsSync(join(path, "PG_VERSION"))) throw error;
  });
  await rm(work, { recursive: true, force: true });
  return path;
}

// Servers and poolers still running when the process exits (a test that
// crashed, a bench ended by its runner) are killed with it.
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

function track(child: ChildProcess): void {
  running.add(child);
  child.once("exit", () => running.delete(child));
}

/** One running PostgreSQL server. */
export class PostgresServer {
  /** Its loopback port. */
  readonly port: number;
  /** Its folder (data and log). */
  readonly dir: string;
  readonly #settings: string[];
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();

  constructor(port: number, dir: string, settings: Record<string, string>) {
    this.port = port;
    this.dir = dir;
    this.#settings = Object.entries(settings).flatMap(([name, value]) => [
      "-c",
      `${name}=${value}`,
    ]);
  }

  /** `postgres://kit[:password]@127.0.0.1:<port>/<database>`. */
  url(database = "postgres", password?: string): string {
    const user = password === undefined ? "kit" : `kit:${password}`;
    return `postgres://${user}@127.0.0.1:${this.port}/${database}`;
  }

  /** Whether the server process runs. */
  get running(): boolean {
    const child = this.#child;
    return child !== undefined && child.exitCode === null &&
      child.signalCode === null;
  }

  /** Starts the server (again) and waits until it accepts connections. */
  async start(): Promise<void> {
    const [program, args] = command(join(BIN!, "postgres"), [
      "-D",
      join(this.dir, "data"),
      "-p",
      String(this.port),
      "-k",
      this.dir,
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "fsync=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "synchronous_commit=off",
      ...this.#settings,
    ]);
    const child = spawn(program, args, {
      stdio: ["ignore", "ignore", "pipe"],
    });
    this.#child = child;
    track(child);
    let log = "";
    child.stderr!.on("data", (chunk: Uint8Array) => {
      if (log.length < 64_000) log += new TextDecoder().decode(chunk);
    });
    this.#exited = new Promise((resolve) =>
      child.once("exit", () => resolve())
    );
    await waitFor(
      () => !this.running || this.ready(),
      `PostgreSQL on port ${this.port}`,
      60_000,
      50,
    );
    if (!this.running) throw new Error(`PostgreSQL did not start:\n${log}`);
  }

  /** `true` when the server accepts connections (pg_isready). */
  ready(): boolean {
    const answer = spawnSync(
      join(BIN!, "pg_isready"),
      ["-h", "127.0.0.1", "-p", String(this.port), "-U", "kit", "-t", "2"],
      { timeout: 5_000 },
    );
    return answer.status === 0;
  }

  /**
   * Stops the server: `fast` as `pg_ctl -m fast stop` (SIGINT: sessions
   * are ended, "terminating connection due to administrator command"),
   * `immediate` (SIGQUIT), or `kill` (SIGKILL, a crash).
   */
  async stop(mode: "fast" | "immediate" | "kill" = "fast"): Promise<void> {
    const child = this.#child;
    if (child === undefined || !this.running) return;
    child.kill(
      mode === "fast" ? "SIGINT" : mode === "immediate" ? "SIGQUIT" : "SIGKILL",
    );
    const exited = this.#exited;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          resolve();
        }, 30_000);
      }),
    ]);
    clearTimeout(timer);
    await exited;
  }

  /** Runs SQL through psql and answers its unaligned output. */
  sql(text: string, database = "postgres"): string {
    const ran = spawnSync(
      join(BIN!, "psql"),
      [
        "-h",
        "127.0.0.1",
        "-p",
        String(this.port),
        "-U",
        "kit",
        "-d",
        database,
        "-At",
        "-v",
        "ON_ERROR_STOP=1",
        "-c",
        text,
      ],
      { encoding: "utf8", timeout: 30_000 },
    );
    if (ran.status !== 0) {
      throw new Error(`psql failed: ${ran.stderr}`);
    }
    return ran.stdout.trim();
  }

  /** Stops the server and removes its folder. */
  async close(): Promise<void> {
    await this.stop("immediate");
    await rm(this.dir, { recursive: true, force: true });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Starts a PostgreSQL server on a free loopback port, with its own copy of
 * the template data folder and the given settings (`max_connections`…).
 */
export async function startPostgres(
  settings: Record<string, string> = {},
): Promise<PostgresServer> {
  const source = await template();
  const dir = await mkdtemp(join(tmpdir(), "kit-test-pg-"));
  spawnSync("chmod", ["755", dir]);
  await cp(source, join(dir, "data"), { recursive: true });
  spawnSync("chmod", ["700", join(dir, "data")]);
  giveToPostgres(dir);
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const server = new PostgresServer(await freePort(), dir, settings);
    try {
      await server.start();
      return server;
    } catch (error) {
      // The port was taken in between: another one.
      last = error;
      await server.stop("kill");
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw last;
}

/** One running PgBouncer in front of a PostgresServer. */
export class PgBouncer {
  readonly port: number;
  readonly dir: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;

  constructor(port: number, dir: string, child: ChildProcess) {
    this.port = port;
    this.dir = dir;
    this.#child = child;
    this.#exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
  }

  /** `postgres://kit[:password]@127.0.0.1:<pgbouncer port>/<database>`. */
  url(database = "postgres", password?: string): string {
    const user = password === undefined ? "kit" : `kit:${password}`;
    return `postgres://${user}@127.0.0.1:${this.port}/${database}`;
  }

  /** PgBouncer's log so far. */
  log(): Promise<string> {
    return readFile(join(this.dir, "pgbouncer.log"), "utf8").catch(() => "");
  }

  async close(): Promise<void> {
    this.#child.kill("SIGKILL");
    await this.#exited;
    await rm(this.dir, { recursive: true, force: true });
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * Starts PgBouncer in `poolMode` (transaction by default) on a free port in
 * front of `server`, trusting the user `kit`.
 */
export async function startPgBouncer(
  server: PostgresServer,
  options: { poolMode?: "transaction" | "session"; poolSize?: number } = {},
): Promise<PgBouncer> {
  const dir = await mkdtemp(join(tmpdir(), "kit-test-pgbouncer-"));
  spawnSync("chmod", ["755", dir]);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "userlist.txt"), `"kit" ""\n`);
  let last = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    await writeFile(
      join(dir, "pgbouncer.ini"),
      [
        "[databases]",
        `* = host=127.0.0.1 port=${server.port}`,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        `listen_port = ${port}`,
        "unix_socket_dir =",
        "auth_type = trust",
        `auth_file = ${join(dir, "userlist.txt")}`,
        `pool_mode = ${options.poolMode ?? "transaction"}`,
        `default_pool_size = ${options.poolSize ?? 5}`,
        "max_client_conn = 500",
        // pg sends these at start-up; PgBouncer passes on only a few.
        "ignore_startup_parameters = extra_float_digits",
        `logfile = ${join(dir, "pgbouncer.log")}`,
        "",
      ].join("\n"),
    );
    giveToPostgres(dir);
    const [program, args] = command(PGBOUNCER!, [join(dir, "pgbouncer.ini")]);
    const child = spawn(program, args, { stdio: ["ignore", "ignore", "pipe"] });
    track(child);
    let stderr = "";
    child.stderr!.on("data", (chunk: Uint8Array) => {
      if (stderr.length < 16_000) stderr += new TextDecoder().decode(chunk);
    });
    const bouncer = new PgBouncer(port, dir, child);
    const up = await waitFor(
      () =>
        child.exitCode !== null ||
        spawnSync(
            join(BIN!, "pg_isready"),
            ["-h", "127.0.0.1", "-p", String(port), "-U", "kit", "-t", "2"],
            { timeout: 5_000 },
          ).status === 0,
      `PgBouncer on port ${port}`,
      30_000,
      50,
    ).then(() => child.exitCode === null, () => false);
    if (up) return bouncer;
    last = stderr + await bouncer.log();
    child.kill("SIGKILL");
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`PgBouncer did not start:\n${last}`);
}
