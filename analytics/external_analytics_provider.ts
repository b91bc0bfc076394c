import type { IConfiguration } from "../config/mod.ts";
import type { AnalyticsEvent } from "./analytics_event.ts";
import type {
  AnalyticsFlushResult,
  IAnalyticsProvider,
} from "./analytics_provider.ts";
import type { AnalyticsDeliveryOptions } from "./analytics_delivery_options.ts";
import { AnalyticsConfigurationError } from "./analytics_errors.ts";
import { DeliveryQueue } from "./_delivery_queue.ts";
import { postJson } from "./_http.ts";
import {
  GA4_MAX_EVENTS_PER_REQUEST,
  type Ga4UserProperties,
  toGa4Event,
  toGa4UserProperties,
} from "./_ga4.ts";
import {
  configString,
  optionalConfigBoolean,
  optionalConfigString,
  requireString,
  resolveDelivery,
  resolveEndpoint,
} from "./_options.ts";

const NAME = "ExternalAnalyticsProvider";
const MAX_REMEMBERED_USERS = 1000;

/** Google's Measurement Protocol collection address (GA4). */
export const GA4_COLLECT_ENDPOINT =
  "https://www.google-analytics.com/mp/collect";

/**
 * Options of {@linkcode ExternalAnalyticsProvider} (spec §2.8: `trackingId`,
 * `enableEnhancedEcommerce`, `anonymizeIp`), plus the collection address,
 * the Measurement Protocol API secret and the shared
 * {@linkcode AnalyticsDeliveryOptions} (`batchSize` default and maximum 25,
 * `flushInterval` default 5000 ms).
 */
export interface ExternalAnalyticsProviderOptions
  extends AnalyticsDeliveryOptions {
  /** The GA4 measurement id (`G-XXXXXXX`, `GOOGLE_ANALYTICS_ID`). */
  trackingId: string;
  /**
   * Map ecommerce events (`purchase`, `add_to_cart`, `view_item`, … and the
   * Segment names `Order Completed`, `Product Added`, …) onto GA4's
   * ecommerce shapes: `items`, `value`, `currency`, `transaction_id`, ….
   * Default `false`: such events are sent like any other.
   */
  enableEnhancedEcommerce?: boolean;
  /**
   * Strip IP-like values and IP or user-agent properties (`ip`, `ipAddress`,
   * `x-forwarded-for`, `userAgent`, …) from params, items and user
   * properties before sending. GA4 itself neither logs nor stores IP
   * addresses, so there is no GA4 switch to set. Default `true`.
   */
  anonymizeIp?: boolean;
  /**
   * Collection address; default {@linkcode GA4_COLLECT_ENDPOINT}. Use
   * `https://region1.google-analytics.com/mp/collect` for EU collection, the
   * `/debug/mp/collect` address to validate, or your own server-side proxy.
   */
  endpoint?: string;
  /**
   * The Measurement Protocol API secret (Admin → Data streams → Measurement
   * Protocol API secrets). Google silently discards hits without one, so
   * with Google's address and no secret the provider reports an
   * {@linkcode AnalyticsConfigurationError} through `onError` once and drops
   * events instead of sending them.
   */
  apiSecret?: string;
}

/**
 * Sends events to Google Analytics 4 through the Measurement Protocol:
 * `POST <endpoint>?measurement_id=<trackingId>&api_secret=<apiSecret>` with
 * `{ client_id, user_id?, user_properties?, events: [{ name, params,
 * timestamp_micros }] }`, at most 25 events per request (one request per
 * client and user).
 *
 * Mapping: `track(name)` → a GA4 event named in snake_case (`Signed Up` →
 * `signed_up`; reserved names such as `error` or `session_start` get an
 * `app_` prefix); `page()` → `page_view` with `page_location`, `page_title`,
 * `page_referrer`; properties → params (snake_case names of at most 40
 * characters, strings cut to 100, booleans as `"true"`/`"false"`, objects as
 * JSON, at most 25 params); `identify(userId, traits)` → `user_id` and
 * `user_properties` of that user's following requests (GA4 has no identify
 * hit). A sampled event carries its rate as the `sample_rate` param.
 *
 * GA4 answers 2xx even to malformed payloads; validate with the
 * `/debug/mp/collect` endpoint.
 *
 * @example Usage
 * ```ts
 * import { AnalyticsManager, ExternalAnalyticsProvider } from "@vendor/kit/analytics";
 *
 * const analytics = new AnalyticsManager();
 * analytics.addProvider(
 *   new ExternalAnalyticsProvider({
 *     trackingId: "G-XXXXXXX",
 *     apiSecret: "<API_SECRET>",
 *     enableEnhancedEcommerce: true,
 *     anonymizeIp: true,
 *   }),
 * );
 * analytics.track("purchase", {
 *   transactionId: "T-1001",
 *   currency: "EUR",
 *   items: [{ id: "SKU-1", name: "Mug", price: 12.5, quantity: 2 }],
 * });
 * await analytics.dispose();
 * ```
 */
export class ExternalAnalyticsProvider implements IAnalyticsProvider {
  /** The provider's name in error messages. */
  readonly name: string = NAME;
  readonly #queue: DeliveryQueue<AnalyticsEvent>;
  readonly #url: string;
  readonly #mapping: { enhancedEcommerce: boolean; anonymizeIp: boolean };
  readonly #userProperties = new Map<string, Ga4UserProperties>();
  readonly #disabled: boolean;

  /**
   * Creates the provider.
   *
   * @param options Tracking id, secret, mapping switches and batching.
   * @throws {AnalyticsConfigurationError} When `trackingId` is missing
   * (`ExternalAnalyticsProvider: trackingId is required`), `endpoint` is not
   * an http(s) URL, or `batchSize` is not an integer from 1 to 25.
   */
  constructor(options: ExternalAnalyticsProviderOptions) {
    const trackingId = requireString(NAME, "trackingId", options?.trackingId);
    const endpoint = resolveEndpoint(
      NAME,
      "endpoint",
      options.endpoint ?? GA4_COLLECT_ENDPOINT,
    );
    const delivery = resolveDelivery(NAME, options, {
      batchSize: GA4_MAX_EVENTS_PER_REQUEST,
      flushInterval: 5_000,
      maxBatchSize: GA4_MAX_EVENTS_PER_REQUEST,
    });
    const url = new URL(endpoint);
    url.searchParams.set("measurement_id", trackingId);
    if (options.apiSecret) {
      url.searchParams.set("api_secret", options.apiSecret);
    }
    this.#url = url.href;
    this.#mapping = {
      enhancedEcommerce: options.enableEnhancedEcommerce ?? false,
      anonymizeIp: options.anonymizeIp ?? true,
    };
    this.#disabled = !options.apiSecret &&
      url.hostname.endsWith("google-analytics.com");
    if (this.#disabled) {
      delivery.onError(
        new AnalyticsConfigurationError(
          `${NAME}: apiSecret is required by Google's Measurement Protocol; events are dropped until one is set`,
        ),
      );
    }
    const timeout = delivery.requestTimeout;
    this.#queue = new DeliveryQueue<AnalyticsEvent>({
      ...delivery,
      name: NAME,
      endpoint,
      batchKey: (event) => `${event.anonymousId}\u0000${event.userId ?? ""}`,
      send: async (batch) => {
        await postJson(this.#url, this.#body(batch), {}, timeout);
      },
    });
  }

  /**
   * Builds the provider from configuration: `analytics:trackingId`
   * (required; `GOOGLE_ANALYTICS_ID` through the standard variables),
   * `analytics:apiSecret`, `analytics:ga4Endpoint`,
   * `analytics:enableEnhancedEcommerce` and `analytics:anonymizeIp` (booleans
   * may be the strings `"true"`/`"false"`). Explicit `options` win.
   *
   * @param config Any {@linkcode IConfiguration} (the ConfigurationManager).
   * @param options Options that override the configuration.
   * @returns The provider.
   * @throws {Error} `Configuration value not found: analytics:trackingId`
   * when the tracking id is missing and not given in `options`.
   *
   * @example Usage
   * ```ts
   * import type { IConfiguration } from "@vendor/kit/config";
   * import { ExternalAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const values: Record<string, unknown> = {
   *   "analytics:trackingId": "G-XXXXXXX",
   *   "analytics:apiSecret": "<API_SECRET>",
   * };
   * const config: IConfiguration = {
   *   hasValue: (key) => key in values,
   *   getValue: <T>(key: string, fallback?: T) => (values[key] ?? fallback) as T,
   * };
   * const provider = ExternalAnalyticsProvider.fromConfiguration(config);
   * await provider.dispose();
   * ```
   */
  static fromConfiguration(
    config: IConfiguration,
    options: Partial<ExternalAnalyticsProviderOptions> = {},
  ): ExternalAnalyticsProvider {
    const fromConfig: Partial<ExternalAnalyticsProviderOptions> = {
      trackingId: options.trackingId ??
        configString(config, "analytics:trackingId"),
    };
    const apiSecret = optionalConfigString(config, "analytics:apiSecret");
    if (apiSecret !== undefined) fromConfig.apiSecret = apiSecret;
    const endpoint = optionalConfigString(config, "analytics:ga4Endpoint");
    if (endpoint !== undefined) fromConfig.endpoint = endpoint;
    const ecommerce = optionalConfigBoolean(
      config,
      "analytics:enableEnhancedEcommerce",
    );
    if (ecommerce !== undefined) fromConfig.enableEnhancedEcommerce = ecommerce;
    const anonymizeIp = optionalConfigBoolean(config, "analytics:anonymizeIp");
    if (anonymizeIp !== undefined) fromConfig.anonymizeIp = anonymizeIp;
    const merged: Partial<ExternalAnalyticsProviderOptions> = { ...fromConfig };
    for (
      const key of Object.keys(
        options,
      ) as (keyof ExternalAnalyticsProviderOptions)[]
    ) {
      if (options[key] !== undefined) {
        (merged as Record<string, unknown>)[key] = options[key];
      }
    }
    return new ExternalAnalyticsProvider(
      merged as ExternalAnalyticsProviderOptions,
    );
  }

  /** Events dropped so far (overflow, rejected batches, no API secret). */
  get droppedCount(): number {
    return this.#queue.dropped;
  }

  /** Events delivered so far. */
  get deliveredCount(): number {
    return this.#queue.delivered;
  }

  /** Events queued or in flight right now. */
  get pendingCount(): number {
    return this.#queue.queued + this.#queue.inFlight;
  }

  /**
   * Queues a `track` event (mapped when sent).
   *
   * @param event The normalized event.
   */
  track(event: AnalyticsEvent): void {
    this.#enqueue(event);
  }

  /**
   * Queues a `page` event, sent as `page_view`.
   *
   * @param event The normalized event.
   */
  page(event: AnalyticsEvent): void {
    this.#enqueue(event);
  }

  /**
   * Remembers the user's traits as GA4 user properties for that user's
   * following requests (the last 1000 users are kept). Nothing is sent by
   * itself: the Measurement Protocol has no identify hit.
   *
   * @param event The normalized `identify` event.
   */
  identify(event: AnalyticsEvent): void {
    if (event.userId === undefined) return;
    const properties = {
      ...this.#userProperties.get(event.userId),
      ...toGa4UserProperties(event.properties, this.#mapping.anonymizeIp),
    };
    this.#userProperties.delete(event.userId);
    this.#userProperties.set(event.userId, properties);
    if (this.#userProperties.size > MAX_REMEMBERED_USERS) {
      const oldest = this.#userProperties.keys().next().value;
      if (oldest !== undefined) this.#userProperties.delete(oldest);
    }
  }

  /**
   * Sends everything queued and waits for the outcome of every event queued
   * or in flight before this call.
   *
   * @returns How many of those events were delivered and dropped.
   */
  flush(): Promise<AnalyticsFlushResult> {
    return this.#queue.flush();
  }

  /**
   * Flushes, then stops the timer; later events are dropped.
   *
   * @returns Resolves when the flush is over.
   */
  async dispose(): Promise<void> {
    await this.#queue.close();
  }

  /**
   * Same as {@linkcode dispose}, for `await using`.
   *
   * @returns Resolves when the flush is over.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #enqueue(event: AnalyticsEvent): void {
    if (this.#disabled) this.#queue.drop();
    else this.#queue.enqueue(event);
  }

  #body(batch: readonly AnalyticsEvent[]): string {
    const first = batch[0];
    const body: Record<string, unknown> = { client_id: first.anonymousId };
    if (first.userId !== undefined) {
      body.user_id = first.userId;
      const properties = this.#userProperties.get(first.userId);
      if (properties !== undefined && Object.keys(properties).length > 0) {
        body.user_properties = properties;
      }
    }
    body.events = batch.map((event) => toGa4Event(event, this.#mapping));
    return JSON.stringify(body);
  }
}
