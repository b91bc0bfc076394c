/**
 * Analytics package of Kit (`@vendor/kit-platform-analytics`):
 * {@linkcode AnalyticsManager} fans `track`, `page` and `identify` calls out
 * to providers as one normalized {@linkcode AnalyticsEvent}, after sampling
 * (stable per user) and consent. {@linkcode CustomAnalyticsProvider} POSTs
 * JSON batches to your endpoint with retries and a bounded queue;
 * {@linkcode ExternalAnalyticsProvider} sends GA4 Measurement Protocol
 * payloads. In browsers the manager can track page views, errors and
 * performance automatically; on Deno, Node and Bun it can track crashes
 * without swallowing them.
 *
 * @example Usage
 * ```ts
 * import {
 *   AnalyticsManager,
 *   CustomAnalyticsProvider,
 *   ExternalAnalyticsProvider,
 * } from "@vendor/kit/analytics";
 *
 * const analytics = new AnalyticsManager({ samplingRate: 0.1 });
 * analytics
 *   .addProvider(new CustomAnalyticsProvider({
 *     endpoint: "https://analytics.example.com/v1/events",
 *     apiKey: "<API_KEY>",
 *     batchSize: 50,
 *     flushInterval: 30000,
 *   }))
 *   .addProvider(new ExternalAnalyticsProvider({
 *     trackingId: "G-XXXXXXX",
 *     apiSecret: "<API_SECRET>",
 *     enableEnhancedEcommerce: true,
 *     anonymizeIp: true,
 *   }));
 * analytics.identify("user-42", { plan: "pro" });
 * analytics.track("purchase", { currency: "EUR", value: 25, items: [{ id: "SKU-1" }] });
 * const { delivered, dropped } = await analytics.flush();
 * console.log(delivered, dropped);
 * // On shutdown: at most 5 s, then what is left is dropped and reported.
 * await analytics.dispose({ timeout: 5000 });
 * ```
 *
 * @module
 */
export type * from "./analytics_event.ts";
export type * from "./analytics_provider.ts";
export * from "./analytics_errors.ts";
export type * from "./analytics_delivery_options.ts";
export * from "./sampling.ts";
export * from "./analytics_manager.ts";
export * from "./analytics_options.ts";
export * from "./custom_analytics_provider.ts";
export * from "./external_analytics_provider.ts";
// The shared types of flush/dispose limits and health checks, re-exported so
// the analytics package documents (and types) them by itself.
export type { DisposeOptions } from "../core/mod.ts";
export type { HealthCheckResult, HealthStatus } from "../platform/mod.ts";
