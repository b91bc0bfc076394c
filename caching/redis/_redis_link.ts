// What the Redis provider needs from a connection, whatever the topology
// behind it: one server (_redis_connection.ts), a Redis Cluster
// (_redis_cluster_connection.ts) or a primary found through Sentinel
// (_redis_sentinel_connection.ts). The provider speaks to this interface
// only, so that it never asks which topology it runs on, except for the few
// commands a cluster routes or splits differently (`cluster`).

import { backoffDelay } from "../../internal/delivery/backoff.ts";

/** One primary, and the way to send it a command (no routing). */
export interface RedisNode {
  /** `host:port`, as the topology names it. */
  readonly address: string;
  /** Sends one command to this primary. */
  send(args: string[]): Promise<unknown>;
}

/**
 * A Redis Cluster's slots as the client knows them: what the provider needs
 * to keep a primary's failure to that primary's slots.
 */
export interface ClusterSlotMap {
  /** The primary serving `slot` now (`host:port`), if any. */
  ownerOf(slot: number): string | undefined;
  /** The addresses of the primaries. */
  primaries(): string[];
  /** Sends one command to the primary at `address`. */
  sendTo(address: string, args: string[]): Promise<unknown>;
  /**
   * Reads the slot map again when a primary is not connected (a replica
   * may have taken over); settles when done, never rejects.
   */
  refresh(): Promise<void>;
  /**
   * Reads the slot map again, asking a primary that `avoid` does not name
   * (a connected primary may be frozen: it would never answer); settles
   * when done, never rejects.
   */
  reread(avoid: (address: string) => boolean): Promise<void>;
}

/** Commands on a ready connection. */
export interface RedisCommands {
  /** `true` on a Redis Cluster: multi-key commands must stay in one slot. */
  readonly cluster: boolean;
  /** On a Redis Cluster, its slots; `undefined` elsewhere. */
  readonly slots?: ClusterSlotMap;
  /**
   * Sends one command. `key` is the key the command is routed by on a
   * cluster (ignored elsewhere).
   */
  send(args: string[], key?: string): Promise<unknown>;
  /**
   * Every primary (a cluster's masters; the one server otherwise), for
   * commands that see one node's keys only (`SCAN`).
   */
  primaries(): Promise<RedisNode[]>;
  /** Subscribes; node-redis resubscribes by itself after a reconnect. */
  subscribe(
    channel: string,
    listener: (message: string) => void,
  ): Promise<unknown>;
  /**
   * Checks that every node the commands need answers: a `PING` to the
   * server, to the Sentinel primary, or to every cluster primary (the
   * provider pings a cluster's primaries one by one through `slots`).
   */
  ping(): Promise<unknown>;
  /** The nodes and which of them answer, for a health check. */
  topology(): Record<string, unknown>;
}

/** Options common to every topology; all times in milliseconds. */
export interface RedisLinkOptions {
  username?: string;
  password?: string;
  database: number;
  /** Time allowed for one attempt: TCP connection and handshake. */
  connectTimeout: number;
  reconnectDelay: number;
  maxReconnectDelay: number;
  /** Queue commands while disconnected (pub/sub connection) or fail fast. */
  offlineQueue: boolean;
  /** Receives diagnostic lines (KIT_LOG_LEVEL=debug); never the password. */
  diagnostics?: (line: string) => void;
  /** Names the connection in diagnostic lines (`cache`, `cache pub/sub`). */
  name?: string;
}

/** What a connection reports to the provider. */
export interface RedisLinkEvents {
  /** A connection-level failure (refused, lost, auth, timeout). */
  onDown(error: unknown): void;
  /** The connection is ready; `afterOutage` when it had failed before. */
  onReady(commands: RedisCommands, afterOutage: boolean): void;
}

/** A connection to Redis, whatever the topology. */
export interface RedisLink {
  /** `true` when commands can be sent now. */
  readonly isReady: boolean;
  /** The commands when they can be sent now, else `undefined`. */
  readonly readyClient: RedisCommands | undefined;
  /**
   * `true` when ready; otherwise starts the first connection if needed and
   * settles once its first attempt is over (within `connectTimeout`).
   */
  ensureReady(): boolean | Promise<boolean>;
  /** Drops connections that stopped answering and opens new ones. */
  recycle(error: unknown): void;
  /** Closes every connection; no socket or timer is left behind. */
  dispose(signal?: AbortSignal): Promise<void>;
}

/** One node's address (a cluster node or a sentinel). */
export interface RedisNodeAddress {
  host: string;
  port: number;
}

/**
 * The delay before reconnect attempt `retries + 1` (also the probe's and
 * the cluster's slot-map re-read): Kit's one backoff rule, doubling from
 * `reconnectDelay` up to `maxReconnectDelay`, with "equal jitter" (half of
 * it fixed, half left to chance) so that instances do not reconnect in
 * lockstep after a restart; whole milliseconds.
 */
export function backoff(
  retries: number,
  reconnectDelay: number,
  maxReconnectDelay: number,
): number {
  // Past 30 doublings the cap has long been reached; stopping there keeps
  // the doubling finite.
  return Math.round(
    backoffDelay(Math.min(retries, 30) + 1, {
      base: reconnectDelay,
      max: maxReconnectDelay,
      jitter: 0.5,
    }),
  );
}
