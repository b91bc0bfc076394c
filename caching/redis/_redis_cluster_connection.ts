// A Redis Cluster through node-redis's createCluster: node-redis discovers
// the slots from the configured nodes, routes each command by its key and
// follows MOVED/ASK. What it does not do is notice that a primary died:
// commands for its slots fail until a MOVED reply makes it look again, and
// a dead node sends none. So a node's failure here asks node-redis to
// rediscover the slots (again after a backoff, until every primary answers),
// which is how the client learns that a replica took over. The slot map is
// also handed to the provider (`slots`), which keeps a primary's failure to
// that primary's slots (_cluster_outages.ts).
import type * as Redis from "redis";
import type { TimerHandle } from "../../internal/timer_handle.ts";
import { unrefTimer } from "../../internal/unref_timer.ts";
import { RequestContext } from "../../platform/mod.ts";
import {
  backoff,
  type ClusterSlotMap,
  type RedisCommands,
  type RedisLinkEvents,
  type RedisLinkOptions,
  type RedisNodeAddress,
} from "./_redis_link.ts";
import {
  type TopologyClient,
  TopologyConnection,
} from "./_redis_topology_connection.ts";

type Cluster = ReturnType<typeof Redis.createCluster>;

export interface RedisClusterConnectionOptions extends RedisLinkOptions {
  nodes: RedisNodeAddress[];
}

export class RedisClusterConnection extends TopologyConnection {
  readonly #nodes: RedisNodeAddress[];
  #cluster: Cluster | undefined;
  #rediscoverTimer: TimerHandle | undefined;
  #rediscovering: Promise<void> | undefined;
  #rediscoveries = 0;

  constructor(options: RedisClusterConnectionOptions, events: RedisLinkEvents) {
    super(options, events);
    this.#nodes = options.nodes;
  }

  protected get what(): string {
    return "Redis Cluster";
  }

  protected get addresses(): string {
    return this.#nodes.map((node) => `${node.host}:${node.port}`).join(", ");
  }

  protected create(redis: typeof Redis): TopologyClient {
    const options = this.options;
    const cluster: Cluster = redis.createCluster({
      rootNodes: this.#nodes.map((node) => ({
        socket: { host: node.host, port: node.port },
      })),
      defaults: {
        username: options.username,
        password: options.password,
        socket: {
          connectTimeout: options.connectTimeout,
          reconnectStrategy: (retries: number) =>
            cluster === this.#cluster ? this.reconnectStrategy(retries) : false,
        },
        disableOfflineQueue: !options.offlineQueue,
        disableClientInfo: true,
      },
    });
    this.#cluster = cluster;
    // Discovery failures reach connect()'s rejection; a node's through
    // "node-error": both are handled, so node-redis must not throw them.
    cluster.on("error", () => {});
    cluster.on("node-error", (_error: unknown, node: RedisNodeAddress) => {
      if (cluster !== this.#cluster || this.disposed) return;
      this.diagnose(`node ${node?.host}:${node?.port} failed`);
      this.markFailed();
      this.#scheduleRediscover(cluster);
    });
    const masterAt = (address: string) => {
      const master = cluster.masters.find((each) => each.address === address);
      if (master === undefined) {
        throw new Error(`${address} is no longer a primary of ${this.what}`);
      }
      return master;
    };
    const slots: ClusterSlotMap = {
      ownerOf: (slot) => cluster.slots[slot]?.master.address,
      primaries: () => cluster.masters.map((master) => master.address),
      sendTo: async (address, args) =>
        (await cluster.nodeClient(masterAt(address))).sendCommand(args),
      refresh: async () => {
        if (cluster.masters.some((master) => !master.client?.isReady)) {
          await this.#rediscover(cluster);
        }
      },
      reread: (avoid) => this.#rediscover(cluster, avoid),
    };
    const commands: RedisCommands = {
      cluster: true,
      slots,
      send: (args, key) => cluster.sendCommand(key, false, args),
      primaries: () =>
        Promise.all(
          cluster.masters.map(async (master) => {
            const client = await cluster.nodeClient(master);
            return {
              address: master.address,
              send: (args: string[]) => client.sendCommand(args),
            };
          }),
        ),
      subscribe: (channel, listener) => cluster.subscribe(channel, listener),
      ping: async () => {
        await slots.refresh();
        await Promise.all(
          slots.primaries().map((address) => slots.sendTo(address, ["PING"])),
        );
        return "PONG";
      },
      topology: () => {
        const primaries = cluster.masters.map((master) => ({
          address: master.address,
          up: master.client?.isReady ?? false,
        }));
        return {
          topology: "cluster",
          primaries,
          primariesUp: primaries.filter((primary) => primary.up).length,
          slotsCovered: cluster.slots.filter((slot) => slot !== undefined)
            .length,
        };
      },
    };
    return {
      connect: () => cluster.connect(),
      destroy: () => {
        if (this.#cluster === cluster) this.#cluster = undefined;
        clearTimeout(this.#rediscoverTimer);
        this.#rediscoverTimer = undefined;
        cluster.destroy();
      },
      commands,
      get isReady() {
        return cluster.isOpen;
      },
    };
  }

  #scheduleRediscover(cluster: Cluster): void {
    if (this.#rediscoverTimer !== undefined || this.disposed) return;
    const delay = backoff(
      this.#rediscoveries++,
      this.options.reconnectDelay,
      this.options.maxReconnectDelay,
    );
    this.#rediscoverTimer = unrefTimer(
      RequestContext.detach(() =>
        setTimeout(() => {
          this.#rediscoverTimer = undefined;
          if (cluster !== this.#cluster || this.disposed) return;
          this.#rediscover(cluster).then(() => {
            if (cluster !== this.#cluster || this.disposed) return;
            if (cluster.masters.every((master) => master.client?.isReady)) {
              this.#rediscoveries = 0;
              this.reportBack();
            } else this.#scheduleRediscover(cluster);
          });
        }, delay)
      ),
    );
  }

  /**
   * Asks node-redis for the slots again, starting with a primary that
   * answers (node-redis falls back to the configured nodes). `avoid` names
   * primaries not to start with even when connected: a frozen node keeps
   * its connection and would never answer (node-redis's reading of the
   * slots has no deadline of its own).
   */
  #rediscover(
    cluster: Cluster,
    avoid?: (address: string) => boolean,
  ): Promise<void> {
    if (this.#rediscovering !== undefined) return this.#rediscovering;
    const candidates = avoid === undefined
      ? cluster.masters
      : cluster.masters.filter((master) => !avoid(master.address));
    const live = candidates.find((master) => master.client?.isReady)
      ?.client ?? candidates[0]?.client;
    if (live === undefined) return Promise.resolve();
    const rediscovering = cluster._slots.rediscover(live).catch(() => {})
      .finally(() => {
        this.#rediscovering = undefined;
      });
    this.#rediscovering = rediscovering;
    return rediscovering;
  }
}
