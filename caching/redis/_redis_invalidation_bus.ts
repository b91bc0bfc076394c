// RemoteStoreCacheProvider as an invalidation bus on Redis pub/sub: messages
// go out on the main connection (PUBLISH, which a cluster routes by the
// channel's slot) and come in on a second, dedicated connection opened by the
// first subscription. Its failures count as the store's: it shares the
// provider's up/down state, and a resubscription after an outage tells the
// subscribers to resynchronise.
//
// On a cluster, messages are classic PUBLISH/SUBSCRIBE rather than sharded
// SPUBLISH/SSUBSCRIBE: a classic message reaches subscribers on every node,
// whichever primary it is published on (so another primary carries it while
// the channel's slot is down), and node-redis moves a classic subscription
// whose node left the topology to another node by itself, which it does not
// do for a sharded one.
import { TIMED_OUT } from "./_deadlines.ts";
import type { RedisLinkOptions } from "./_redis_link.ts";
import { createLink, type RedisTopology } from "./_redis_topology.ts";
import {
  type StoreConnectionState,
  UNANSWERED,
} from "../outages/_store_connection_state.ts";
import type {
  CacheInvalidation,
  CacheInvalidationSubscription,
} from "../cache_invalidation.ts";

interface Subscriber {
  onMessage(message: CacheInvalidation): void;
  onResync?: () => void;
}

function isInvalidation(value: unknown): value is CacheInvalidation {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  return typeof message.source === "string" &&
    (message.keys === undefined ||
      (Array.isArray(message.keys) &&
        message.keys.every((key) => typeof key === "string"))) &&
    (message.prefix === undefined || typeof message.prefix === "string") &&
    (message.tags === undefined ||
      (Array.isArray(message.tags) &&
        message.tags.every((tag) => typeof tag === "string"))) &&
    (message.at === undefined || typeof message.at === "number");
}

/** The publishing and the subscriptions of one provider. */
export class RedisInvalidationBus {
  readonly #topology: RedisTopology;
  readonly #connectionOptions: RedisLinkOptions;
  readonly #link: StoreConnectionState;
  readonly #channel: string;
  #subscribers = new Set<Subscriber>();
  #subscribed: Promise<boolean> | undefined;

  constructor(
    topology: RedisTopology,
    connectionOptions: RedisLinkOptions,
    link: StoreConnectionState,
    channel: string,
  ) {
    this.#topology = topology;
    this.#connectionOptions = connectionOptions;
    this.#link = link;
    this.#channel = channel;
  }

  /** Publishes on the channel; answers `false` when it did not go out. */
  async publish(message: CacheInvalidation): Promise<boolean> {
    const link = this.#link;
    const channel = this.#channel;
    const args = ["PUBLISH", channel, JSON.stringify(message)];
    if (
      !link.isDown(channel) &&
      (await link.send(args, channel, UNANSWERED)) !== UNANSWERED
    ) return true;
    // On a cluster whose primary for the channel's slot is down, another
    // primary carries the message to every node.
    const slots = link.isDown(channel)
      ? (await link.commands())?.slots
      : undefined;
    const other = slots?.primaries().find((address) =>
      !link.isPrimaryDown(address)
    );
    if (slots === undefined || other === undefined) return false;
    const reply = await link.sendVia(
      (command) => slots.sendTo(other, command),
      args,
      UNANSWERED,
      other,
    );
    return reply !== UNANSWERED;
  }

  /** Adds a subscriber; the first one opens the subscription. */
  subscribe(
    onMessage: (message: CacheInvalidation) => void,
    onResync?: () => void,
  ): CacheInvalidationSubscription {
    const subscriber: Subscriber = { onMessage, onResync };
    this.#subscribers.add(subscriber);
    return {
      ready: this.#link.disposed ? Promise.resolve(false) : this.#subscribe(),
      unsubscribe: () => {
        this.#subscribers.delete(subscriber);
      },
    };
  }

  /** Forgets every subscriber (the provider is being disposed). */
  clear(): void {
    this.#subscribers.clear();
  }

  #subscribe(): Promise<boolean> {
    if (this.#subscribed !== undefined) return this.#subscribed;
    let subscribe!: (ok: boolean) => void;
    this.#subscribed = new Promise<boolean>((resolve) => (subscribe = resolve));
    // node-redis resubscribes by itself when it reconnects a client; a new
    // client (after a silent handshake was given up) must subscribe anew.
    let subscribedClient: unknown;
    const connection = createLink(
      this.#topology,
      { ...this.#connectionOptions, offlineQueue: true, name: "cache pub/sub" },
      {
        onDown: (error) => this.#link.down(error),
        onReady: (client, afterOutage) => {
          if (client !== subscribedClient) {
            subscribedClient = client;
            // Bounded like any command: a silent server must not leave
            // connect() of the tiered provider pending.
            this.#link.deadlines.race(client.subscribe(
              this.#channel,
              (text: string) => this.#onMessage(text),
            )).then(
              (value) => {
                if (value === TIMED_OUT) {
                  this.#link.timedOut("SUBSCRIBE", false);
                }
                subscribe(value !== TIMED_OUT);
              },
              (error: unknown) => {
                this.#link.down(error);
                subscribe(false);
              },
            );
          }
          if (afterOutage) {
            for (const subscriber of [...this.#subscribers]) {
              subscriber.onResync?.();
            }
          }
          if (this.#link.state === "down") void this.#link.probe();
        },
      },
    );
    this.#link.attachSubscriber(connection);
    const first = connection.ensureReady();
    if (first !== true) {
      Promise.resolve(first).then((ok) => {
        if (!ok) subscribe(false);
      });
    }
    return this.#subscribed;
  }

  #onMessage(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // Not ours: ignore.
    }
    if (!isInvalidation(message)) return;
    for (const subscriber of [...this.#subscribers]) {
      try {
        subscriber.onMessage(message);
      } catch (error) {
        console.error(
          "RemoteStoreCacheProvider: an invalidation handler threw:",
          error,
        );
      }
    }
  }
}
