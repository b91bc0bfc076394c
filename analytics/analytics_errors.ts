import { KitError, SettingError } from "../core/mod.ts";

/**
 * Thrown when an analytics option is outside its allowed range: a
 * `samplingRate` outside 0..1, a missing `endpoint` or `trackingId`, a batch
 * size that is not a positive integer.
 *
 * @example Usage
 * ```ts
 * import { AnalyticsManager, AnalyticsConfigurationError } from "@vendor/kit/analytics";
 *
 * try {
 *   new AnalyticsManager({ samplingRate: 1.5 });
 * } catch (error) {
 *   console.log(error instanceof AnalyticsConfigurationError); // true
 *   console.log((error as Error).message);
 *   // "samplingRate must be a number from 0 to 1: 1.5"
 * }
 * ```
 */
export class AnalyticsConfigurationError extends SettingError {
  /** What went wrong, as a stable string: `analytics_configuration`. */
  readonly code = "analytics_configuration";

  /**
   * Creates the error.
   *
   * @param message What is wrong, naming the option and the value.
   * @param key The configuration key at fault, when a key names it.
   * @param source Where the value came from (a variable's name, a file),
   * when there is one.
   */
  constructor(message: string, key?: string, source?: string) {
    super(message, { key, source });
    this.name = "AnalyticsConfigurationError";
  }
}

/** The provider operation that failed, as named in {@linkcode AnalyticsProviderError}. */
export type AnalyticsProviderOperation =
  | "track"
  | "page"
  | "identify"
  | "flush"
  | "dispose";

/**
 * Wraps what one provider threw (or rejected with), so the `onError` hook of
 * {@linkcode AnalyticsManager} knows which provider and which operation
 * failed. The other providers are called regardless.
 *
 * Message: `Analytics provider <name> failed in <operation>: <cause>`.
 *
 * @example Usage
 * ```ts
 * import { AnalyticsProviderError } from "@vendor/kit/analytics";
 *
 * const error = new AnalyticsProviderError("Broken", "track", new Error("down"));
 * console.log(error.message); // "Analytics provider Broken failed in track: down"
 * ```
 */
export class AnalyticsProviderError extends KitError {
  /** What went wrong, as a stable string: `analytics_provider`. */
  readonly code = "analytics_provider";

  /** The provider's name (its `name` property, else its class name). */
  readonly provider: string;
  /** The operation that failed. */
  readonly operation: AnalyticsProviderOperation;

  /**
   * Creates the error.
   *
   * @param provider The provider's name.
   * @param operation The operation that failed.
   * @param cause What the provider threw.
   */
  constructor(
    provider: string,
    operation: AnalyticsProviderOperation,
    cause: unknown,
  ) {
    super(
      `Analytics provider ${provider} failed in ${operation}: ${
        describeCause(cause)
      }`,
      { cause },
    );
    this.name = "AnalyticsProviderError";
    this.provider = provider;
    this.operation = operation;
  }
}

/**
 * Reported (through a provider's `onError`) when a batch of events could not
 * be delivered and was dropped: a status that is not retried (400, 401, 403,
 * 404, 413, …) or retries exhausted after network errors, 408, 429 or 5xx.
 *
 * Message: `Analytics delivery to <endpoint> failed after <n> attempt(s):
 * <reason>; <k> event(s) dropped`. The endpoint is shown without its query
 * string, so no secret carried there (GA4's `api_secret`) is ever printed.
 *
 * @example Usage
 * ```ts
 * import { AnalyticsDeliveryError } from "@vendor/kit/analytics";
 *
 * const error = new AnalyticsDeliveryError({
 *   endpoint: "https://collect.example.com/v1/events",
 *   attempts: 1,
 *   events: 50,
 *   status: 401,
 *   reason: "HTTP 401 Unauthorized",
 * });
 * console.log(error.status); // 401
 * ```
 */
export class AnalyticsDeliveryError extends KitError {
  /** What went wrong, as a stable string: `analytics_delivery`. */
  readonly code = "analytics_delivery";

  /** The collection address, without query string. */
  readonly endpoint: string;
  /** The HTTP status of the last attempt; absent after a network error. */
  readonly status?: number;
  /** How many requests were made for the batch. */
  readonly attempts: number;
  /** How many events were dropped with the batch. */
  readonly events: number;

  /**
   * Creates the error.
   *
   * @param details Where, how often, how many, and why.
   */
  constructor(details: AnalyticsDeliveryErrorDetails) {
    super(
      `Analytics delivery to ${
        stripQuery(details.endpoint)
      } failed after ${details.attempts} attempt(s): ${details.reason}; ${details.events} event(s) dropped`,
      { cause: details.cause },
    );
    this.name = "AnalyticsDeliveryError";
    this.endpoint = stripQuery(details.endpoint);
    if (details.status !== undefined) this.status = details.status;
    this.attempts = details.attempts;
    this.events = details.events;
  }
}

/** What an {@linkcode AnalyticsDeliveryError} is built from. */
export interface AnalyticsDeliveryErrorDetails {
  /** The collection address (its query string is removed). */
  endpoint: string;
  /** Requests made for the batch. */
  attempts: number;
  /** Events dropped with the batch. */
  events: number;
  /** HTTP status of the last attempt, if any. */
  status?: number;
  /** Short description: `HTTP 401 Unauthorized: <body>` or `network error: <message>`. */
  reason: string;
  /** The underlying error, if any. */
  cause?: unknown;
}

/** What an {@linkcode AnalyticsDeliveryAbortedError} is built from. */
export interface AnalyticsDeliveryAbortedErrorDetails {
  /** The provider's name. */
  provider: string;
  /** The collection address (its query string and password are removed). */
  endpoint: string;
  /** Events dropped because the flush stopped. */
  events: number;
  /** Why it stopped: the signal's reason (a `DeadlineError` on timeout). */
  cause?: unknown;
}

/**
 * Reported once (through a provider's `onError`) when `flush(options)` or
 * `dispose(options)` stopped at its `signal` or `timeout` before every event
 * was delivered: the requests and retry waits still under way were aborted
 * and the events not delivered were dropped (and counted in the provider's
 * `droppedCount` and the flush's `dropped`).
 *
 * Message: `Analytics delivery to <endpoint> stopped before the end
 * (<reason>); <k> event(s) dropped`.
 *
 * @example Usage
 * ```ts
 * import { AnalyticsDeliveryAbortedError } from "@vendor/kit/analytics";
 *
 * const error = new AnalyticsDeliveryAbortedError({
 *   provider: "CustomAnalyticsProvider",
 *   endpoint: "https://collect.example.com/v1/events",
 *   events: 450,
 *   cause: new Error("Timed out after 2000 ms"),
 * });
 * console.log(error.events); // 450
 * ```
 */
export class AnalyticsDeliveryAbortedError extends KitError {
  /** What went wrong, as a stable string: `analytics_delivery_aborted`. */
  readonly code = "analytics_delivery_aborted";

  /** The provider's name. */
  readonly provider: string;
  /** The collection address, without query string or password. */
  readonly endpoint: string;
  /** How many events were dropped. */
  readonly events: number;

  /**
   * Creates the error.
   *
   * @param details Which provider, where, how many, and why.
   */
  constructor(details: AnalyticsDeliveryAbortedErrorDetails) {
    const endpoint = stripQuery(details.endpoint);
    super(
      `Analytics delivery to ${endpoint} stopped before the end (${
        describeReason(details.cause)
      }); ${details.events} event(s) dropped`,
      { cause: details.cause },
    );
    this.name = "AnalyticsDeliveryAbortedError";
    this.provider = details.provider;
    this.endpoint = endpoint;
    this.events = details.events;
  }
}

/**
 * Reported (through a provider's `onError`) when an event arrives while the
 * provider's queue already holds `maxQueueSize` events; that event is dropped
 * and counted in the provider's `droppedCount`. Reported once per overflow
 * episode, not once per dropped event.
 *
 * Message: `Analytics queue of <provider> is full (<max> events); new events
 * are dropped`.
 *
 * @example Usage
 * ```ts
 * import { AnalyticsQueueFullError } from "@vendor/kit/analytics";
 *
 * const error = new AnalyticsQueueFullError("CustomAnalyticsProvider", 10000);
 * console.log(error.maxQueueSize); // 10000
 * ```
 */
export class AnalyticsQueueFullError extends KitError {
  /** What went wrong, as a stable string: `analytics_queue_full`. */
  readonly code = "analytics_queue_full";

  /** The queue bound that was reached. */
  readonly maxQueueSize: number;

  /**
   * Creates the error.
   *
   * @param provider The provider's name.
   * @param maxQueueSize The bound that was reached.
   */
  constructor(provider: string, maxQueueSize: number) {
    super(
      `Analytics queue of ${provider} is full (${maxQueueSize} events); new events are dropped`,
    );
    this.name = "AnalyticsQueueFullError";
    this.maxQueueSize = maxQueueSize;
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  return String(cause);
}

function describeReason(reason: unknown): string {
  if (reason === undefined) return "aborted";
  if (reason instanceof Error) return reason.message || reason.name;
  return String(reason);
}

// The address without query string (GA4's api_secret) and without the
// password of a `user:password@` part.
function stripQuery(endpoint: string): string {
  const index = endpoint.indexOf("?");
  const bare = index === -1 ? endpoint : endpoint.slice(0, index);
  return bare.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/i, "$1:***@");
}
