// The options and counters of the AnalyticsManager, on their own so the
// manager's file holds its behaviour only.

/**
 * What happens to events while consent is pending: `"hold"` keeps them in
 * memory (at most `maxHeldEvents`) until `setConsent(true)` releases them;
 * `"drop"` discards them.
 */
export type AnalyticsConsentMode = "hold" | "drop";

/**
 * Consent state: `"pending"` (required and not given yet), `"granted"`
 * (events flow, also when consent is not required), `"denied"` (revoked or
 * refused; events are dropped).
 */
export type AnalyticsConsentState = "pending" | "granted" | "denied";

/**
 * Options of {@linkcode AnalyticsManager.configure}
 * (`enableAutoPageTracking`, `enableErrorTracking`,
 * `enablePerformanceTracking`, `samplingRate`) and the consent, identity
 * and error settings. Every option may be changed by a later `configure`
 * call; options left out keep their value.
 */
export interface AnalyticsOptions {
  /**
   * Browsers: a page view on load and on every history
   * `pushState`/`replaceState`/`popstate` that changes the URL. No-op on
   * Deno, Node and Bun. Default `false`.
   */
  enableAutoPageTracking?: boolean;
  /**
   * Track uncaught errors and unhandled promise rejections as `exception`
   * events (`description`, `errorName`, `stack`, `source`, `fatal`).
   * Browsers: the `error` and `unhandledrejection` events. Deno, Node, Bun:
   * the runtime's uncaught-error and unhandled-rejection hooks, never
   * swallowing the error (see the README). Default `false`.
   */
  enableErrorTracking?: boolean;
  /**
   * Browsers: `performance` events from PerformanceObserver (navigation
   * timing after load; LCP, CLS and INP when the page is hidden or the
   * manager disposed), each where the browser supports it. No-op elsewhere.
   * Default `false`.
   */
  enablePerformanceTracking?: boolean;
  /**
   * Fraction of users whose events are kept, from 0 to 1 (0.1 keeps 10 %).
   * Decided per id (`userId`, else `anonymousId`) with a stable hash
   * ({@linkcode isSampledIn}), so a kept user keeps all their events; every
   * kept event carries the rate as `sampleRate`. Default 1.
   */
  samplingRate?: number;
  /** Hold back events until `setConsent(true)`. Default `false`. */
  requireConsent?: boolean;
  /** What pending consent does to events. Default `"hold"`. */
  consentMode?: AnalyticsConsentMode;
  /** Events held while consent is pending, at most; later ones are dropped. Default 100. */
  maxHeldEvents?: number;
  /**
   * The anonymous id of this manager's events. Default: a random UUID per
   * manager; pass a persisted one to recognise returning visitors.
   */
  anonymousId?: string;
  /**
   * Browsers: flush the providers when the page is hidden or unloaded (the
   * HTTP providers then send with `keepalive`). Default `true`.
   */
  flushOnPageHide?: boolean;
  /**
   * Deno, Node, Bun: how long a crash waits for the `exception` event to be
   * flushed before it proceeds. Default 2000 ms.
   */
  errorFlushTimeout?: number;
  /**
   * Receives what providers threw or rejected with, wrapped in
   * {@linkcode AnalyticsProviderError}, and the delivery errors
   * ({@linkcode AnalyticsDeliveryError}, queue overflow…) of Kit's providers
   * added to this manager that have no `onError` of their own. Default:
   * the running application's logging (category `kit.analytics`, level
   * error), or `console.error` outside an application with a logging step.
   */
  onError?: (error: Error) => void;
}

/** Counters of {@linkcode AnalyticsManager.stats}. */
export interface AnalyticsStats {
  /** Events handed to the providers. */
  dispatched: number;
  /** Events discarded by sampling. */
  sampledOut: number;
  /** Events held right now, waiting for consent. */
  held: number;
  /** Events dropped for lack of consent (drop mode, held overflow, revocation). */
  droppedByConsent: number;
  /** Provider failures reported to `onError`. */
  providerErrors: number;
}
