import type { IConfiguration } from "../config/mod.ts";
import type { DisposeOptions } from "../core/mod.ts";
import type { HealthCheckResult } from "../platform/mod.ts";
import type { AnalyticsEvent } from "./analytics_event.ts";
import type {
  AnalyticsFlushResult,
  IAnalyticsProvider,
} from "./analytics_provider.ts";
import type { AnalyticsDeliveryOptions } from "./analytics_delivery_options.ts";
import { AnalyticsProviderError } from "./analytics_errors.ts";
import { AnalyticsDeliveryQueue } from "./_analytics_delivery_queue.ts";
import { postAnalyticsJson } from "./_http.ts";
import { secretMasker } from "./_mask.ts";
import {
  configString,
  optionalConfigNumber,
  optionalConfigString,
  resolveDelivery,
  resolveEndpoint,
} from "./_options.ts";
import { registerErrorRoute } from "./_error_route.ts";
import {
  analyticsOff,
  announceAnalyticsOff,
  offHealth,
  type TurnedOff,
  turnedOffIn,
  turnedOffOptions,
} from "./_switch.ts";

const NAME = "CustomAnalyticsProvider";
const SECRET_HEADER = /auth|key|secret|token|cookie/i;

/**
 * Options of {@linkcode CustomAnalyticsProvider}: `endpoint`,
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
  // Both undefined when built turned off by features:enableAnalytics.
  readonly #queue: AnalyticsDeliveryQueue<AnalyticsEvent> | undefined;
  readonly #off: TurnedOff | undefined;
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
    this.#off = turnedOffIn(options);
    if (this.#off !== undefined) {
      this.#endpoint = "";
      return;
    }
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
    registerErrorRoute(this, delivery.route);
    // The key, and any header value that carries a credential, never reach
    // an error message, even when the collector echoes them in its answer.
    const mask = secretMasker([
      options.apiKey,
      ...Object.entries(headers)
        .filter(([name]) => SECRET_HEADER.test(name))
        .flatMap(([, value]) => [value, value.replace(/^\S+\s+/, "")]),
    ]);
    this.#queue = new AnalyticsDeliveryQueue<AnalyticsEvent>({
      ...delivery,
      name: NAME,
      endpoint,
      send: async (batch, signal) => {
        const { body, rejected } = serialize(batch, onError);
        if (body !== undefined) {
          await postAnalyticsJson(endpoint, body, headers, timeout, {
            signal,
            mask,
          });
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
   * With `features:enableAnalytics` set to `false` (`FEATURE_ANALYTICS=false`)
   * the provider is created turned off ({@linkcode enabled} is `false`): it
   * sends no event, starts no timer and reads none of its own keys (no
   * endpoint is needed); `track`, `page` and `identify` do nothing,
   * `flush` and `dispose` resolve at once and `checkHealth` says it is
   * disabled (healthy). It says so once per configuration, as an info line
   * under `kit.analytics` in the running application's logging. A provider
   * built with `new` sends as the code says, whatever the switch.
   *
   * @param config Any {@linkcode IConfiguration} (the ConfigurationManager).
   * @param options Options that override the configuration.
   * @returns The provider.
   * @throws {Error} `Configuration value not found: analytics:endpoint` when
   * the endpoint is missing and not given in `options`.
   * @throws {AnalyticsConfigurationError} When `features:enableAnalytics` is
   * not a boolean (naming the value and its source), or an option is out of
   * range.
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
    const off = analyticsOff(config);
    if (off !== undefined) {
      announceAnalyticsOff(config, off);
      return new CustomAnalyticsProvider(turnedOffOptions(off));
    }
    // Configuration fills only what the code did not set: a key the code
    // overrides is not even read (so a bad value there cannot fail).
    const fromConfig: Partial<CustomAnalyticsProviderOptions> = {};
    if (options.endpoint === undefined) {
      fromConfig.endpoint = configString(config, "analytics:endpoint");
    }
    if (options.apiKey === undefined) {
      const apiKey = optionalConfigString(config, "analytics:apiKey");
      if (apiKey !== undefined) fromConfig.apiKey = apiKey;
    }
    for (const key of ["batchSize", "flushInterval", "maxQueueSize"] as const) {
      if (options[key] !== undefined) continue;
      const value = optionalConfigNumber(config, `analytics:${key}`);
      if (value !== undefined) fromConfig[key] = value;
    }
    return new CustomAnalyticsProvider({
      ...fromConfig,
      ...definedOnly(options),
    } as CustomAnalyticsProviderOptions);
  }

  /** The collection address, resolved (`""` when turned off). */
  get endpoint(): string {
    return this.#endpoint;
  }

  /**
   * `false` when the provider was built by `fromConfiguration` with
   * `features:enableAnalytics` set to `false`: it then sends nothing.
   */
  get enabled(): boolean {
    return this.#off === undefined;
  }

  /** Events dropped so far: queue overflow, rejected batches, after dispose. */
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
   * Queues a `track` event (nothing when turned off).
   *
   * @param event The normalized event.
   */
  track(event: AnalyticsEvent): void {
    this.#queue?.enqueue(event);
  }

  /**
   * Queues a `page` event (nothing when turned off).
   *
   * @param event The normalized event.
   */
  page(event: AnalyticsEvent): void {
    this.#queue?.enqueue(event);
  }

  /**
   * Queues an `identify` event (nothing when turned off).
   *
   * @param event The normalized event.
   */
  identify(event: AnalyticsEvent): void {
    this.#queue?.enqueue(event);
  }

  /**
   * Sends everything queued now and waits until every event queued or in
   * flight before this call is delivered or definitively dropped (retries
   * included), or until `options.signal` aborts or `options.timeout` ms
   * pass: then the requests and retry waits still under way are aborted, the
   * events not delivered are dropped (reported once as
   * {@linkcode AnalyticsDeliveryAbortedError}) and the call resolves.
   *
   * @param options A signal and/or a timeout in milliseconds bounding the wait.
   * @returns How many of those events were delivered and dropped.
   * @throws {RangeError} When `options.timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { CustomAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const provider = new CustomAnalyticsProvider({
   *   endpoint: "https://analytics.example.com/v1/events",
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
   * Flushes (delivering the tail, within `options` as for
   * {@linkcode flush}), then stops the timer. Events received afterwards are
   * dropped and counted. Never rejects because of the deadline.
   *
   * @param options A signal and/or a timeout in milliseconds bounding the flush.
   * @returns Resolves when the flush is over.
   * @throws {RangeError} When `options.timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { CustomAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const provider = new CustomAnalyticsProvider({
   *   endpoint: "https://analytics.example.com/v1/events",
   * });
   * await provider.dispose({ timeout: 2000 });
   * ```
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    await this.#queue?.close(options);
  }

  /**
   * Reports the delivery state: `"degraded"` while deliveries fail (the
   * last request failed, or retries are held back after a batch used up its
   * retries) or when events were dropped since the previous check,
   * `"healthy"` otherwise. The detail holds counts (`pending`, `delivered`,
   * `dropped`, `droppedSinceLastCheck`), `failing`, `breaker` and, when
   * degraded, a `reason`; never the key or the address. Turned off by
   * `features:enableAnalytics`: `"healthy"`, with `disabled: true` and the
   * switch's source as the `reason`.
   *
   * @returns The state, with counts.
   *
   * @example Usage
   * ```ts
   * import { CustomAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const provider = new CustomAnalyticsProvider({
   *   endpoint: "https://analytics.example.com/v1/events",
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
