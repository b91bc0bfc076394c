// A real redis-server for the caching tests: each test starts its own on an
// ephemeral loopback port, in a temp dir, with persistence off, and stops it
// at the end. When redis-server is not installed the Redis tests are skipped
// with `redisSkip` as the reason (and a warning is printed, loudly).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import {
  findBinary,
  type RedisProcess,
  serverArgs,
  startOnFreePort,
} from "../_support/redis_process.ts";

export { waitFor } from "../_support/wait_for.ts";

/** A connected node-redis client, for the tests' own checks. */
export type RawRedisClient = ReturnType<typeof createClient>;

/** Path of the redis-server binary, when installed. */
export const redisServerPath: string | undefined = findBinary("redis-server");

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
  const clients: RawRedisClient[] = [];
  const launch = (node: RedisProcess): Promise<boolean> =>
    node.start(binary, [
      ...serverArgs(node.port, dir, logFile, options.appendOnly === true),
      ...(options.appendOnly === true ? ["--appendfsync", "always"] : []),
      "--daemonize",
      "no",
      ...(options.password === undefined
        ? []
        : ["--requirepass", options.password]),
    ]);
  let node: RedisProcess;
  try {
    node = await startOnFreePort("redis-server", logFile, launch);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const stop = (): Promise<void> => node.kill();

  const server: RedisTestServer = {
    host: "127.0.0.1",
    get port() {
      return node.port;
    },
    password: options.password,
    stop,
    pause: () => node.pause(),
    resume: () => node.resume(),
    async start() {
      // Same port, so clients configured with it can reconnect.
      if (!(await launch(node))) {
        await stop();
        throw new Error(`redis-server did not restart on port ${node.port}`);
      }
    },
    async client(database = 0) {
      const client = createClient({
        socket: {
          host: "127.0.0.1",
          port: node.port,
          reconnectStrategy: false,
        },
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
