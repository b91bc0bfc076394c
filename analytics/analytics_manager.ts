// A little over the ~600 lines a file is meant to stay under, on purpose:
// some 260 of its lines are JSDoc and examples of the public class. Its options and
// counters are typed in analytics_options.ts, checked in _resolved_options.ts,
// and the fan-out to providers is _fan_out.ts; what stays here is sampling,
// consent, automatic tracking and the public calls.
import type {
  AnalyticsCallContext,
  AnalyticsEvent,
  AnalyticsEventType,
  AnalyticsProperties,
} from "./analytics_event.ts";
import type {
  AnalyticsFlushResult,
  IAnalyticsProvider,
} from "./analytics_provider.ts";
import { adoptErrors } from "./_error_route.ts";
import {
  AnalyticsProviderError,
  type AnalyticsProviderOperation,
} from "./analytics_errors.ts";
import { isSampledIn } from "./sampling.ts";
import { randomId } from "../internal/random_id.ts";
import {
  browserGlobals,
  installBrowserErrorTracking,
  installPageHideHook,
  installPageTracking,
  installPerformanceTracking,
  pageProperties,
  type PerformanceTracking,
} from "./_browser_tracking.ts";
import { installRuntimeErrorTracking } from "#analytics/runtime_errors";
import type {
  AnalyticsConsentState,
  AnalyticsOptions,
  AnalyticsStats,
} from "./analytics_options.ts";
import {
  DEFAULT_OPTIONS,
  type ResolvedOptions,
  resolveOptions,
} from "./_resolved_options.ts";
import { providerName, settleAll, sum, worstHealth } from "./_fan_out.ts";
import { allOffHealth } from "./_switch.ts";
import { deadlineSignal, type DisposeOptions } from "../core/mod.ts";
import { type HealthCheckResult, RequestContext } from "../platform/mod.ts";

/**
 * The entry point of analytics: fans each `track`, `page` and `identify`
 * call out to every provider as one normalized {@linkcode AnalyticsEvent},
 * after sampling and consent. One failing provider never stops the others;
 * failures go to `onError`. `track`, `page` and `identify` are synchronous
 * and never throw for provider failures.
 *
 * @example Usage
 * ```ts
 * import {
 *   AnalyticsManager,
 *   CustomAnalyticsProvider,
 * } from "@vendor/kit/analytics";
 *
 * const analytics = new AnalyticsManager();
 * analytics.addProvider(
 *   new CustomAnalyticsProvider({
 *     endpoint: "https://analytics.example.com/v1/events",
 *     apiKey: "<API_KEY>",
 *   }),
 * );
 * analytics.configure({
 *   enableAutoPageTracking: true,
 *   enableErrorTracking: true,
 *   enablePerformanceTracking: true,
 *   samplingRate: 0.1,
 * });
 * analytics.identify("user-42", { plan: "pro" });
 * analytics.track("report_exported", { format: "csv" });
 * await analytics.dispose();
 * ```
 */
export class AnalyticsManager {
  #providers: IAnalyticsProvider[] = [];
  #options: ResolvedOptions = DEFAULT_OPTIONS;
  #anonymousId: string;
  #userId: string | undefined;
  #consent: AnalyticsConsentState = "granted";
  #consentExplicit = false;
  #held: AnalyticsEvent[] = [];
  #disposed = false;
  // Every provider is turned off (features:enableAnalytics=false): the
  // calls return at once, building no event.
  #silent = false;
  #stats = {
    dispatched: 0,
    sampledOut: 0,
    droppedByConsent: 0,
    providerErrors: 0,
  };
  #lastSamplingKey: string | undefined;
  #lastSamplingRate = -1;
  #lastSamplingDecision = true;
  #reportingError = false;
  // Installed automatic tracking; undefined when off.
  #uninstallPage: (() => void) | undefined;
  #uninstallErrors: (() => void) | undefined;
  #performance: PerformanceTracking | undefined;
  #uninstallPageHide: (() => void) | undefined;

  /**
   * Creates a manager; the options are applied as by
   * {@linkcode AnalyticsManager.configure}.
   *
   * @param options Initial options.
   * @throws {AnalyticsConfigurationError} For an invalid option
   * (`samplingRate must be a number from 0 to 1: <value>`).
   */
  constructor(options: AnalyticsOptions = {}) {
    this.#anonymousId = options.anonymousId ?? randomId();
    this.configure(options);
  }

  /** The anonymous id of events without a per-call one. */
  get anonymousId(): string {
    return this.#anonymousId;
  }

  /** The user id set by the last `identify`, if any. */
  get userId(): string | undefined {
    return this.#userId;
  }

  /** The consent state. */
  get consent(): AnalyticsConsentState {
    return this.#consent;
  }

  /** The current sampling rate. */
  get samplingRate(): number {
    return this.#options.samplingRate;
  }

  /** Counters, as a snapshot. */
  get stats(): AnalyticsStats {
    return { ...this.#stats, held: this.#held.length };
  }

  /** The providers, in the order they were added. */
  get providers(): readonly IAnalyticsProvider[] {
    return [...this.#providers];
  }

  /**
   * Adds a provider; it receives the events tracked from now on (and held
   * events released later). The manager owns it from now on: `dispose()`
   * disposes it. While every provider added is turned off (its `enabled` is
   * `false`, as for a provider built from configuration with
   * `features:enableAnalytics` set to `false`), `track`, `page` and
   * `identify` return at once, `flush` resolves at once and `checkHealth`
   * says the manager is disabled.
   *
   * @param provider The provider.
   * @returns This manager, for chaining.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager, CustomAnalyticsProvider } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager().addProvider(
   *   new CustomAnalyticsProvider({ endpoint: "https://analytics.example.com/v1/events" }),
   * );
   * await analytics.dispose();
   * ```
   */
  addProvider(provider: IAnalyticsProvider): this {
    if (!this.#providers.includes(provider)) this.#providers.push(provider);
    this.#silent = this.#providers.every((added) => added.enabled === false);
    // A Kit provider without an onError of its own reports its delivery
    // errors to this manager's onError.
    adoptErrors(provider, this.#providerErrors);
    return this;
  }

  #providerErrors = (error: Error): void => {
    this.#options.onError(error);
  };

  /**
   * Changes options; those left out keep their value. Turning an automatic
   * tracking flag on installs its hooks (in browsers, or the runtime error
   * hooks on servers); turning it off removes them. All options are checked
   * before any is applied.
   *
   * @param options The options to change.
   * @returns This manager, for chaining.
   * @throws {AnalyticsConfigurationError} `samplingRate must be a number from
   * 0 to 1: <value>` for a rate outside 0..1; `maxHeldEvents must be an
   * integer of at least 0: <value>`; `consentMode must be "hold" or "drop":
   * <value>`; `errorFlushTimeout must be a number of at least 0: <value>`.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager();
   * analytics.configure({ samplingRate: 0.1, requireConsent: true });
   * await analytics.dispose();
   * ```
   */
  configure(options: AnalyticsOptions): this {
    const next = resolveOptions(this.#options, options);
    if (options.anonymousId !== undefined) {
      this.#anonymousId = options.anonymousId;
    }
    this.#options = next;
    if (!this.#consentExplicit) {
      if (next.requireConsent && this.#consent === "granted") {
        this.#consent = "pending";
      } else if (!next.requireConsent && this.#consent === "pending") {
        this.#consent = "granted";
        this.#releaseHeld();
      }
    }
    if (this.#consent === "pending" && next.consentMode === "drop") {
      this.#dropHeld();
    }
    this.#applyAutomaticTracking();
    return this;
  }

  /**
   * Tracks a named action.
   *
   * @param name The event name (`"signed_up"`, `"purchase"`, …).
   * @param properties Event properties (copied).
   * @param context Per-call user or anonymous id and timestamp (server code).
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager();
   * analytics.track("add_to_cart", {
   *   currency: "EUR",
   *   items: [{ id: "SKU-1", price: 12.5, quantity: 1 }],
   * });
   * await analytics.dispose();
   * ```
   */
  track(
    name: string,
    properties?: AnalyticsProperties,
    context?: AnalyticsCallContext,
  ): void {
    this.#emit("track", name, properties, context);
  }

  /**
   * Tracks a page view. In browsers the current `url`, `path`, `search` and
   * `title` are added to the properties (given properties win), and the name
   * defaults to the document title, else the path.
   *
   * @param name The page name; default the title or path, else `"page"`.
   * @param properties Page properties (copied).
   * @param context Per-call ids and timestamp.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager();
   * analytics.page("Pricing", { url: "https://example.com/pricing" });
   * await analytics.dispose();
   * ```
   */
  page(
    name?: string,
    properties?: AnalyticsProperties,
    context?: AnalyticsCallContext,
  ): void {
    if (this.#silent) return;
    const merged = { ...pageProperties(), ...properties };
    const fallback = [merged.title, merged.path].find((value) =>
      typeof value === "string" && value !== ""
    ) as string | undefined;
    this.#emit("page", name ?? fallback ?? "page", merged, context);
  }

  /**
   * Says who the user is. Without a per-call context the user id also
   * becomes the default of later events (and of their sampling decision).
   *
   * @param userId The user id.
   * @param traits User traits (copied), sent as the event's properties.
   * @param context Per-call anonymous id and timestamp; when given, the
   * manager's current user is left unchanged.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager();
   * analytics.identify("user-42", { plan: "pro" });
   * console.log(analytics.userId); // "user-42"
   * await analytics.dispose();
   * ```
   */
  identify(
    userId: string,
    traits?: AnalyticsProperties,
    context?: AnalyticsCallContext,
  ): void {
    if (this.#silent) return;
    if (context === undefined && !this.#disposed) this.#userId = userId;
    this.#emit("identify", "identify", traits, { ...context, userId });
  }

  /**
   * Forgets the user (on logout): clears the user id and starts a new
   * anonymous id.
   *
   * @param anonymousId The new anonymous id; default a random UUID.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager();
   * analytics.identify("user-42");
   * analytics.reset();
   * console.log(analytics.userId); // undefined
   * await analytics.dispose();
   * ```
   */
  reset(anonymousId: string = randomId()): void {
    this.#userId = undefined;
    this.#anonymousId = anonymousId;
  }

  /**
   * Grants or revokes consent. Granting releases the held events to the
   * providers, in order; revoking drops the held events and every later one
   * until consent is granted again.
   *
   * @param granted Whether the user consents.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager({ requireConsent: true });
   * analytics.track("viewed_banner"); // held
   * analytics.setConsent(true); // released to the providers
   * await analytics.dispose();
   * ```
   */
  setConsent(granted: boolean): void {
    this.#consentExplicit = true;
    if (granted) {
      this.#consent = "granted";
      this.#releaseHeld();
    } else {
      this.#consent = "denied";
      this.#dropHeld();
    }
  }

  /**
   * Flushes every provider in parallel. Held events stay held. With
   * `options`, each provider gets the one signal (`signal` and `timeout`
   * combined): the built-in providers then stop retrying, count what they
   * did not deliver as dropped and report it once; a provider still busy at
   * the deadline is no longer waited for (and is reported to `onError`). The
   * call resolves either way.
   *
   * @param options A signal and/or a timeout in milliseconds bounding the wait.
   * @returns The delivered and dropped counts summed over the providers that
   * report them; a provider whose flush fails is reported to `onError`.
   * @throws {RangeError} When `options.timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager();
   * const { delivered, dropped } = await analytics.flush({ timeout: 5000 });
   * console.log(delivered, dropped); // 0 0
   * ```
   */
  async flush(options?: DisposeOptions): Promise<AnalyticsFlushResult> {
    const signal = deadlineSignal(options);
    if (this.#silent) return { delivered: 0, dropped: 0 };
    const results = await settleAll(
      this.#providers,
      "flush",
      signal,
      this.#reporter,
    );
    return sum(results);
  }

  /**
   * Reports the worst state of the providers that have a `checkHealth()`
   * method (`"healthy"` when none has): the built-in providers are
   * `"degraded"` while deliveries fail or when events were dropped since
   * their previous check. A provider whose check throws counts as
   * `"unhealthy"`. The detail holds each provider's result under its name.
   * When every provider is turned off by `features:enableAnalytics`:
   * `"healthy"`, with `disabled: true` in the detail.
   *
   * @param signal Aborts when the check's time is up (passed to the providers).
   * @returns The worst state, with every provider's result.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager();
   * console.log((await analytics.checkHealth()).status); // "healthy"
   * ```
   */
  async checkHealth(signal?: AbortSignal): Promise<HealthCheckResult> {
    const health = await worstHealth(this.#providers, signal);
    return this.#silent ? allOffHealth(health) : health;
  }

  /**
   * Removes the automatic tracking hooks (restoring `history`), reports the
   * last performance vitals, drops held events, then disposes every provider
   * (each flushes first), passing them one signal for `options` as
   * {@linkcode AnalyticsManager.flush} does: at the deadline the providers
   * stop retrying, drop and report what is left, and the call resolves.
   * Later calls are ignored.
   *
   * @param options A signal and/or a timeout in milliseconds bounding the
   * providers' final flush.
   * @returns Resolves when every provider is disposed (or the deadline passed).
   * @throws {RangeError} When `options.timeout` is negative or not a number.
   *
   * @example Usage
   * ```ts
   * import { AnalyticsManager } from "@vendor/kit/analytics";
   *
   * const analytics = new AnalyticsManager();
   * await analytics.dispose();
   * ```
   */
  async dispose(options?: DisposeOptions): Promise<void> {
    if (this.#disposed) return;
    const signal = deadlineSignal(options);
    this.#performance?.finalize();
    this.#disposed = true;
    this.#uninstallAutomaticTracking();
    this.#dropHeld();
    const providers = this.#providers;
    this.#providers = [];
    await settleAll(providers, "dispose", signal, this.#reporter);
  }

  /**
   * Same as {@linkcode dispose}, for `await using`.
   *
   * @returns Resolves when every provider is disposed.
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #emit(
    type: AnalyticsEventType,
    name: string,
    properties: AnalyticsProperties | undefined,
    context: AnalyticsCallContext | undefined,
  ): void {
    if (this.#disposed || this.#silent) return;
    const userId = context?.userId ?? this.#userId;
    const anonymousId = context?.anonymousId ?? this.#anonymousId;
    const rate = this.#options.samplingRate;
    if (rate < 1 && !this.#sampled(userId ?? anonymousId, rate)) {
      this.#stats.sampledOut++;
      return;
    }
    // The call's own requestId wins over the request being handled.
    const requestId = context?.requestId ??
      RequestContext.current()?.requestId;
    const event: AnalyticsEvent = {
      type,
      name,
      properties: { ...properties },
      timestamp: context?.timestamp ?? Date.now(),
      anonymousId,
      ...(userId === undefined ? {} : { userId }),
      sampleRate: rate,
      messageId: randomId(),
      ...(requestId === undefined ? {} : { context: { requestId } }),
    };
    if (this.#consent === "granted") {
      this.#dispatch(event);
    } else if (
      this.#consent === "pending" && this.#options.consentMode === "hold" &&
      this.#held.length < this.#options.maxHeldEvents
    ) {
      this.#held.push(event);
    } else {
      this.#stats.droppedByConsent++;
    }
  }

  #sampled(key: string, rate: number): boolean {
    if (key === this.#lastSamplingKey && rate === this.#lastSamplingRate) {
      return this.#lastSamplingDecision;
    }
    const decision = isSampledIn(key, rate);
    this.#lastSamplingKey = key;
    this.#lastSamplingRate = rate;
    this.#lastSamplingDecision = decision;
    return decision;
  }

  #dispatch(event: AnalyticsEvent): void {
    this.#stats.dispatched++;
    const operation = event.type;
    for (const provider of this.#providers) {
      try {
        const result = provider[operation](event);
        if (result !== undefined && typeof result.then === "function") {
          result.then(
            undefined,
            (error: unknown) => this.#report(provider, operation, error),
          );
        }
      } catch (error) {
        this.#report(provider, operation, error);
      }
    }
  }

  #reporter = (
    provider: IAnalyticsProvider,
    operation: AnalyticsProviderOperation,
    error: unknown,
  ): void => this.#report(provider, operation, error);

  #report(
    provider: IAnalyticsProvider,
    operation: AnalyticsProviderOperation,
    error: unknown,
  ): void {
    this.#stats.providerErrors++;
    const name = providerName(provider);
    try {
      this.#options.onError(new AnalyticsProviderError(name, operation, error));
    } catch {
      // A throwing error hook must not break tracking.
    }
  }

  #releaseHeld(): void {
    const held = this.#held;
    this.#held = [];
    for (const event of held) this.#dispatch(event);
  }

  #dropHeld(): void {
    this.#stats.droppedByConsent += this.#held.length;
    this.#held = [];
  }

  // Automatic tracking -------------------------------------------------------

  #applyAutomaticTracking(): void {
    if (this.#disposed) return;
    const o = this.#options;
    const browser = browserGlobals() !== undefined;
    if (browser && o.enableAutoPageTracking) {
      this.#uninstallPage ??= installPageTracking((properties) =>
        this.page(undefined, properties)
      );
    } else {
      this.#uninstallPage?.();
      this.#uninstallPage = undefined;
    }
    if (o.enableErrorTracking) {
      this.#uninstallErrors ??= browser
        ? installBrowserErrorTracking((properties) =>
          this.#trackError(properties)
        )
        : installRuntimeErrorTracking({
          report: (properties) => this.#trackError(properties),
          flush: () => this.flush(),
          flushTimeout: o.errorFlushTimeout,
        });
    } else {
      this.#uninstallErrors?.();
      this.#uninstallErrors = undefined;
    }
    if (browser && o.enablePerformanceTracking) {
      this.#performance ??= installPerformanceTracking((properties) =>
        this.track("performance", properties)
      );
    } else if (this.#performance !== undefined) {
      this.#performance.finalize();
      this.#performance.uninstall();
      this.#performance = undefined;
    }
    if (browser && o.flushOnPageHide) {
      this.#uninstallPageHide ??= installPageHideHook(() => {
        this.#performance?.finalize();
        void this.flush();
      });
    } else {
      this.#uninstallPageHide?.();
      this.#uninstallPageHide = undefined;
    }
  }

  #uninstallAutomaticTracking(): void {
    this.#uninstallPage?.();
    this.#uninstallPage = undefined;
    this.#uninstallErrors?.();
    this.#uninstallErrors = undefined;
    this.#performance?.uninstall();
    this.#performance = undefined;
    this.#uninstallPageHide?.();
    this.#uninstallPageHide = undefined;
  }

  #trackError(properties: AnalyticsProperties): void {
    // An error raised while tracking an error must not loop.
    if (this.#reportingError) return;
    this.#reportingError = true;
    try {
      this.track("exception", properties);
    } finally {
      this.#reportingError = false;
    }
  }
}
