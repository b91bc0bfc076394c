// Which Redis the provider talks to: one server (`host`/`port`), a Redis
// Cluster (`cluster.nodes`) or a primary found through Sentinel
// (`sentinel.name`, `sentinel.nodes`). Checks the options, names the
// topology for messages, and opens the matching connection.
import { RedisClusterConnection } from "./_redis_cluster_connection.ts";
import { RedisConnection } from "./_redis_connection.ts";
import type {
  RedisLink,
  RedisLinkEvents,
  RedisLinkOptions,
  RedisNodeAddress,
} from "./_redis_link.ts";
import { RedisSentinelConnection } from "./_redis_sentinel_connection.ts";
import { hasUnclosedBrace } from "./_redis_slots.ts";
import { quoteValue } from "../../internal/quote_value.ts";
import { shownValue } from "./_shown_value.ts";

/**
 * Makes the error for a topology option that cannot be used: `option` is
 * its name in the provider's options (`cluster.nodes`, `sentinel.name`,
 * `database`, `keyPrefix`).
 */
export type TopologyError = (option: string, message: string) => Error;

/** The topology, checked. */
export type RedisTopology =
  | { kind: "single"; host: string; port: number }
  | { kind: "cluster"; nodes: RedisNodeAddress[] }
  | {
    kind: "sentinel";
    name: string;
    nodes: RedisNodeAddress[];
    password?: string;
  };

/**
 * Nodes from `"host:port,host:port"` or an array of `"host:port"` (an IPv6
 * host in brackets: `[::1]:7000`).
 *
 * @throws {RangeError} Naming `option` and the entry at fault (quoted
 * masked and bounded), made by `fail`.
 */
export function parseNodes(
  option: string,
  value: unknown,
  fail: TopologyError,
): RedisNodeAddress[] {
  const list = typeof value === "string"
    ? value.split(",")
    : Array.isArray(value)
    ? value
    : undefined;
  if (list === undefined) {
    throw fail(
      option,
      `RemoteStoreCacheProvider ${option} must be a list of host:port (an array, or comma-separated): ${
        shownValue(value)
      }`,
    );
  }
  const nodes: RedisNodeAddress[] = [];
  for (const entry of list) {
    const text = typeof entry === "string" ? entry.trim() : "";
    const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(text);
    const port = match === null ? NaN : Number(match[2]);
    if (match === null || !(port >= 1 && port <= 65535)) {
      throw fail(
        option,
        `RemoteStoreCacheProvider ${option} must be a list of host:port (an array, or comma-separated): bad entry ${
          quoteValue(entry)
        }`,
      );
    }
    nodes.push({ host: match[1].replace(/^\[|\]$/g, ""), port });
  }
  if (nodes.length === 0) {
    throw fail(
      option,
      `RemoteStoreCacheProvider ${option} must name at least one host:port`,
    );
  }
  return nodes;
}

/** The options that choose a topology, as the provider receives them. */
export interface TopologyOptions {
  host?: string;
  port: number;
  database: number;
  keyPrefix: string;
  cluster?: { nodes?: unknown };
  sentinel?: { name?: unknown; nodes?: unknown; password?: unknown };
}

/**
 * Checks the topology options.
 *
 * @throws {RangeError} For both `cluster` and `sentinel`, a bad node list,
 * a missing sentinel name, a database other than 0 on a cluster, or a key
 * prefix with an unclosed `{` on a cluster (values quoted masked and
 * bounded), made by `fail`.
 */
export function checkTopology(
  options: TopologyOptions,
  fail: TopologyError,
): RedisTopology {
  const { cluster, sentinel } = options;
  if (cluster !== undefined && sentinel !== undefined) {
    throw fail(
      "cluster",
      "RemoteStoreCacheProvider takes cluster or sentinel, not both",
    );
  }
  if (cluster !== undefined) {
    if (options.database !== 0) {
      throw fail(
        "database",
        `RemoteStoreCacheProvider database must be 0 on a Redis Cluster (a cluster has one database): ${
          shownValue(options.database)
        }`,
      );
    }
    if (hasUnclosedBrace(options.keyPrefix)) {
      throw fail(
        "keyPrefix",
        `RemoteStoreCacheProvider keyPrefix must not hold an unclosed "{" on a Redis Cluster (it would change the slot of lock keys): ${
          shownValue(options.keyPrefix)
        }`,
      );
    }
    return {
      kind: "cluster",
      nodes: parseNodes("cluster.nodes", cluster.nodes, fail),
    };
  }
  if (sentinel !== undefined) {
    const name = sentinel.name;
    if (typeof name !== "string" || name.trim() === "") {
      throw fail(
        "sentinel.name",
        `RemoteStoreCacheProvider sentinel.name must be the name the sentinels monitor the primary under: ${
          shownValue(name)
        }`,
      );
    }
    const password = sentinel.password;
    if (password !== undefined && typeof password !== "string") {
      throw fail(
        "sentinel.password",
        "RemoteStoreCacheProvider sentinel.password must be a string",
      );
    }
    return {
      kind: "sentinel",
      name,
      nodes: parseNodes("sentinel.nodes", sentinel.nodes, fail),
      password: password === "" ? undefined : password,
    };
  }
  return {
    kind: "single",
    host: options.host ?? "localhost",
    port: options.port,
  };
}

/** How messages and health checks name the store. */
export function describeTopology(topology: RedisTopology): string {
  const list = (nodes: RedisNodeAddress[]) =>
    nodes.map((node) =>
      node.host.includes(":")
        ? `[${node.host}]:${node.port}`
        : `${node.host}:${node.port}`
    ).join(", ");
  switch (topology.kind) {
    case "single":
      return `${topology.host}:${topology.port}`;
    case "cluster":
      return `Redis Cluster ${list(topology.nodes)}`;
    case "sentinel":
      return `Redis Sentinel "${topology.name}" ${list(topology.nodes)}`;
  }
}

/** Opens (lazily) the connection of a topology. */
export function createLink(
  topology: RedisTopology,
  options: RedisLinkOptions,
  events: RedisLinkEvents,
): RedisLink {
  switch (topology.kind) {
    case "single":
      return new RedisConnection(
        { ...options, host: topology.host, port: topology.port },
        events,
      );
    case "cluster":
      return new RedisClusterConnection(
        { ...options, nodes: topology.nodes },
        events,
      );
    case "sentinel":
      return new RedisSentinelConnection(
        {
          ...options,
          sentinelName: topology.name,
          sentinels: topology.nodes,
          sentinelPassword: topology.password,
        },
        events,
      );
  }
}
