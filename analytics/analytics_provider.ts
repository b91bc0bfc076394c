import type { AnalyticsEvent } from "./analytics_event.ts";
import type { DisposeOptions } from "../core/mod.ts";
import type { HealthCheckResult } from "../platform/mod.ts";

/**
 * How many of the events a flush waited for were delivered and how many were
 * definitively dropped (rejected by the endpoint, retries exhausted, or the
 * provider was misconfigured).
 *
 * @example Usage
 * ```ts
 * import type { AnalyticsFlushResult } from "@vendor/kit/analytics";
 *
 * const result: AnalyticsFlushResult = { delivered: 49, dropped: 1 };
 * console.log(result.delivered + result.dropped); // 50
 * ```
 */
export interface AnalyticsFlushResult {
  /** Events the endpoint accepted. */
  delivered: number;
  /** Events given up on. */
  dropped: number;
}

/**
 * A destination for analytics events. {@linkcode AnalyticsManager} hands
 * every provider the same normalized {@linkcode AnalyticsEvent}; a provider
 * that throws or rejects never stops the others (the manager reports the
 * failure to its `onError` hook).
 *
 * `track`, `page` and `identify` should be cheap (enqueue and return); the
 * manager does not await them. `flush` resolves once everything received
 * before it was delivered or dropped (or at its deadline); `dispose` flushes,
 * then releases timers and hooks.
 *
 * @example A provider that keeps events in memory
 * ```ts
 * import type {
 *   AnalyticsEvent,
 *   AnalyticsFlushResult,
 *   IAnalyticsProvider,
 * } from "@vendor/kit/analytics";
 *
 * class MemoryAnalyticsProvider implements IAnalyticsProvider {
 *   readonly name = "memory";
 *   readonly events: AnalyticsEvent[] = [];
 *   track(event: AnalyticsEvent): void {
 *     this.events.push(event);
 *   }
 *   page(event: AnalyticsEvent): void {
 *     this.events.push(event);
 *   }
 *   identify(event: AnalyticsEvent): void {
 *     this.events.push(event);
 *   }
 *   flush(): Promise<AnalyticsFlushResult> {
 *     return Promise.resolve({ delivered: 0, dropped: 0 });
 *   }
 *   dispose(): Promise<void> {
 *     return Promise.resolve();
 *   }
 * }
 * console.log(new MemoryAnalyticsProvider().name);
 * ```
 */
export interface IAnalyticsProvider {
  /** A name for error messages; the class name is used when absent. */
  readonly name?: string;
  /**
   * Optional: `false` when the provider sends nothing (Kit's providers built
   * from a configuration whose `features:enableAnalytics` is `false`). A
   * manager whose providers all say `false` skips its work: `track`, `page`
   * and `identify` return at once.
   */
  readonly enabled?: boolean;
  /**
   * Receives a `track` event.
   *
   * @param event The normalized event.
   */
  track(event: AnalyticsEvent): void | Promise<void>;
  /**
   * Receives a `page` event.
   *
   * @param event The normalized event.
   */
  page(event: AnalyticsEvent): void | Promise<void>;
  /**
   * Receives an `identify` event (traits in `properties`).
   *
   * @param event The normalized event.
   */
  identify(event: AnalyticsEvent): void | Promise<void>;
  /**
   * Delivers everything received so far. A provider that waits on the
   * network should stop when `options.signal` aborts or `options.timeout`
   * ms pass: count what was not delivered as dropped, report it once, and
   * resolve (never reject because of the deadline). The manager stops
   * waiting for a provider at the deadline anyway.
   *
   * @param options A signal and/or a timeout bounding the wait.
   * @returns How many events were delivered and dropped, when the provider
   * counts them.
   */
  flush(options?: DisposeOptions): Promise<AnalyticsFlushResult | void>;
  /**
   * Flushes (within `options`, as for `flush`), then releases timers and
   * hooks. Later events are ignored.
   *
   * @param options A signal and/or a timeout bounding the flush.
   * @returns Resolves when done.
   */
  dispose(options?: DisposeOptions): Promise<void>;
  /**
   * Optional: reports whether the provider delivers. The manager's
   * `checkHealth()` reports the worst of its providers'.
   *
   * @param signal Aborts when the check's time is up.
   * @returns The state.
   */
  checkHealth?(
    signal?: AbortSignal,
  ): HealthCheckResult | Promise<HealthCheckResult>;
}
