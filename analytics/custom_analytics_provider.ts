import type { IConfiguration } from "../config/mod.ts";
import type { AnalyticsEvent } from "./analytics_event.ts";
import type {
  AnalyticsFlushResult,
  IAnalyticsProvider,
} from "./analytics_provider.ts";
import type { AnalyticsDeliveryOptions } from "./analytics_delivery_options.ts";
import { AnalyticsProviderError } from "./analytics_errors.ts";
import { DeliveryQueue } from "./_delivery_queue.ts";
import { postJson } from "./_http.ts";
import {
  configString,
  optionalConfigNumber,
  optionalConfigString,
  resolveDelivery,
  resolveEndpoint,
} from "./_options.ts";

const NAME = "CustomAnalyticsProvider";

/**
 * Options of {@linkcode CustomAnalyticsProvider} (spec §2.8): `endpoint`,
 * `apiKey`, `batchSize` (default 50), `flushInterval` (default 30000 ms),
 * plus the shared {@linkcode AnalyticsDeliveryOptions}.
 */
export interface CustomAnalyticsProviderOptions
  extends AnalyticsDeliveryOptions {
  /**
   * The collection address the batches are POSTed to (`{analytics_url}`).
   * In a browser a path relative to the page (`/api/analytics`) works too.
   */
  endpoint: string;
  /** Sent in the `X-API-Key` header when set (`ANALYTICS_API_KEY`). */
  apiKey?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/**
 * Sends events to your own collection endpoint as JSON batches:
 * `POST <endpoint>` with body `{ "events": [AnalyticsEvent, …] }`,
 * `Content-Type: application/json` and `X-API-Key: <apiKey>`.
 *
 * A batch leaves when `batchSize` events are waiting or `flushInterval` ms
 * after the oldest one arrived (the timer is unref'd, so it never keeps a
 * process alive). Network errors, timeouts, 408, 429 and 5xx are retried
 * with exponential backoff, or after the server's `Retry-After`; 401 and the
 * other 4xx are not retried. The queue is bounded (`maxQueueSize`); what does
 * not fit is dropped and counted in {@linkcode droppedCount}.
 *
 * Delivery is at least once: a batch whose answer was lost is sent again, so
 * receivers should drop duplicates by `messageId`.
 *
 * @example Usage
 * ```ts
 * import { AnalyticsManager, CustomAnalyticsProvider } from "@vendor/kit/analytics";
 *
 * const analytics = new AnalyticsManager();
 * analytics.addProvider(
 *   new CustomAnalyticsProvider({
 *     endpoint: "https://analytics.example.com/v1/events",
 *     apiKey: "<API_KEY>",
 *     batchSize: 50,
 *     flushInterval: 30000,
 *   }),
 * );
 * analytics.track("signed_up", { plan: "pro" });
 * await analytics.dispose(); // delivers the tail
 * ```
 */
export class CustomAnalyticsProvider implements IAnalyticsProvider {
  /** The provider's name in error messages. */
  readonly name: string = NAME;
  readonly #queue: DeliveryQueue<AnalyticsEvent>;
  readonly #endpoint: string;

  /**
   * Creates the provider.
   *
   * @param options Where to send, the key, and batching settings.
   * @throws {AnalyticsConfigurationError} When `endpoint` is missing or not an
   * http(s) URL, or a batching option is out of range
   * (`CustomAnalyticsProvider: batchSize must be an integer of at least 1: 0`).
   */
  constructor(options: CustomAnalyticsProviderOptions) {
    this.#endpoint = resolveEndpoint(NAME, "endpoint", options?.endpoint);
    const delivery = resolveDelivery(NAME, options, {
      batchSize: 50,
      flushInterval: 30_000,
    });
    const headers: Record<string, string> = { ...options.headers };
    if (options.apiKey) headers["X-API-Key"] = options.apiKey;
    const endpoint = this.#endpoint;
    const timeout = delivery.requestTimeout;
    const onError = delivery.onError;
    this.#queue = new DeliveryQueue<AnalyticsEvent>({
      ...delivery,
      name: NAME,
      endpoint,
      send: async (batch) => {
        const { body, rejected } = serialize(batch, onError);
        if (body !== undefined) {
          await postJson(endpoint, body, headers, timeout);
        }
        return rejected;
      },
    });
  }

  /**
   * Builds the provider from configuration: `analytics:endpoint` (required),
   * `analytics:apiKey` (`ANALYTICS_API_KEY` through the standard variables),
   * and optionally `analytics:batchSize`, `analytics:flushInterval`,
   * `analytics:maxQueueSize`. Numbers may be strings (`"50"`). Explicit
   * `options` win over configuration.
   *
   * @param config Any {@linkcode IConfiguration} (the ConfigurationManager).
   * @param options Options that override the configuration.
   * @returns The provider.
   * @throws {Error} `Configuration value not found: analytics:endpoint` when
   * the endpoint is missing and not given in `options`.
   *
   * @example Usage
   * ```ts
   * import type { IConfiguration } from "@vendor/kit/config";
   * import { CustomAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const values: Record<string, unknown> = {
   *   "analytics:endpoint": "https://analytics.example.com/v1/events",
   *   "analytics:apiKey": "<API_KEY>",
   * };
   * const config: IConfiguration = {
   *   hasValue: (key) => key in values,
   *   getValue: <T>(key: string, fallback?: T) => (values[key] ?? fallback) as T,
   * };
   * const provider = CustomAnalyticsProvider.fromConfiguration(config);
   * await provider.dispose();
   * ```
   */
  static fromConfiguration(
    config: IConfiguration,
    options: Partial<CustomAnalyticsProviderOptions> = {},
  ): CustomAnalyticsProvider {
    const fromConfig: Partial<CustomAnalyticsProviderOptions> = {};
    fromConfig.endpoint = options.endpoint ??
      configString(config, "analytics:endpoint");
    const apiKey = optionalConfigString(config, "analytics:apiKey");
    if (apiKey !== undefined) fromConfig.apiKey = apiKey;
    const batchSize = optionalConfigNumber(config, "analytics:batchSize");
    if (batchSize !== undefined) fromConfig.batchSize = batchSize;
    const flushInterval = optionalConfigNumber(
      config,
      "analytics:flushInterval",
    );
    if (flushInterval !== undefined) fromConfig.flushInterval = flushInterval;
    const maxQueueSize = optionalConfigNumber(config, "analytics:maxQueueSize");
    if (maxQueueSize !== undefined) fromConfig.maxQueueSize = maxQueueSize;
    return new CustomAnalyticsProvider({
      ...fromConfig,
      ...definedOnly(options),
    } as CustomAnalyticsProviderOptions);
  }

  /** The collection address, resolved. */
  get endpoint(): string {
    return this.#endpoint;
  }

  /** Events dropped so far: queue overflow, rejected batches, after dispose. */
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
   * Queues a `track` event.
   *
   * @param event The normalized event.
   */
  track(event: AnalyticsEvent): void {
    this.#queue.enqueue(event);
  }

  /**
   * Queues a `page` event.
   *
   * @param event The normalized event.
   */
  page(event: AnalyticsEvent): void {
    this.#queue.enqueue(event);
  }

  /**
   * Queues an `identify` event.
   *
   * @param event The normalized event.
   */
  identify(event: AnalyticsEvent): void {
    this.#queue.enqueue(event);
  }

  /**
   * Sends everything queued now and waits until every event queued or in
   * flight before this call is delivered or definitively dropped (retries
   * included).
   *
   * @returns How many of those events were delivered and dropped.
   */
  flush(): Promise<AnalyticsFlushResult> {
    return this.#queue.flush();
  }

  /**
   * Flushes (delivering the tail), then stops the timer. Events received
   * afterwards are dropped and counted.
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
}

interface Serialized {
  body?: string;
  rejected?: ReadonlySet<number>;
}

// The whole batch in one go; when that fails (a BigInt, a cycle), event by
// event so that one bad event does not cost the others.
function serialize(
  batch: readonly AnalyticsEvent[],
  onError: (error: Error) => void,
): Serialized {
  try {
    return { body: JSON.stringify({ events: batch }) };
  } catch {
    const parts: string[] = [];
    const rejected = new Set<number>();
    for (let i = 0; i < batch.length; i++) {
      try {
        parts.push(JSON.stringify(batch[i]));
      } catch (error) {
        rejected.add(i);
        try {
          onError(new AnalyticsProviderError(NAME, batch[i].type, error));
        } catch {
          // ignore a throwing hook
        }
      }
    }
    return {
      body: parts.length === 0 ? undefined : `{"events":[${parts.join(",")}]}`,
      rejected,
    };
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] !== undefined) out[key] = value[key];
  }
  return out;
}
