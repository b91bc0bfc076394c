// A real Redis Cluster for the tests: six redis-server processes on free
// loopback ports (three primaries, one replica each), joined by
// `redis-cli --cluster create … --cluster-replicas 1 --cluster-yes`, ready
// once every node reports `cluster_state:ok`. Persistence is off; each node
// has its own temp dir. When redis-server or redis-cli is missing the tests
// skip with `redisClusterSkip` as the reason.
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  cli,
  findBinary,
  freePort,
  type RedisProcess,
  serverArgs,
  skipUnless,
  startOnFreePort,
} from "./redis_process.ts";
import { waitFor } from "./wait_for.ts";

/** The reason to skip the cluster tests, or `false`. */
export const redisClusterSkip: string | false = skipUnless("Redis Cluster", [
  "redis-server",
  "redis-cli",
]);

/** One node of the test cluster. */
export interface ClusterNode {
  readonly port: number;
  /** `host:port`, as the cluster announces it. */
  readonly address: string;
  readonly running: boolean;
}

/** A running test cluster. */
export interface RedisTestCluster {
  readonly nodes: readonly ClusterNode[];
  /** `127.0.0.1:<port>` of every node, for the `cluster.nodes` option. */
  readonly addresses: string[];
  /** The addresses of the current primaries (as the cluster reports them). */
  primaries(): Promise<string[]>;
  /** The primary serving `key`'s slot. */
  primaryOf(key: string): Promise<string>;
  /**
   * The primary serving each key's slot, in order: one redis-cli session for
   * all the keys (a key may hold any character, NUL included).
   */
  primariesOf(keys: readonly string[]): Promise<string[]>;
  /**
   * Kills the primary at `address` (SIGKILL) and waits until its replica
   * took over and the cluster is `ok` again.
   */
  killPrimary(address: string): Promise<void>;
  /** Kills the node at `address` (SIGKILL) without waiting for anything. */
  kill(address: string): Promise<void>;
  /**
   * Waits until a replica took over from the primary at `address` and every
   * running node (not paused) says `cluster_state:ok`.
   */
  waitForTakeover(address: string): Promise<void>;
  /**
   * Freezes the node at `address` (SIGSTOP): its sockets stay open, silent.
   * The fixture asks the other nodes until it is resumed.
   */
  pause(address: string): void;
  /** Thaws it (SIGCONT). */
  resume(address: string): void;
  /**
   * Waits until every replica acknowledged its primary's whole replication
   * stream: what a primary killed afterwards had, its replica has.
   */
  replicasInSync(): Promise<void>;
  /** Runs redis-cli on a node (`-c` follows redirections). */
  cli(port: number, args: string[]): Promise<string>;
  /** Stops every node and removes the temp dir. */
  close(): Promise<void>;
  /** The same, synchronously (for an `unload` handler). */
  killNow(): void;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@linkcode startRedisCluster}. */
export interface RedisClusterOptions {
  /** `cluster-node-timeout`, how soon a silent primary fails over. Default 1000. */
  nodeTimeout?: number;
  /**
   * `cluster-require-full-coverage`: with `true` (Redis's default) every
   * node refuses every key (`CLUSTERDOWN`) while a failed primary's slots
   * wait for its replica; with `false` the other primaries keep serving.
   */
  requireFullCoverage?: boolean;
}

/** Starts a six-node cluster and waits until it is `ok`. */
export async function startRedisCluster(
  options: RedisClusterOptions = {},
): Promise<RedisTestCluster> {
  if (redisClusterSkip !== false) throw new Error(redisClusterSkip);
  const server = findBinary("redis-server")!;
  const dir = await mkdtemp(join(tmpdir(), "kit-redis-cluster-"));
  const nodes: RedisProcess[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(nodes.map((node) => node.kill()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) {
      const nodeDir = join(dir, String(i));
      await mkdir(nodeDir, { recursive: true });
      const logFile = join(nodeDir, "redis.log");
      nodes.push(
        await startOnFreePort(
          `cluster node ${i}`,
          logFile,
          async (node) =>
            node.start(server, [
              ...serverArgs(node.port, nodeDir, logFile),
              "--cluster-port",
              String(await freePort()),
              "--cluster-enabled",
              "yes",
              "--cluster-config-file",
              join(nodeDir, "nodes.conf"),
              "--cluster-node-timeout",
              String(options.nodeTimeout ?? 1000),
              // Replicas sync at once: a replica that never synced does not
              // take over from a primary killed right after the start.
              "--repl-diskless-sync-delay",
              "0",
              "--cluster-require-full-coverage",
              options.requireFullCoverage === false ? "no" : "yes",
            ]),
        ),
      );
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    const created = await cliLong([
      "--cluster",
      "create",
      ...addresses,
      "--cluster-replicas",
      "1",
      "--cluster-yes",
    ]);
    if (!created.ok) {
      throw new Error(`redis-cli --cluster create failed:\n${created.output}`);
    }
    await waitFor(
      async () =>
        (await Promise.all(nodes.map((node) => clusterOk(node.port)))).every(
          Boolean,
        ),
      "cluster_state:ok on every node",
      20_000,
      50,
    );
    await waitFor(
      async () => {
        const infos = await Promise.all(
          nodes.map((node) => cli(node.port, ["INFO", "replication"])),
        );
        const replicas = infos.filter((info) => info.includes("role:slave"));
        return replicas.length === 3 &&
          replicas.every((info) => info.includes("master_link_status:up"));
      },
      "every replica in sync with its primary",
      20_000,
      50,
    );
  } catch (error) {
    await close();
    throw error;
  }

  /** The nodes frozen by pause(), which answer nothing. */
  const paused = new Set<RedisProcess>();
  const answering = () =>
    nodes.filter((node) => node.running && !paused.has(node));
  // CLUSTER NODES: "<id> <host:port@bus> <flags> <master id> … <slots…>".
  const masterLines = async (): Promise<string[][]> => {
    for (const node of answering()) {
      const text = await cli(node.port, ["CLUSTER", "NODES"]);
      if (text === "") continue;
      return text.trim().split("\n").map((line) => line.split(" ")).filter((
        fields,
      ) => {
        const flags = (fields[2] ?? "").split(",");
        return flags.includes("master") && !flags.includes("fail") &&
          !flags.includes("fail?") && fields.length > 8;
      });
    }
    return [];
  };
  const primaries = async (): Promise<string[]> =>
    (await masterLines()).map((fields) => fields[1].split("@")[0]);
  const nodeAt = (address: string): RedisProcess => {
    const node = nodes.find((node) => `127.0.0.1:${node.port}` === address);
    if (node === undefined) throw new Error(`no node at ${address}`);
    return node;
  };
  const cluster: RedisTestCluster = {
    nodes: nodes.map((node) => ({
      port: node.port,
      address: `127.0.0.1:${node.port}`,
      get running() {
        return node.running;
      },
    })),
    addresses: nodes.map((node) => `127.0.0.1:${node.port}`),
    primaries,
    async primaryOf(key) {
      const live = answering()[0];
      const slot = Number(
        (await cli(live.port, ["CLUSTER", "KEYSLOT", key])).trim(),
      );
      for (const fields of await masterLines()) {
        for (const range of fields.slice(8)) {
          const [from, to = from] = range.split("-").map(Number);
          if (from <= slot && slot <= to) return fields[1].split("@")[0];
        }
      }
      throw new Error(`no primary found for slot ${slot}`);
    },
    async primariesOf(keys) {
      const live = answering()[0];
      const lines = (await session(
        live.port,
        keys.map((key) => ["CLUSTER", "KEYSLOT", quote(key)]),
      )).trim().split("\n");
      if (lines.length !== keys.length) {
        throw new Error(`CLUSTER KEYSLOT answered ${lines.length} lines`);
      }
      const ranges = (await masterLines()).flatMap((fields) =>
        fields.slice(8).filter((range) => !range.startsWith("[")).map(
          (range) => {
            const [from, to = from] = range.split("-").map(Number);
            return { from, to, address: fields[1].split("@")[0] };
          },
        )
      );
      return lines.map((line) => {
        const slot = Number(line.trim());
        const range = ranges.find((r) => r.from <= slot && slot <= r.to);
        if (range === undefined) throw new Error(`no primary for ${slot}`);
        return range.address;
      });
    },
    async killPrimary(address) {
      await cluster.kill(address);
      await cluster.waitForTakeover(address);
    },
    async kill(address) {
      await nodeAt(address).kill();
    },
    async waitForTakeover(address) {
      await waitFor(
        async () => {
          const now = await primaries();
          if (now.includes(address) || now.length < 3) return false;
          const live = answering();
          return (await Promise.all(live.map((node) => clusterOk(node.port))))
            .every(Boolean);
        },
        `a replica to take over from ${address}`,
        20_000,
        50,
      );
    },
    pause(address) {
      const node = nodeAt(address);
      paused.add(node);
      node.pause();
    },
    resume(address) {
      const node = nodeAt(address);
      node.resume();
      paused.delete(node);
    },
    async replicasInSync() {
      await waitFor(
        async () => {
          for (const address of await primaries()) {
            const text = await cli(Number(address.split(":")[1]), [
              "INFO",
              "replication",
            ]);
            const primary = /master_repl_offset:(\d+)/.exec(text)?.[1];
            const replicas = [...text.matchAll(/^slave\d+:.*offset=(\d+)/gm)];
            if (primary === undefined || replicas.length === 0) return false;
            if (replicas.some((match) => match[1] !== primary)) return false;
          }
          return true;
        },
        "every replica in sync with its primary",
        20_000,
        50,
      );
    },
    cli: (port, args) => cli(port, args),
    close,
    killNow() {
      for (const node of nodes) node.killNow();
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    },
    [Symbol.asyncDispose]: close,
  };
  return cluster;
}

async function clusterOk(port: number): Promise<boolean> {
  return (await cli(port, ["CLUSTER", "INFO"])).includes("cluster_state:ok");
}

/**
 * Runs `commands` in one redis-cli session on 127.0.0.1:`port` (arguments
 * already quoted for redis-cli) and answers its output; empty after 10 s or
 * on failure.
 */
function session(port: number, commands: string[][]): Promise<string> {
  return new Promise((resolve) => {
    const child = execFile(
      findBinary("redis-cli") ?? "redis-cli",
      ["-h", "127.0.0.1", "-p", String(port)],
      { timeout: 10_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => resolve(error === null ? String(stdout) : ""),
    );
    child.stdin?.end(commands.map((args) => args.join(" ")).join("\n") + "\n");
  });
}

/** A redis-cli argument in double quotes, control characters escaped. */
function quote(text: string): string {
  return `"${
    text.replace(/[\\"]/g, "\\$&").replace(
      // deno-lint-ignore no-control-regex
      /[\x00-\x1f\x7f]/g,
      (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    )
  }"`;
}

/** `redis-cli --cluster create` takes longer than one command: 60 s. */
function cliLong(args: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      findBinary("redis-cli") ?? "redis-cli",
      args,
      { timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ ok: error === null, output: `${stdout}${stderr}` }),
    );
  });
}
