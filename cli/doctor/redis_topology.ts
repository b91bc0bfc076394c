// The doctor's probes of a Redis Cluster and of a primary found through
// Redis Sentinel. A cluster: every listed node is asked PING and CLUSTER
// INFO at once, and each must answer with `cluster_state:ok`. Sentinel:
// every listed sentinel is asked SENTINEL get-master-addr-by-name at once,
// then the primary most of them name is asked PING and ROLE. Every address
// that fails is named, with what to do.
import { describeNetworkError } from "../../internal/delivery/network_error.ts";
import { REDIS, variableAndKey } from "./declared.ts";
import type { Check } from "./report.ts";
import {
  addressText,
  command,
  describeReply,
  isFailure,
  passwordAdvice,
  type RedisAddress,
  redisExchange,
  type RespReply,
} from "./redis_exchange.ts";

const GROUP = "Services" as const;
const NAME = "Redis";

/** What a probe of one address found. */
interface Probe {
  readonly address: string;
  /** The replies, when the exchange went through. */
  readonly replies?: RespReply[];
  /** What went wrong, as a sentence naming the address. */
  readonly problem?: string;
  /** The same without the address: `did not answer: …`, `answered -ERR …`. */
  readonly why?: string;
  /** What to do about it. */
  readonly advice?: string;
  /** The address did not answer at all. */
  readonly unreachable?: boolean;
}

// AUTH (when a password is set) and then `commands` on one address; a
// refused password or an error reply becomes the problem.
async function probe(
  node: RedisAddress,
  password: string | undefined,
  passwordVariable: readonly [variable: string, key: string],
  commands: readonly string[],
  timeout: number,
): Promise<Probe> {
  const address = addressText(node);
  const all = password === undefined
    ? commands
    : [command("AUTH", password), ...commands];
  let replies: RespReply[];
  try {
    replies = await redisExchange(node.host, node.port, all, timeout);
  } catch (error) {
    const why = `did not answer: ${describeNetworkError(error)}`;
    return { address, unreachable: true, problem: `${address} ${why}`, why };
  }
  const refused = replies.find(isFailure);
  if (refused !== undefined) {
    const text = describeReply(refused);
    return {
      address,
      problem: `${address} answered ${text}`,
      why: `answered ${text}`,
      advice: passwordAdvice(text, ...passwordVariable),
    };
  }
  return { address, replies: replies.slice(all.length - commands.length) };
}

// The `name:value` lines of an INFO-style bulk string.
function fields(reply: RespReply | undefined): Map<string, string> {
  const text = reply?.kind === "bulk" ? reply.value ?? "" : "";
  return new Map(
    text.split(/\r?\n/).filter((line) => line.includes(":")).map((line) => {
      const at = line.indexOf(":");
      return [line.slice(0, at), line.slice(at + 1).trim()];
    }),
  );
}

function unique(values: readonly (string | undefined)[]): string[] {
  return [...new Set(values.filter((value) => value !== undefined))];
}

/** What {@linkcode checkCluster} needs. */
export interface ClusterCheckOptions {
  readonly nodes: readonly RedisAddress[];
  /** The key and where its value comes from, for messages. */
  readonly source: string;
  readonly password: string | undefined;
  /** `with the password of …` or `without a password`. */
  readonly withPassword: string;
  readonly timeout: number;
}

/** Every listed cluster node answers PING and reports `cluster_state:ok`. */
export async function checkCluster(
  options: ClusterCheckOptions,
): Promise<Check> {
  const { nodes, source, password, withPassword, timeout } = options;
  const probes = await Promise.all(nodes.map(async (node): Promise<Probe> => {
    const found = await probe(
      node,
      password,
      [REDIS.password.variable, REDIS.password.key],
      [command("PING"), command("CLUSTER", "INFO")],
      timeout,
    );
    if (found.replies === undefined) {
      return /cluster support disabled/i.test(found.problem ?? "")
        ? {
          ...found,
          advice: `these servers are not Redis Cluster nodes: set ${
            variableAndKey(REDIS.host)
          } for one server instead of ${REDIS.clusterNodes.variable}, or run them with \`cluster-enabled yes\``,
        }
        : found;
    }
    const state = fields(found.replies[1]).get("cluster_state");
    if (state === "ok") return found;
    return {
      address: found.address,
      replies: found.replies,
      problem: `${found.address} reports cluster_state:${state ?? "(none)"}`,
      advice:
        "the cluster does not serve every slot (a primary is down with no replica to take over, or slots are unassigned): run `redis-cli --cluster check <node>` and fix the cluster",
    };
  }));
  const failed = probes.filter((found) => found.problem !== undefined);
  const good = probes.filter((found) => found.problem === undefined);
  const title = `Redis Cluster (${source})`;
  if (failed.length === 0) {
    const info = fields(good[0].replies![1]);
    return {
      group: GROUP,
      name: NAME,
      status: "pass",
      message:
        `${title}: all ${nodes.length} nodes answered PING ${withPassword} and report cluster_state:ok (${
          info.get("cluster_size") ?? "?"
        } primaries serving ${
          info.get("cluster_slots_assigned") ?? "?"
        } slots, ${info.get("cluster_known_nodes") ?? "?"} nodes known)`,
    };
  }
  const addresses = failed.map((found) => found.address).join(", ");
  if (good.length > 0 && failed.every((found) => found.unreachable)) {
    // The client learns the cluster from any node that answers: the
    // application runs, but the list names servers that are gone.
    return {
      group: GROUP,
      name: NAME,
      status: "warn",
      message:
        `${title}: ${good.length} of ${nodes.length} nodes answered PING ${withPassword} and report cluster_state:ok; ${addresses} did not answer`,
      details: failed.map((found) => found.problem!),
      advice:
        `the cache starts from the nodes that answer: start ${addresses}, or remove ${
          failed.length === 1 ? "it" : "them"
        } from ${variableAndKey(REDIS.clusterNodes)}`,
    };
  }
  const advice = unique(failed.map((found) => found.advice));
  if (failed.some((found) => found.unreachable)) {
    advice.push(
      `start ${
        failed.filter((found) => found.unreachable).map((found) =>
          found.address
        ).join(", ")
      }, or set ${
        variableAndKey(REDIS.clusterNodes)
      } to where the cluster's nodes run`,
    );
  }
  return {
    group: GROUP,
    name: NAME,
    status: "fail",
    message:
      `${title}: ${failed.length} of ${nodes.length} nodes failed (${withPassword}): ${
        failed.map((found) => found.problem).join("; ")
      }`,
    advice: advice.length === 0
      ? "check the Redis servers' logs for what they refused"
      : advice.join("; "),
  };
}

/** What {@linkcode checkSentinel} needs. */
export interface SentinelCheckOptions {
  /** The name the sentinels monitor the primary under. */
  readonly name: string;
  readonly nodes: readonly RedisAddress[];
  /** The nodes' key and where its value comes from, for messages. */
  readonly source: string;
  /** The sentinels' own password. */
  readonly sentinelPassword: string | undefined;
  /** The primary's password. */
  readonly password: string | undefined;
  /** `with the password of …` or `without a password`. */
  readonly withPassword: string;
  readonly timeout: number;
}

/**
 * The sentinels name a primary for `name`, and it answers PING as a
 * primary.
 */
export async function checkSentinel(
  options: SentinelCheckOptions,
): Promise<Check> {
  const { name, nodes, source, password, withPassword, timeout } = options;
  const title = `Redis Sentinel "${name}" (${source})`;
  const answers = await Promise.all(
    nodes.map(async (node): Promise<Probe & { primary?: string }> => {
      const found = await probe(
        node,
        options.sentinelPassword,
        [REDIS.sentinelPassword.variable, REDIS.sentinelPassword.key],
        [command("SENTINEL", "get-master-addr-by-name", name)],
        timeout,
      );
      if (found.replies === undefined) {
        return /unknown command/i.test(found.problem ?? "")
          ? {
            ...found,
            advice: `${
              variableAndKey(REDIS.sentinelNodes)
            } must list the sentinels (redis-sentinel, port 26379 by default), not the Redis servers`,
          }
          : found;
      }
      const reply = found.replies[0];
      const items = reply.kind === "array" ? reply.items : null;
      const host = items?.[0];
      const port = items?.[1];
      if (host?.kind !== "bulk" || port?.kind !== "bulk" || !host.value) {
        return {
          address: found.address,
          problem: `${found.address} monitors no primary named "${name}" (${
            describeReply(reply)
          })`,
          advice: `set ${
            variableAndKey(REDIS.sentinelName)
          } to the name of the sentinels' \`sentinel monitor\` line`,
        };
      }
      return {
        ...found,
        primary: addressText({ host: host.value, port: Number(port.value) }),
      };
    }),
  );
  const failed = answers.filter((found) => found.problem !== undefined);
  const votes = new Map<string, string[]>();
  for (const found of answers) {
    if (found.primary === undefined) continue;
    votes.set(found.primary, [
      ...(votes.get(found.primary) ?? []),
      found.address,
    ]);
  }
  if (votes.size === 0) {
    const advice = unique(failed.map((found) => found.advice));
    if (failed.some((found) => found.unreachable)) {
      advice.push(
        `start the sentinels, or set ${
          variableAndKey(REDIS.sentinelNodes)
        } to where they run`,
      );
    }
    return {
      group: GROUP,
      name: NAME,
      status: "fail",
      message: `${title}: no sentinel named the primary: ${
        failed.map((found) => found.problem).join("; ")
      }`,
      advice: advice.join("; "),
    };
  }
  // The primary most sentinels name (they disagree only during a failover).
  const [primary, namedBy] =
    [...votes].sort((a, b) => b[1].length - a[1].length)[0];
  const separator = primary.lastIndexOf(":");
  const found = await probe(
    {
      host: primary.slice(0, separator).replace(/^\[|\]$/g, ""),
      port: Number(primary.slice(separator + 1)),
    },
    password,
    [REDIS.password.variable, REDIS.password.key],
    [command("PING"), command("ROLE")],
    timeout,
  );
  const named =
    `${namedBy.length} of ${nodes.length} sentinels name the primary ${primary}`;
  if (found.replies === undefined) {
    return {
      group: GROUP,
      name: NAME,
      status: "fail",
      message: found.unreachable
        ? `${title}: ${named}, which ${found.why}`
        : `${title}: ${named}, which ${found.why} (${withPassword})`,
      advice: found.advice ??
        (found.unreachable
          ? `start the Redis server at ${primary}; if it runs, the address the sentinels announce must be reachable from here (see \`replica-announce-ip\`); during a failover, run again once the sentinels have promoted a replica`
          : "check the Redis server's log for what it refused"),
    };
  }
  const role = found.replies[1];
  const roleName = role.kind === "array" && role.items?.[0]?.kind === "bulk"
    ? role.items[0].value
    : undefined;
  if (roleName !== undefined && roleName !== "master") {
    return {
      group: GROUP,
      name: NAME,
      status: "fail",
      message:
        `${title}: ${named}, which answered PING ${withPassword} but is a ${roleName}`,
      advice:
        "the sentinels have not caught up with a failover: run again in a few seconds, and if it lasts, check the sentinels' logs",
    };
  }
  const others = [...votes].filter(([address]) => address !== primary);
  const details = [
    ...failed.map((entry) => entry.problem!),
    ...others.map(([address, by]) =>
      `${by.join(", ")} name${by.length === 1 ? "s" : ""} ${address} instead`
    ),
  ];
  const message =
    `${title}: ${named}, which answered PING ${withPassword} as the primary`;
  if (details.length === 0) {
    return { group: GROUP, name: NAME, status: "pass", message };
  }
  const advice = unique(failed.map((entry) => entry.advice));
  const dead = failed.filter((entry) => entry.unreachable);
  if (dead.length > 0) {
    const addresses = dead.map((entry) => entry.address).join(", ");
    advice.push(
      `the cache asks the sentinels that answer: start ${addresses}, or remove ${
        dead.length === 1 ? "it" : "them"
      } from ${variableAndKey(REDIS.sentinelNodes)}`,
    );
  }
  if (others.length > 0) {
    advice.push(
      "the sentinels disagree on the primary (a failover is under way, or they do not see each other): run again in a few seconds, and if it lasts, check the sentinels' logs",
    );
  }
  return {
    group: GROUP,
    name: NAME,
    status: "warn",
    message: [
      message,
      ...(failed.length === 0 ? [] : [
        `${failed.map((entry) => entry.address).join(", ")} failed`,
      ]),
      ...(others.length === 0 ? [] : [
        `${others.flatMap(([, by]) => by).join(", ")} named another primary`,
      ]),
    ].join("; "),
    details,
    advice: advice.join("; "),
  };
}
