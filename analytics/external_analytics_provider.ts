import type { IConfiguration } from "../config/mod.ts";
import type { DisposeOptions } from "../core/mod.ts";
import type { HealthCheckResult } from "../platform/mod.ts";
import type { AnalyticsEvent } from "./analytics_event.ts";
import type {
  AnalyticsFlushResult,
  IAnalyticsProvider,
} from "./analytics_provider.ts";
import type { AnalyticsDeliveryOptions } from "./analytics_delivery_options.ts";
import { AnalyticsConfigurationError } from "./analytics_errors.ts";
import { AnalyticsDeliveryQueue } from "./_analytics_delivery_queue.ts";
import { registerErrorRoute } from "./_error_route.ts";
import {
  GA4_PAGE_ENDPOINT,
  pageCollectBody,
  pageCollectUrl,
} from "./_ga4_page.ts";
import { postAnalyticsJson } from "./_http.ts";
import { secretMasker } from "./_mask.ts";
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
import {
  analyticsOff,
  announceAnalyticsOff,
  offHealth,
  type TurnedOff,
  turnedOffIn,
  turnedOffOptions,
} from "./_switch.ts";

const NAME = "ExternalAnalyticsProvider";
const MAX_REMEMBERED_USERS = 1000;

/** Google's Measurement Protocol collection address (GA4). */
export const GA4_COLLECT_ENDPOINT =
  "https://www.google-analytics.com/mp/collect";

/**
 * Options of {@linkcode ExternalAnalyticsProvider} (`trackingId`,
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
   * Collection address; default {@linkcode GA4_COLLECT_ENDPOINT}, or in a
   * browser page without `apiSecret` Google's page address
   * (`https://www.google-analytics.com/g/collect`). Use
   * `https://region1.google-analytics.com/mp/collect` for EU collection, the
   * `/debug/mp/collect` address to validate, or your own server-side proxy.
   */
  endpoint?: string;
  /**
   * The Measurement Protocol API secret (Admin → Data streams → Measurement
   * Protocol API secrets), needed outside a browser: Google silently
   * discards Measurement Protocol hits without one, so on a server, with
   * Google's address and no secret, the constructor throws an
   * {@linkcode AnalyticsConfigurationError} that says so. In a browser page
   * it is not needed (and should not be shipped to pages): without it the
   * provider sends as Google's tag does.
   */
  apiSecret?: string;
}

/**
 * Sends events to Google Analytics 4. In a browser page given no `apiSecret`
 * (the tracking id alone, as Google's tag takes it), it uses the page-side
 * collection protocol of Google's tag: `POST <endpoint>?v=2&tid=<trackingId>
 * &cid=<client id>…` with one line of parameters per event (`en=page_view
 * &dl=…`, `ep.<name>=…`, `epn.<name>=…`, items as `pr1=idSKU~nmName~pr9.99`),
 * sent without CORS to another site (an opaque answer counts as delivered).
 * Elsewhere it uses the Measurement Protocol:
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
  // Both undefined when built turned off by features:enableAnalytics.
  readonly #queue: AnalyticsDeliveryQueue<AnalyticsEvent> | undefined;
  readonly #off: TurnedOff | undefined;
  readonly #url: string;
  readonly #mapping: { enhancedEcommerce: boolean; anonymizeIp: boolean };
  readonly #userProperties = new Map<string, Ga4UserProperties>();
  readonly #pageProtocol: boolean;
  readonly #trackingId: string;

  /**
   * Creates the provider.
   *
   * @param options Tracking id, secret, mapping switches and batching.
   * @throws {AnalyticsConfigurationError} When `trackingId` is missing
   * (`ExternalAnalyticsProvider: trackingId is required`), `endpoint` is not
   * an http(s) URL, `batchSize` is not an integer from 1 to 25, or, outside
   * a browser page, `apiSecret` is missing while the address is Google's
   * (`ExternalAnalyticsProvider: apiSecret is required outside a browser: …`).
   */
  constructor(options: ExternalAnalyticsProviderOptions) {
    this.#off = turnedOffIn(options);
    if (this.#off !== undefined) {
      this.#url = "";
      this.#mapping = { enhancedEcommerce: false, anonymizeIp: true };
      this.#pageProtocol = false;
      this.#trackingId = "";
      return;
    }
    const trackingId = requireString(NAME, "trackingId", options?.trackingId);
    // Without an API secret, a page sends as Google's tag does; a server
    // needs the secret for Google's Measurement Protocol.
    const pageProtocol = !options.apiSecret && inBrowserPage();
    const endpoint = resolveEndpoint(
      NAME,
      "endpoint",
      options.endpoint ??
        (pageProtocol ? GA4_PAGE_ENDPOINT : GA4_COLLECT_ENDPOINT),
    );
    const delivery = resolveDelivery(NAME, options, {
      batchSize: GA4_MAX_EVENTS_PER_REQUEST,
      flushInterval: 5_000,
      maxBatchSize: GA4_MAX_EVENTS_PER_REQUEST,
    });
    const url = new URL(endpoint);
    if (
      !options.apiSecret && !pageProtocol &&
      url.hostname.endsWith("google-analytics.com")
    ) {
      throw new AnalyticsConfigurationError(
        `${NAME}: apiSecret is required outside a browser: Google's Measurement Protocol drops events sent without one. ` +
          "Create one in Google Analytics (Admin → Data streams → your stream → Measurement Protocol API secrets) " +
          "and pass it as apiSecret (or set analytics:apiSecret). In a browser page the trackingId alone is enough.",
      );
    }
    registerErrorRoute(this, delivery.route);
    this.#pageProtocol = pageProtocol;
    this.#trackingId = trackingId;
    if (!pageProtocol) {
      url.searchParams.set("measurement_id", trackingId);
      if (options.apiSecret) {
        url.searchParams.set("api_secret", options.apiSecret);
      }
    }
    this.#url = url.href;
    this.#mapping = {
      enhancedEcommerce: options.enableEnhancedEcommerce ?? false,
      anonymizeIp: options.anonymizeIp ?? true,
    };
    const timeout = delivery.requestTimeout;
    // A network error may quote the URL, and a proxy may echo it: the API
    // secret never reaches an error message.
    const mask = secretMasker([options.apiSecret]);
    // A collector on another site cannot be read from a page (no CORS), as
    // with Google's tag: an opaque answer counts as delivered.
    const crossSite = pageProtocol && url.origin !== pageOrigin();
    this.#queue = new AnalyticsDeliveryQueue<AnalyticsEvent>({
      ...delivery,
      name: NAME,
      endpoint,
      batchKey: (event) => `${event.anonymousId}\u0000${event.userId ?? ""}`,
      send: async (batch, signal) => {
        if (pageProtocol) {
          await postAnalyticsJson(
            this.#pageUrl(batch),
            this.#pageBody(batch),
            {},
            timeout,
            {
              signal,
              mask,
              contentType: "text/plain;charset=UTF-8",
              noCors: crossSite,
            },
          );
        } else {
          await postAnalyticsJson(this.#url, this.#body(batch), {}, timeout, {
            signal,
            mask,
          });
        }
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
   * With `features:enableAnalytics` set to `false` (`FEATURE_ANALYTICS=false`)
   * the provider is created turned off ({@linkcode enabled} is `false`): it
   * sends no event, starts no timer and reads none of its own keys (no
   * tracking id is needed); `track`, `page` and `identify` do nothing,
   * `flush` and `dispose` resolve at once and `checkHealth` says it is
   * disabled (healthy). It says so once per configuration, as an info line
   * under `kit.analytics` in the running application's logging. A provider
   * built with `new` sends as the code says, whatever the switch.
   *
   * @param config Any {@linkcode IConfiguration} (the ConfigurationManager).
   * @param options Options that override the configuration.
   * @returns The provider.
   * @throws {Error} `Configuration value not found: analytics:trackingId`
   * when the tracking id is missing and not given in `options`.
   * @throws {AnalyticsConfigurationError} When `features:enableAnalytics` is
   * not a boolean (naming the value and its source), or an option is out of
   * range.
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
    const off = analyticsOff(config);
    if (off !== undefined) {
      announceAnalyticsOff(config, off);
      return new ExternalAnalyticsProvider(turnedOffOptions(off));
    }
    // Configuration fills only what the code did not set: a key the code
    // overrides is not even read (so a bad value there cannot fail).
    const fromConfig: Partial<ExternalAnalyticsProviderOptions> = {};
    if (options.trackingId === undefined) {
      fromConfig.trackingId = configString(config, "analytics:trackingId");
    }
    if (options.apiSecret === undefined) {
      const apiSecret = optionalConfigString(config, "analytics:apiSecret");
      if (apiSecret !== undefined) fromConfig.apiSecret = apiSecret;
    }
    if (options.endpoint === undefined) {
      const endpoint = optionalConfigString(config, "analytics:ga4Endpoint");
      if (endpoint !== undefined) fromConfig.endpoint = endpoint;
    }
    for (const key of ["enableEnhancedEcommerce", "anonymizeIp"] as const) {
      if (options[key] !== undefined) continue;
      const value = optionalConfigBoolean(config, `analytics:${key}`);
      if (value !== undefined) fromConfig[key] = value;
    }
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

  /**
   * `false` when the provider was built by `fromConfiguration` with
   * `features:enableAnalytics` set to `false`: it then sends nothing.
   */
  get enabled(): boolean {
    return this.#off === undefined;
  }

  /** Events dropped so far (overflow, rejected batches, no API secret). */
  get droppedCount(): number {
    return this.#queue?.state.dropped ?? 0;
  }

  /** Events delivered so far. */
  get deliveredCount(): number {
    return this.#queue?.state.delivered ?? 0;
  }

  /** Events queued or in flight right now. */
  get pendingCount(): number {
    return this.#queue === undefined
      ? 0
      : this.#queue.queued + this.#queue.inFlight;
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
    if (event.userId === undefined || this.#off !== undefined) return;
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
   * or in flight before this call, or until `options.signal` aborts or
   * `options.timeout` ms pass: then the requests and retry waits still under
   * way are aborted, the events not delivered are dropped (reported once as
   * {@linkcode AnalyticsDeliveryAbortedError}) and the call resolves.
   *
   * @param options A signal and/or a timeout in milliseconds bounding the wait.
   * @returns How many of those events were delivered and dropped.
   * @throws {RangeError} When `options.timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { ExternalAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const provider = new ExternalAnalyticsProvider({
   *   trackingId: "G-XXXXXXX",
   *   apiSecret: "<API_SECRET>",
   * });
   * const { delivered, dropped } = await provider.flush({ timeout: 5000 });
   * console.log(delivered, dropped); // 0 0
   * await provider.dispose();
   * ```
   */
  flush(options?: DisposeOptions): Promise<AnalyticsFlushResult> {
    if (this.#queue === undefined) {
      return Promise.resolve({ delivered: 0, dropped: 0 });
    }
    return this.#queue.flush(options);
  }

  /**
   * Flushes (within `options`, as for {@linkcode flush}), then stops the
   * timer; later events are dropped. Never rejects because of the deadline.
   *
   * @param options A signal and/or a timeout in milliseconds bounding the flush.
   * @returns Resolves when the flush is over.
   * @throws {RangeError} When `options.timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { ExternalAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const provider = new ExternalAnalyticsProvider({
   *   trackingId: "G-XXXXXXX",
   *   apiSecret: "<API_SECRET>",
   * });
   * await provider.dispose({ timeout: 2000 });
   * ```
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    await this.#queue?.close(options);
  }

  /**
   * Reports the delivery state: `"degraded"` while deliveries fail or when
   * events were dropped since the previous check; `"healthy"` otherwise. (A
   * missing `apiSecret` outside a browser fails at construction instead.) The detail holds counts (`pending`, `delivered`, `dropped`,
   * `droppedSinceLastCheck`), `failing`, `breaker` and, when degraded, a
   * `reason`; never the secret or the address. Turned off by
   * `features:enableAnalytics`: `"healthy"`, with `disabled: true` and the
   * switch's source as the `reason`.
   *
   * @returns The state, with counts.
   *
   * @example Usage
   * ```ts
   * import { ExternalAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const provider = new ExternalAnalyticsProvider({
   *   trackingId: "G-XXXXXXX",
   *   apiSecret: "<API_SECRET>",
   * });
   * console.log(provider.checkHealth().status); // "healthy"
   * await provider.dispose();
   * ```
   */
  checkHealth(): HealthCheckResult {
    return this.#queue?.health() ?? offHealth(this.#off!);
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
    this.#queue?.enqueue(event);
  }

  #pageUrl(batch: readonly AnalyticsEvent[]): string {
    const first = batch[0];
    return pageCollectUrl(this.#url, {
      trackingId: this.#trackingId,
      clientId: first.anonymousId,
      userId: first.userId,
      userProperties: first.userId === undefined
        ? undefined
        : this.#userProperties.get(first.userId),
    });
  }

  #pageBody(batch: readonly AnalyticsEvent[]): string {
    return pageCollectBody(
      batch.map((event) => toGa4Event(event, this.#mapping)),
    );
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

// A browser page (not a worker, not a server runtime).
function inBrowserPage(): boolean {
  const g = globalThis as { document?: unknown; location?: { href?: unknown } };
  return typeof g.document === "object" && g.document !== null &&
    typeof g.location?.href === "string";
}

function pageOrigin(): string | undefined {
  const href = (globalThis as { location?: { href?: unknown } }).location
    ?.href;
  if (typeof href !== "string") return undefined;
  try {
    return new URL(href).origin;
  } catch {
    return undefined;
  }
}
