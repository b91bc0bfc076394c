// A primary found through Redis Sentinel, by node-redis's createSentinel: it
// asks the sentinels for the primary of `name`, connects to it, and follows
// a failover by itself (it listens to the sentinels' +switch-master and
// looks again when the primary stops answering or answers READONLY).
import type * as Redis from "redis";
import type {
  RedisCommands,
  RedisLinkEvents,
  RedisLinkOptions,
  RedisNodeAddress,
} from "./_redis_link.ts";
import {
  type TopologyClient,
  TopologyConnection,
} from "./_redis_topology_connection.ts";

type Sentinel = ReturnType<typeof Redis.createSentinel>;

export interface RedisSentinelConnectionOptions extends RedisLinkOptions {
  /** The name the sentinels monitor the primary under. */
  sentinelName: string;
  /** Sentinels to ask first. */
  sentinels: RedisNodeAddress[];
  /** The sentinels' own password (`requirepass` in sentinel.conf). */
  sentinelPassword?: string;
}

export class RedisSentinelConnection extends TopologyConnection {
  readonly #name: string;
  readonly #sentinels: RedisNodeAddress[];
  readonly #sentinelPassword: string | undefined;

  constructor(
    options: RedisSentinelConnectionOptions,
    events: RedisLinkEvents,
  ) {
    super(options, events);
    this.#name = options.sentinelName;
    this.#sentinels = options.sentinels;
    this.#sentinelPassword = options.sentinelPassword;
  }

  protected get what(): string {
    return `Redis Sentinel "${this.#name}"`;
  }

  /** The data nodes' password and the sentinels' own. */
  protected override secrets(): Array<string | undefined> {
    return [...super.secrets(), this.#sentinelPassword];
  }

  /** A search for the primary asks each sentinel, then pauses a second. */
  protected override get destroyWithin(): number {
    return this.options.connectTimeout * this.#sentinels.length + 2000;
  }

  protected get addresses(): string {
    return this.#sentinels.map((node) => `${node.host}:${node.port}`).join(
      ", ",
    );
  }

  protected create(redis: typeof Redis): TopologyClient {
    const options = this.options;
    const reconnectStrategy = (retries: number) =>
      this.reconnectStrategy(retries);
    const sentinel: Sentinel = redis.createSentinel({
      name: this.#name,
      sentinelRootNodes: this.#sentinels,
      nodeClientOptions: {
        username: options.username,
        password: options.password,
        database: options.database,
        socket: { connectTimeout: options.connectTimeout, reconnectStrategy },
        disableOfflineQueue: !options.offlineQueue,
        disableClientInfo: true,
      },
      sentinelClientOptions: {
        password: this.#sentinelPassword,
        socket: { connectTimeout: options.connectTimeout, reconnectStrategy },
        disableClientInfo: true,
      },
      masterPoolSize: 1,
      // No periodic rescan of the sentinels: node-redis's typings announce
      // one every 10 s by default (its code has none unless asked), and its
      // interval would be neither unref'd nor reachable to unref. A failover
      // is followed without it (+switch-master, and a fresh look when the
      // primary stops answering), so it stays off whatever the default.
      scanInterval: 0,
      // A first attempt that fails ends at once (node-redis would otherwise
      // print the failure and try again every second): the retries with
      // backoff are this connection's, and a command that meets a failover
      // fails like any command during an outage.
      maxCommandRediscovers: 0,
    });
    sentinel.on("error", () => {});
    sentinel.on("topology-change", (event: { type?: string }) => {
      // The first primary found is no change.
      if (event?.type === "MASTER_CHANGE" && this.isReady) {
        this.diagnose(`the primary of ${this.what} changed`);
        // Messages published during the switch may be lost: the provider
        // hears of it as the end of an outage (its subscribers resync).
        this.markFailed();
        queueMicrotask(() => this.reportBack());
      }
    });
    const node = (address: RedisNodeAddress | undefined) =>
      address === undefined ? undefined : `${address.host}:${address.port}`;
    const commands: RedisCommands = {
      cluster: false,
      send: (args) => sentinel.sendCommand(false, args),
      primaries: () =>
        Promise.resolve([{
          address: node(sentinel.getMasterNode()) ?? this.#name,
          send: (args: string[]) => sentinel.sendCommand(false, args),
        }]),
      subscribe: (channel, listener) => sentinel.subscribe(channel, listener),
      ping: async () => {
        const reply = await sentinel.sendCommand(false, ["PING"]);
        this.reportBack();
        return reply;
      },
      topology: () => ({
        topology: "sentinel",
        name: this.#name,
        primary: node(sentinel.getMasterNode()),
        replicas: [...sentinel.getReplicaNodes().keys()].map(node),
        sentinel: node(sentinel.getSentinelNode()),
      }),
    };
    return {
      connect: () => sentinel.connect(),
      // node-redis's destroy() settles once a search for the primary under
      // way has ended (it asks each sentinel in turn, within connectTimeout,
      // and pauses a second between two rounds).
      destroy: () => sentinel.destroy().catch(() => {}),
      commands,
      get isReady() {
        return sentinel.isReady;
      },
    };
  }
}
