import { isPromiseLike } from "../core/mod.ts";

/**
 * A subscriber of one event. It may return a promise: `publish` reports its
 * rejection, `publishAsync` also waits for it.
 *
 * @typeParam T The payload type.
 */
export type EventHandler<T> = (payload: T) => void | Promise<void>;

/** Options of an {@linkcode EventAggregator}. */
export interface EventAggregatorOptions {
  /**
   * Receives what a handler threw (or its promise rejected with) and the name
   * of the event. Defaults to `console.error`. The other handlers run
   * regardless; errors are never swallowed silently.
   */
  onError?: (error: unknown, event: string) => void;
}

interface Subscription {
  readonly handler: EventHandler<never>;
  readonly once: boolean;
  active: boolean;
}

/**
 * Publish/subscribe between parts of an application that should not know each
 * other, for example to break a circular dependency between two services
 * (`user:created`).
 *
 * Pass an event map to type names and payloads:
 * `new EventAggregator<{ "user:created": User }>()`. Handlers run in
 * subscription order. One that unsubscribes (itself or another) during a
 * publish is respected at once: a removed handler that has not run yet is
 * skipped; a handler added during a publish first hears the next one.
 *
 * @typeParam TEvents Map of event name to payload type.
 *
 * @example Usage
 * ```ts
 * import { EventAggregator } from "@vendor/kit/platform";
 *
 * interface User {
 *   id: string;
 * }
 * const events = new EventAggregator<{ "user:created": User }>();
 * const unsubscribe = events.subscribe("user:created", (user) => {
 *   console.log("welcome", user.id);
 * });
 * events.publish("user:created", { id: "u1" });
 * unsubscribe();
 * ```
 */
export class EventAggregator<
  TEvents extends object = Record<string, unknown>,
> {
  #subscriptions = new Map<string, Subscription[]>();
  #onError: (error: unknown, event: string) => void;

  /**
   * Creates an aggregator.
   *
   * @param options Where handler errors go.
   */
  constructor(options: EventAggregatorOptions = {}) {
    this.#onError = options.onError ??
      ((error, event) =>
        console.error(
          `EventAggregator: a handler of '${event}' threw:`,
          error,
        ));
  }

  /**
   * Delivers a payload to the subscribers of an event, synchronously. A
   * handler's returned promise is not awaited (use
   * {@linkcode EventAggregator.prototype.publishAsync}), but its rejection is
   * reported to `onError`.
   *
   * @typeParam K The event name.
   * @param name The event name.
   * @param payload What the handlers receive.
   *
   * @example Usage
   * ```ts
   * import { EventAggregator } from "@vendor/kit/platform";
   *
   * const events = new EventAggregator<{ saved: number }>();
   * events.subscribe("saved", (id) => console.log(id));
   * events.publish("saved", 7);
   * ```
   */
  publish<K extends keyof TEvents & string>(
    name: K,
    payload: TEvents[K],
  ): void {
    const list = this.#subscriptions.get(name);
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) {
      const subscription = list[i];
      if (!subscription.active) continue;
      if (subscription.once) this.#remove(name, subscription);
      try {
        const result = (subscription.handler as EventHandler<TEvents[K]>)(
          payload,
        );
        if (result !== undefined && isPromiseLike(result)) {
          result.then(undefined, (error: unknown) => this.#report(error, name));
        }
      } catch (error) {
        this.#report(error, name);
      }
    }
  }

  /**
   * Delivers a payload and waits for every handler's promise to settle.
   * Handlers start in subscription order and run concurrently; failures go
   * to `onError` and do not reject the returned promise.
   *
   * @typeParam K The event name.
   * @param name The event name.
   * @param payload What the handlers receive.
   * @returns A promise that resolves when all handlers have settled.
   *
   * @example Usage
   * ```ts
   * import { EventAggregator } from "@vendor/kit/platform";
   *
   * const events = new EventAggregator<{ saved: number }>();
   * events.subscribe("saved", async (id) => {
   *   await Promise.resolve();
   *   console.log("indexed", id);
   * });
   * await events.publishAsync("saved", 7);
   * ```
   */
  async publishAsync<K extends keyof TEvents & string>(
    name: K,
    payload: TEvents[K],
  ): Promise<void> {
    const list = this.#subscriptions.get(name);
    if (list === undefined) return;
    const running: Promise<void>[] = [];
    for (const subscription of list) {
      if (!subscription.active) continue;
      if (subscription.once) this.#remove(name, subscription);
      try {
        const result = (subscription.handler as EventHandler<TEvents[K]>)(
          payload,
        );
        if (result !== undefined && isPromiseLike(result)) {
          running.push(
            Promise.resolve(result).then(
              () => {},
              (error: unknown) => this.#report(error, name),
            ),
          );
        }
      } catch (error) {
        this.#report(error, name);
      }
    }
    await Promise.all(running);
  }

  /**
   * Subscribes to an event.
   *
   * @typeParam K The event name.
   * @param name The event name.
   * @param handler Called with each payload.
   * @returns A function that removes this subscription; calling it again is
   * harmless. Call it when the subscriber is disposed so nothing leaks.
   *
   * @example Usage
   * ```ts
   * import { EventAggregator } from "@vendor/kit/platform";
   *
   * const events = new EventAggregator<{ tick: number }>();
   * const unsubscribe = events.subscribe("tick", (n) => console.log(n));
   * unsubscribe();
   * ```
   */
  subscribe<K extends keyof TEvents & string>(
    name: K,
    handler: EventHandler<TEvents[K]>,
  ): () => void {
    return this.#add(name, handler, false);
  }

  /**
   * Subscribes to the next publication of an event only.
   *
   * @typeParam K The event name.
   * @param name The event name.
   * @param handler Called with the first payload published after this call.
   * @returns A function that cancels the subscription before it fires.
   *
   * @example Usage
   * ```ts
   * import { EventAggregator } from "@vendor/kit/platform";
   *
   * const events = new EventAggregator<{ ready: void }>();
   * events.once("ready", () => console.log("ready"));
   * events.publish("ready", undefined); // logs once
   * events.publish("ready", undefined); // nothing
   * ```
   */
  once<K extends keyof TEvents & string>(
    name: K,
    handler: EventHandler<TEvents[K]>,
  ): () => void {
    return this.#add(name, handler, true);
  }

  /**
   * Counts the subscribers of an event.
   *
   * @param name The event name.
   * @returns How many handlers are subscribed.
   *
   * @example Usage
   * ```ts
   * import { EventAggregator } from "@vendor/kit/platform";
   *
   * const events = new EventAggregator();
   * events.subscribe("x", () => {});
   * events.listenerCount("x"); // 1
   * ```
   */
  listenerCount(name: keyof TEvents & string): number {
    return this.#subscriptions.get(name)?.length ?? 0;
  }

  /**
   * Removes the subscribers of one event, or of all events.
   *
   * @param name The event to clear; every event when left out.
   *
   * @example Usage
   * ```ts
   * import { EventAggregator } from "@vendor/kit/platform";
   *
   * const events = new EventAggregator();
   * events.subscribe("x", () => {});
   * events.clear();
   * events.listenerCount("x"); // 0
   * ```
   */
  clear(name?: keyof TEvents & string): void {
    const names = name === undefined ? [...this.#subscriptions.keys()] : [name];
    for (const key of names) {
      for (const subscription of this.#subscriptions.get(key) ?? []) {
        subscription.active = false;
      }
      this.#subscriptions.delete(key);
    }
  }

  #add(name: string, handler: EventHandler<never>, once: boolean): () => void {
    if (typeof handler !== "function") {
      throw new TypeError(
        `EventAggregator.subscribe('${name}'): the handler must be a function`,
      );
    }
    const subscription: Subscription = { handler, once, active: true };
    // Copy on write: a publish in progress keeps iterating the old array.
    const list = this.#subscriptions.get(name);
    this.#subscriptions.set(
      name,
      list === undefined ? [subscription] : [...list, subscription],
    );
    return () => this.#remove(name, subscription);
  }

  #remove(name: string, subscription: Subscription): void {
    if (!subscription.active) return;
    subscription.active = false;
    const list = this.#subscriptions.get(name);
    if (list === undefined) return;
    const rest = list.filter((candidate) => candidate !== subscription);
    if (rest.length === 0) this.#subscriptions.delete(name);
    else this.#subscriptions.set(name, rest);
  }

  #report(error: unknown, name: string): void {
    try {
      this.#onError(error, name);
    } catch (reportError) {
      console.error(
        `EventAggregator: onError threw while reporting '${name}':`,
        reportError,
        error,
      );
    }
  }
}
