/**
 * What an event reports: `track` for a named action, `page` for a page view,
 * `identify` for who the user is.
 */
export type AnalyticsEventType = "track" | "page" | "identify";

/**
 * Free-form event properties (identify traits for `identify` events). Values
 * should be JSON-serializable; providers decide how to map them onto their
 * wire format.
 */
export type AnalyticsProperties = Record<string, unknown>;

/**
 * The one normalized event every {@linkcode IAnalyticsProvider} receives,
 * built by {@linkcode AnalyticsManager} from `track`, `page` and `identify`
 * calls.
 *
 * @example Usage
 * ```ts
 * import type { AnalyticsEvent } from "@vendor/kit/analytics";
 *
 * const event: AnalyticsEvent = {
 *   type: "track",
 *   name: "signed_up",
 *   properties: { plan: "pro" },
 *   timestamp: Date.now(),
 *   anonymousId: "3f1c…",
 *   userId: "user-42",
 *   sampleRate: 0.1,
 *   messageId: "b0e4…",
 * };
 * console.log(event.sampleRate);
 * ```
 */
export interface AnalyticsEvent {
  /** The kind of call that produced the event. */
  readonly type: AnalyticsEventType;
  /**
   * The event name for `track`; the page name for `page` (the given name,
   * else the document title or path in browsers, else `"page"`); `"identify"`
   * for `identify`.
   */
  readonly name: string;
  /** Event properties (a shallow copy of what was passed); traits for `identify`. */
  readonly properties: AnalyticsProperties;
  /** When the call was made, in milliseconds since the Unix epoch. */
  readonly timestamp: number;
  /** The anonymous (device or session) id. */
  readonly anonymousId: string;
  /** The user id, once known through `identify` or given per call. */
  readonly userId?: string;
  /**
   * The sampling rate in force when the event was kept (1 when everything is
   * kept). Receivers re-weight counts by `1 / sampleRate`.
   */
  readonly sampleRate: number;
  /** A unique id per event, so a receiver can drop duplicates after a retry. */
  readonly messageId: string;
  /**
   * Where the event happened: present when the call gave a `requestId` or
   * was made inside `RequestContext.run(...)` (from the platform module; the
   * application host opens one per request).
   */
  readonly context?: AnalyticsEventContext;
}

/**
 * The context of an {@linkcode AnalyticsEvent}.
 *
 * @example Usage
 * ```ts
 * import type { AnalyticsEventContext } from "@vendor/kit/analytics";
 *
 * const context: AnalyticsEventContext = { requestId: "r-42" };
 * console.log(context.requestId);
 * ```
 */
export interface AnalyticsEventContext {
  /**
   * The request the event was tracked in: the call's own `requestId`, else
   * the one of the current `RequestContext`.
   */
  readonly requestId?: string;
}

/**
 * Per-call identity for server code that serves many users from one
 * {@linkcode AnalyticsManager}: the ids given here replace the manager's
 * current ones for this one event.
 *
 * @example Usage
 * ```ts
 * import { AnalyticsManager } from "@vendor/kit/analytics";
 *
 * const analytics = new AnalyticsManager();
 * analytics.track("order_shipped", { orderId: "A-1" }, { userId: "user-42" });
 * await analytics.dispose();
 * ```
 */
export interface AnalyticsCallContext {
  /** The user this event is about. */
  userId?: string;
  /** The anonymous id this event is about. */
  anonymousId?: string;
  /** When it happened, in milliseconds since the epoch (defaults to now). */
  timestamp?: number;
  /**
   * The request this event belongs to; default the `requestId` of the
   * current `RequestContext`, if any.
   */
  requestId?: string;
}
