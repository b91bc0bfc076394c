/**
 * A message telling other instances to drop local copies: the listed keys,
 * or every key under a prefix (`""` for all).
 *
 * @example Usage
 * ```ts
 * import type { CacheInvalidation } from "@vendor/kit/caching";
 *
 * const message: CacheInvalidation = { source: "instance-1", keys: ["users:1"] };
 * ```
 */
export interface CacheInvalidation {
  /** Who sent it; a receiver ignores its own messages. */
  source: string;
  /** Keys to drop. */
  keys?: string[];
  /** Drop every key starting with this prefix (`""` drops all). */
  prefix?: string;
  /** Entries carrying one of these tags, stored at or before `at`, are misses. */
  tags?: string[];
  /** The time of a tag invalidation (with `tags`). */
  at?: number;
}

/**
 * A live subscription to a {@linkcode ICacheInvalidationBus}.
 *
 * @example Usage
 * ```ts
 * import type { CacheInvalidationSubscription } from "@vendor/kit/caching";
 *
 * async function stop(subscription: CacheInvalidationSubscription): Promise<void> {
 *   await subscription.ready;
 *   subscription.unsubscribe();
 * }
 * ```
 */
export interface CacheInvalidationSubscription {
  /**
   * Settles once the subscription is active (`true`), or when the first
   * connection attempt failed (`false`; it keeps retrying). Never rejects.
   */
  readonly ready: Promise<boolean>;
  /** Stops delivering messages to this subscriber. */
  unsubscribe(): void;
}

/**
 * Carries {@linkcode CacheInvalidation} messages between the instances of an
 * application; {@linkcode RemoteStoreCacheProvider} implements it on Redis
 * pub/sub, and {@linkcode TieredCacheProvider} uses it to keep every
 * instance's memory layer coherent.
 *
 * @example Usage
 * ```ts
 * import type { ICacheInvalidationBus } from "@vendor/kit/caching";
 *
 * function listen(bus: ICacheInvalidationBus): () => void {
 *   const subscription = bus.subscribeInvalidations((message) => console.log(message.keys));
 *   return () => subscription.unsubscribe();
 * }
 * ```
 */
export interface ICacheInvalidationBus {
  /**
   * Sends a message to every subscriber, the sender's own included. Never
   * rejects; a failure is reported by the bus.
   *
   * @param message The message.
   * @returns Settles when sent, or skipped.
   */
  publishInvalidation(message: CacheInvalidation): Promise<void>;
  /**
   * Starts receiving messages.
   *
   * @param onMessage Called for each message.
   * @param onResync Called when the subscription comes back after an
   * interruption, during which messages may have been missed.
   * @returns The subscription.
   */
  subscribeInvalidations(
    onMessage: (message: CacheInvalidation) => void,
    onResync?: () => void,
  ): CacheInvalidationSubscription;
}
