// The Redis check of `--connect`, for the three ways the cache reaches Redis:
// one server (`cache:redis:host`), a Redis Cluster
// (`cache:redis:cluster:nodes`) or the primary Sentinel names
// (`cache:redis:sentinel:*`). Each probe is a raw RESP exchange over
// node:net (AUTH with the configured password when there is one, then PING)
// under the timeout; nothing is read or written in the store. The topology
// is chosen as the cache provider's `fromConfiguration` chooses it: cluster
// or sentinel replace host and port, and both at once is an error.
import { describeNetworkError } from "../../internal/delivery/network_error.ts";
import {
  type ConfigurationManager,
  kitConfigurationSections,
} from "../../config/mod.ts";
import { REDIS, variableAndKey } from "./declared.ts";
import { type Check, rememberSecret } from "./report.ts";
import {
  command,
  describeReply,
  passwordAdvice,
  type RedisAddress,
  redisExchange,
} from "./redis_exchange.ts";
import { checkCluster, checkSentinel } from "./redis_topology.ts";
import { from, text } from "./values.ts";

const GROUP = "Services" as const;
const NAME = "Redis";

const CLUSTER_KEY = REDIS.clusterNodes.key;
const SENTINEL_NODES_KEY = REDIS.sentinelNodes.key;
const SENTINEL_NAME_KEY = REDIS.sentinelName.key;
// Where the cache connects when host is set without port (the cache
// provider's default; the key declares no default of its own).
const DEFAULT_PORT = "6379";

/** A node list as read: the nodes, or the entry that is not `host:port`. */
type NodeList =
  | { readonly nodes: RedisAddress[] }
  | { readonly bad: string };

/**
 * A node list from the configuration: an array (a JSON file) or
 * comma-separated text (a variable) of `host:port`, an IPv6 host in
 * brackets; undefined when unset or empty.
 */
function readNodes(
  config: ConfigurationManager,
  key: string,
): NodeList | undefined {
  const value = config.getValue<unknown>(key, undefined);
  if (value === undefined || value === null) return undefined;
  const entries = (Array.isArray(value) ? value : String(value).split(","))
    .map((entry) => String(entry).trim());
  if (entries.every((entry) => entry === "")) return undefined;
  const nodes: RedisAddress[] = [];
  for (const entry of entries) {
    const match = /^(\[[^\]]+\]|[^:\s]+):(\d{1,5})$/.exec(entry);
    const port = match === null ? NaN : Number(match[2]);
    if (match === null || !(port >= 1 && port <= 65535)) {
      return { bad: entry };
    }
    nodes.push({ host: match[1].replace(/^\[|\]$/g, ""), port });
  }
  return { nodes };
}

function fail(message: string, advice: string): Check {
  return { group: GROUP, name: NAME, status: "fail", message, advice };
}

/** Redis from `cache:redis:*` answers PING (after AUTH with its password). */
export async function checkRedis(
  config: ConfigurationManager,
  timeout: number,
): Promise<Check> {
  const cluster = readNodes(config, CLUSTER_KEY);
  const sentinels = readNodes(config, SENTINEL_NODES_KEY);
  const sentinelName = text(config, SENTINEL_NAME_KEY);
  const host = text(config, REDIS.host.key);
  if (cluster !== undefined && (sentinels ?? sentinelName) !== undefined) {
    return fail(
      `both a Redis Cluster (${from(config, CLUSTER_KEY)}) and Sentinel (${
        from(
          config,
          sentinels === undefined ? SENTINEL_NAME_KEY : SENTINEL_NODES_KEY,
        )
      }) are set: the cache refuses to start`,
      `keep one: unset ${
        variableAndKey(REDIS.clusterNodes)
      }, or ${REDIS.sentinelNodes.variable} and ${REDIS.sentinelName.variable} (${SENTINEL_NODES_KEY}, :${
        SENTINEL_NAME_KEY.split(":").at(-1)
      })`,
    );
  }
  for (
    const [list, key, variable] of [
      [cluster, CLUSTER_KEY, REDIS.clusterNodes.variable],
      [sentinels, SENTINEL_NODES_KEY, REDIS.sentinelNodes.variable],
    ] as const
  ) {
    if (list !== undefined && "bad" in list) {
      return fail(
        `${from(config, key)} is not a list of host:port: bad entry ${
          JSON.stringify(list.bad)
        }`,
        `set ${variable} (${key}) to host:port entries, comma-separated (an IPv6 host in brackets: [::1]:6379)`,
      );
    }
  }
  if ((sentinels === undefined) !== (sentinelName === undefined)) {
    return fail(
      sentinelName === undefined
        ? `${
          from(config, SENTINEL_NODES_KEY)
        } is set without ${SENTINEL_NAME_KEY}: the cache refuses to start`
        : `${
          from(config, SENTINEL_NAME_KEY)
        } is set without ${SENTINEL_NODES_KEY}: the cache refuses to start`,
      `set both ${REDIS.sentinelName.variable} (the name in the sentinels' \`sentinel monitor\` line) and ${REDIS.sentinelNodes.variable} (their host:port, comma-separated), or neither`,
    );
  }
  const password = text(config, REDIS.password.key);
  rememberSecret(password);
  let check: Check;
  let topologyKey: string;
  if (cluster !== undefined && "nodes" in cluster) {
    topologyKey = CLUSTER_KEY;
    const database = text(config, REDIS.database.key);
    if (database !== undefined && Number(database) !== 0) {
      return fail(
        `${
          from(config, REDIS.database.key)
        } is ${database}, but a Redis Cluster has only database 0: the cache refuses to start`,
        `set ${REDIS.database.key} to 0, or leave it unset`,
      );
    }
    check = await checkCluster({
      nodes: cluster.nodes,
      source: from(config, CLUSTER_KEY),
      password,
      withPassword: withPassword(config, password),
      timeout,
    });
  } else if (
    sentinels !== undefined && "nodes" in sentinels &&
    sentinelName !== undefined
  ) {
    topologyKey = SENTINEL_NODES_KEY;
    const sentinelPassword = text(config, REDIS.sentinelPassword.key);
    rememberSecret(sentinelPassword);
    check = await checkSentinel({
      name: sentinelName,
      nodes: sentinels.nodes,
      source: from(config, SENTINEL_NODES_KEY),
      sentinelPassword,
      password,
      withPassword: withPassword(config, password),
      timeout,
    });
  } else {
    return await checkSingle(config, host, password, timeout);
  }
  if (host === undefined) return check;
  // The cache ignores host and port once cluster or sentinel is set: say
  // so, since the address the host names is not the one in use.
  const ignored = `${
    from(config, REDIS.host.key)
  } is set too and ignored: ${topologyKey} wins over host and port`;
  return {
    ...check,
    status: check.status === "pass" ? "warn" : check.status,
    details: [...(check.details ?? []), ignored],
    advice: check.status === "pass"
      ? `unset ${
        variableAndKey(REDIS.host)
      } and ${REDIS.port.variable}: the cache uses ${topologyKey} and never reaches that host`
      : check.advice,
  };
}

function withPassword(
  config: ConfigurationManager,
  password: string | undefined,
): string {
  return password === undefined
    ? "without a password"
    : `with the password of ${from(config, REDIS.password.key)}`;
}

/** One server: `cache:redis:host` and `port`. */
async function checkSingle(
  config: ConfigurationManager,
  host: string | undefined,
  password: string | undefined,
  timeout: number,
): Promise<Check> {
  if (host === undefined) {
    const [single, cluster, sentinel] = [
      REDIS.host,
      REDIS.clusterNodes,
      REDIS.sentinelNodes,
    ].map(({ key, variable }) => `${key} (${variable})`);
    return {
      group: GROUP,
      name: NAME,
      status: "skip",
      message: `none of ${single}, ${cluster} and ${sentinel} is set`,
    };
  }
  const portText = text(config, REDIS.port.key) ?? DEFAULT_PORT;
  const port = Number(portText);
  // The bounds of the key's one declaration.
  const { min, max } = kitConfigurationSections.cache.redis.port;
  if (!Number.isInteger(port) || port < min || port > max) {
    return fail(
      `${from(config, REDIS.port.key)} is not a port: ${portText}`,
      `set ${variableAndKey(REDIS.port)} to a number from ${min} to ${max}`,
    );
  }
  const commands = password === undefined
    ? [command("PING")]
    : [command("AUTH", password), command("PING")];
  const where = `${host}:${port}`;
  const how = withPassword(config, password);
  try {
    const replies = await redisExchange(host, port, commands, timeout);
    const last = describeReply(replies.at(-1));
    if (last === "+PONG") {
      return {
        group: GROUP,
        name: NAME,
        status: "pass",
        message: `${where} answered PING ${how}`,
      };
    }
    return fail(
      `${where} answered ${last} (${how})`,
      passwordAdvice(last, REDIS.password.variable, REDIS.password.key) ??
        "check the Redis server's log for what it refused",
    );
  } catch (error) {
    return fail(
      `${where} (${from(config, REDIS.host.key)}) did not answer: ${
        describeNetworkError(error)
      }`,
      `start the Redis server, or set ${REDIS.host.variable} and ${REDIS.port.variable} to where it runs`,
    );
  }
}
