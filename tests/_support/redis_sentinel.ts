// A real Redis Sentinel set for the tests: one primary, one replica and
// three redis-sentinel processes (quorum 2) on free loopback ports, each
// with its own temp dir and config file (a sentinel rewrites it). Helpers
// kill the primary and wait for the failover. When redis-server,
// redis-sentinel or redis-cli is missing the tests skip with
// `redisSentinelSkip` as the reason.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  cli,
  findBinary,
  type RedisProcess,
  serverArgs,
  skipUnless,
  startOnFreePort,
} from "./redis_process.ts";
import { waitFor } from "./wait_for.ts";

/** The reason to skip the sentinel tests, or `false`. */
export const redisSentinelSkip: string | false = skipUnless("Redis Sentinel", [
  "redis-server",
  "redis-sentinel",
  "redis-cli",
]);

/** The name the sentinels monitor the primary under. */
export const SENTINEL_NAME = "kitprimary";

/** Options of {@linkcode startRedisSentinel}. */
export interface RedisSentinelOptions {
  /** `requirepass` of the primary and replica (and `masterauth`). */
  password?: string;
  /** `requirepass` of the sentinels themselves. */
  sentinelPassword?: string;
  /** `down-after-milliseconds`. Default 1000. */
  downAfter?: number;
}

/** A running sentinel set. */
export interface RedisTestSentinel {
  /** The sentinels' `127.0.0.1:<port>`, for the `sentinel.nodes` option. */
  readonly sentinels: string[];
  /** The data nodes' `127.0.0.1:<port>`. */
  readonly dataNodes: string[];
  readonly name: string;
  /** The primary the sentinels announce now. */
  primary(): Promise<string>;
  /**
   * Kills the current primary (SIGKILL) and waits until the sentinels
   * announce the replica; answers the new primary's address.
   */
  killPrimary(): Promise<string>;
  /** Kills the data node at `address` (SIGKILL); settles once it is dead. */
  kill(address: string): Promise<void>;
  /** Waits until the sentinels announce a primary other than `old`. */
  waitForNewPrimary(old: string): Promise<string>;
  /** Runs redis-cli against a data node. */
  cli(address: string, args: string[]): Promise<string>;
  /** Stops every process and removes the temp dir. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts the set and waits until all three sentinels see both nodes. */
export async function startRedisSentinel(
  options: RedisSentinelOptions = {},
): Promise<RedisTestSentinel> {
  if (redisSentinelSkip !== false) throw new Error(redisSentinelSkip);
  const server = findBinary("redis-server")!;
  const sentinelBinary = findBinary("redis-sentinel")!;
  const dir = await mkdtemp(join(tmpdir(), "kit-redis-sentinel-"));
  const data: RedisProcess[] = [];
  const sentinels: RedisProcess[] = [];
  const close = async (): Promise<void> => {
    await Promise.all([...data, ...sentinels].map((node) => node.kill()));
    await rm(dir, { recursive: true, force: true });
  };
  const auth = options.password === undefined
    ? []
    : ["--requirepass", options.password, "--masterauth", options.password];
  try {
    let primaryPort = 0;
    for (let i = 0; i < 2; i++) {
      const nodeDir = join(dir, `data${i}`);
      await mkdir(nodeDir, { recursive: true });
      const logFile = join(nodeDir, "redis.log");
      const node = await startOnFreePort(
        `sentinel data node ${i}`,
        logFile,
        (node) =>
          node.start(server, [
            ...serverArgs(node.port, nodeDir, logFile),
            "--repl-diskless-sync-delay",
            "0",
            ...auth,
            ...(i === 0
              ? []
              : ["--replicaof", "127.0.0.1", String(primaryPort)]),
          ]),
      );
      data.push(node);
      if (i === 0) primaryPort = node.port;
    }
    await waitFor(
      async () =>
        (await cli(data[1].port, ["INFO", "replication"], options.password))
          .includes("master_link_status:up"),
      "the replica in sync with the primary",
      20_000,
      50,
    );
    for (let i = 0; i < 3; i++) {
      const nodeDir = join(dir, `sentinel${i}`);
      await mkdir(nodeDir, { recursive: true });
      const logFile = join(nodeDir, "sentinel.log");
      sentinels.push(
        await startOnFreePort(`sentinel ${i}`, logFile, async (node) => {
          const conf = join(nodeDir, "sentinel.conf");
          await writeFile(
            conf,
            [
              `port ${node.port}`,
              "bind 127.0.0.1",
              `dir ${nodeDir}`,
              `logfile ${join(nodeDir, "sentinel.log")}`,
              `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primaryPort} 2`,
              `sentinel down-after-milliseconds ${SENTINEL_NAME} ${
                options.downAfter ?? 1000
              }`,
              `sentinel failover-timeout ${SENTINEL_NAME} 10000`,
              `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
              ...(options.password === undefined
                ? []
                : [`sentinel auth-pass ${SENTINEL_NAME} ${options.password}`]),
              ...(options.sentinelPassword === undefined ? [] : [
                `requirepass ${options.sentinelPassword}`,
                `sentinel sentinel-pass ${options.sentinelPassword}`,
              ]),
              "",
            ].join("\n"),
          );
          return await node.start(sentinelBinary, [conf]);
        }),
      );
    }
    await waitFor(
      async () => {
        const views = await Promise.all(sentinels.map((node) =>
          cli(
            node.port,
            ["SENTINEL", "MASTER", SENTINEL_NAME],
            options.sentinelPassword,
          )
        ));
        return views.every((view) => {
          const lines = view.trim().split("\n");
          const field = (name: string) => lines[lines.indexOf(name) + 1];
          return field("num-slaves") === "1" &&
            field("num-other-sentinels") === "2" &&
            field("flags") === "master";
        });
      },
      "three sentinels that see the primary, its replica and each other",
      20_000,
      50,
    );
  } catch (error) {
    await close();
    throw error;
  }

  const primary = async (): Promise<string> => {
    for (const node of sentinels) {
      const text = await cli(
        node.port,
        ["SENTINEL", "GET-MASTER-ADDR-BY-NAME", SENTINEL_NAME],
        options.sentinelPassword,
      );
      const [host, port] = text.trim().split("\n");
      if (port !== undefined) return `${host}:${port}`;
    }
    throw new Error("no sentinel answered");
  };
  const set: RedisTestSentinel = {
    sentinels: sentinels.map((node) => `127.0.0.1:${node.port}`),
    dataNodes: data.map((node) => `127.0.0.1:${node.port}`),
    name: SENTINEL_NAME,
    primary,
    async kill(address) {
      const victim = data.find((node) => `127.0.0.1:${node.port}` === address);
      if (victim === undefined) throw new Error(`no data node at ${address}`);
      await victim.kill();
    },
    async waitForNewPrimary(old) {
      let now = old;
      await waitFor(
        async () => {
          now = await primary();
          if (now === old) return false;
          const port = Number(now.split(":")[1]);
          return (await cli(port, ["INFO", "replication"], options.password))
            .includes("role:master");
        },
        `the sentinels to promote a replica after ${old}`,
        30_000,
        50,
      );
      return now;
    },
    async killPrimary() {
      const before = await primary();
      await set.kill(before);
      return await set.waitForNewPrimary(before);
    },
    cli: (address, args) =>
      cli(Number(address.split(":")[1]), args, options.password),
    close,
    [Symbol.asyncDispose]: close,
  };
  return set;
}
