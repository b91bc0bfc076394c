// A real redis-server for the caching tests: each test starts its own on an
// ephemeral loopback port, in a temp dir, with persistence off, and stops it
// at the end. When redis-server is not installed the Redis tests are skipped
// with `redisSkip` as the reason (and a warning is printed, loudly).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import process from "node:process";
import { createClient } from "redis";

/** A connected node-redis client, for the tests' own checks. */
export type RawRedisClient = ReturnType<typeof createClient>;

function findRedisServer(): string | undefined {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) =>
    dir !== ""
  );
  for (const dir of [...dirs, "/usr/bin", "/usr/sbin", "/usr/local/bin"]) {
    const candidate = join(dir, "redis-server");
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Path of the redis-server binary, when installed. */
export const redisServerPath: string | undefined = findRedisServer();

/**
 * `false` when redis-server is available, else the reason every Redis test
 * gives to node:test's `skip` option.
 */
export const redisSkip: string | false = redisServerPath === undefined
  ? "redis-server is not installed (apt-get install redis-server; .ci/run does it): Redis tests SKIPPED"
  : false;

if (redisSkip !== false) {
  console.warn(`\n!!!!! ${redisSkip} !!!!!\n`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null
    ? address.port
    : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once("error", () => finish(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    // "+PONG", or "-NOAUTH …" when a password is required: either way it answers.
    socket.once("data", (data: Uint8Array) => {
      const text = new TextDecoder().decode(data);
      finish(text.startsWith("+PONG") || text.startsWith("-NOAUTH"));
    });
  });
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Options of {@linkcode startRedisServer}. */
export interface RedisServerOptions {
  /** Sets `requirepass`. */
  password?: string;
  /**
   * Keeps an append-only file, synced on every write, so that a killed
   * server restarted by `start()` comes back with its data.
   */
  appendOnly?: boolean;
}

/** A running redis-server owned by one test. */
export interface RedisTestServer {
  readonly host: string;
  readonly port: number;
  readonly password: string | undefined;
  /** Kills the server (SIGKILL, as a crash); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  /**
   * Starts it again on the same port: empty, or with the data of its
   * append-only file when started with `appendOnly`.
   */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open, nothing answers. */
  pause(): void;
  /** Thaws it (SIGCONT). */
  resume(): void;
  /** A connected raw node-redis client, closed by `close()`. */
  client(database?: number): Promise<RawRedisClient>;
  /** Stops the server, closes raw clients, removes the temp dir. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts redis-server on a free loopback port and waits until it answers
 * PING.
 */
export async function startRedisServer(
  options: RedisServerOptions = {},
): Promise<RedisTestServer> {
  if (redisServerPath === undefined) throw new Error(String(redisSkip));
  const binary = redisServerPath;
  const dir = await mkdtemp(join(tmpdir(), "kit-redis-"));
  const logFile = join(dir, "redis.log");
  let port = 0;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const clients: RawRedisClient[] = [];

  const launch = async (): Promise<boolean> => {
    const args = [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      options.appendOnly === true ? "yes" : "no",
      ...(options.appendOnly === true ? ["--appendfsync", "always"] : []),
      "--daemonize",
      "no",
      "--logfile",
      logFile,
      ...(options.password === undefined
        ? []
        : ["--requirepass", options.password]),
    ];
    const process = spawn(binary, args, { stdio: "ignore" });
    child = process;
    let dead = false;
    exited = new Promise<void>((resolve) => {
      process.once("exit", () => {
        dead = true;
        resolve();
      });
      process.once("error", () => {
        dead = true;
        resolve();
      });
    });
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (dead) return false;
      if (await ping(port)) return true;
      await delay(25);
    }
    return false;
  };

  const stop = async (): Promise<void> => {
    const current = child;
    child = undefined;
    if (current === undefined) return;
    if (current.exitCode === null && current.signalCode === null) {
      current.kill("SIGKILL");
    }
    await exited;
  };

  const start = async (): Promise<void> => {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (port === 0 || attempt > 0) port = await freePort();
      if (await launch()) return;
      await stop();
    }
    const log = await readFile(logFile, "utf8").catch(() => "(no log)");
    throw new Error(`redis-server did not start:\n${log}`);
  };

  await start();
  const server: RedisTestServer = {
    host: "127.0.0.1",
    get port() {
      return port;
    },
    password: options.password,
    stop,
    // process.kill, not child.kill: Deno's ChildProcess ignores any kill()
    // after the first one, so SIGCONT and the final SIGKILL would be lost.
    pause() {
      if (child?.pid !== undefined) process.kill(child.pid, "SIGSTOP");
    },
    resume() {
      if (child?.pid !== undefined) process.kill(child.pid, "SIGCONT");
    },
    async start() {
      // Same port, so clients configured with it can reconnect.
      if (!(await launch())) {
        await stop();
        throw new Error(`redis-server did not restart on port ${port}`);
      }
    },
    async client(database = 0) {
      const client = createClient({
        socket: { host: "127.0.0.1", port, reconnectStrategy: false },
        password: options.password,
        database,
        disableClientInfo: true,
      });
      client.on("error", () => {});
      await client.connect();
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients.splice(0)) {
        try {
          client.destroy();
        } catch {
          // already closed
        }
      }
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
    [Symbol.asyncDispose]() {
      return this.close();
    },
  };
  return server;
}

/** Waits until `condition()` holds, polling; fails after `timeout` ms. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeout = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeout}ms waiting for ${what}`);
    }
    await delay(10);
  }
}
