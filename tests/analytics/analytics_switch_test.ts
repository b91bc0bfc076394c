// features:enableAnalytics=false (FEATURE_ANALYTICS=false): the providers
// built from configuration send nothing. Real loopback collectors stand in
// for the custom endpoint and for Google's address, and receive no request
// at all; the same configuration with the switch on sends to both, so the
// silence is the switch's doing. The running application's log says so
// once, under kit.analytics. A provider built with `new` sends as the code
// says.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { SettingError } from "../../core/mod.ts";
import { Application } from "../../platform/mod.ts";
import {
  type ILogProvider,
  type LogEntry,
  LoggerManager,
  LogLevel,
} from "../../logging/mod.ts";
import {
  AnalyticsConfigurationError,
  AnalyticsManager,
  CustomAnalyticsProvider,
  ExternalAnalyticsProvider,
} from "../../analytics/mod.ts";
import {
  startCollector,
  startTestServer,
  type TestServer,
} from "../_support/http_server.ts";

/**
 * A configuration pointing both providers at the collectors, its switch
 * from the real FEATURE_ANALYTICS variable (set while it loads, then
 * restored).
 */
async function configOf(
  feature: string | undefined,
  custom?: TestServer,
  google?: TestServer,
): Promise<ConfigurationManager> {
  const saved = process.env.FEATURE_ANALYTICS;
  if (feature === undefined) delete process.env.FEATURE_ANALYTICS;
  else process.env.FEATURE_ANALYTICS = feature;
  try {
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({
        ...(custom === undefined ? {} : {
          "analytics:endpoint": `${custom.url}/v1/events`,
          "analytics:apiKey": "key-123",
          "analytics:batchSize": "1",
        }),
        ...(google === undefined ? {} : {
          "analytics:trackingId": "G-TEST",
          "analytics:apiSecret": "secret-1",
          "analytics:ga4Endpoint": `${google.url}/mp/collect`,
          "analytics:batchSize": "1",
        }),
      }),
    );
    config.addStandardVariables();
    await config.loadConfiguration();
    return config;
  } finally {
    if (saved === undefined) delete process.env.FEATURE_ANALYTICS;
    else process.env.FEATURE_ANALYTICS = saved;
  }
}

/** Tracks, pages and identifies a few times through the manager. */
function use(analytics: AnalyticsManager): void {
  for (let i = 0; i < 5; i++) {
    analytics.identify(`user-${i}`, { plan: "pro" });
    analytics.track("purchase", { value: i, currency: "EUR" });
    analytics.page("Pricing", { url: "https://example.com/pricing" });
  }
}

function recorder(): { provider: ILogProvider; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    provider: {
      isEnabled: () => true,
      log: (entry) => {
        entries.push(entry);
        return Promise.resolve();
      },
    },
  };
}

describe("features:enableAnalytics=false", () => {
  it("the providers built from configuration send no event: zero requests reach either collector", async () => {
    await using custom = await startCollector();
    await using google = await startCollector();
    const config = await configOf("false", custom, google);
    assert.equal(
      config.getSource("features:enableAnalytics"),
      "env FEATURE_ANALYTICS",
    );
    const customProvider = CustomAnalyticsProvider.fromConfiguration(config);
    const googleProvider = ExternalAnalyticsProvider.fromConfiguration(config);
    const analytics = new AnalyticsManager()
      .addProvider(customProvider)
      .addProvider(googleProvider);
    use(analytics);
    const flushed = await analytics.flush();
    await analytics.dispose();
    assert.deepEqual(
      { custom: custom.requests.length, google: google.requests.length },
      { custom: 0, google: 0 },
    );
    assert.deepEqual(flushed, { delivered: 0, dropped: 0 });
    assert.equal(analytics.stats.dispatched, 0);
    assert.equal(customProvider.enabled, false);
    assert.equal(googleProvider.enabled, false);
    assert.equal(customProvider.pendingCount, 0);
    assert.equal(googleProvider.pendingCount, 0);
  });

  it("the same configuration with the switch on sends to both (the control)", async () => {
    await using custom = await startCollector();
    await using google = await startCollector();
    const config = await configOf("true", custom, google);
    const analytics = new AnalyticsManager()
      .addProvider(CustomAnalyticsProvider.fromConfiguration(config))
      .addProvider(ExternalAnalyticsProvider.fromConfiguration(config));
    use(analytics);
    const result = await analytics.flush();
    await analytics.dispose();
    assert.equal(result.dropped, 0);
    assert.ok(custom.requests.length > 0);
    assert.ok(google.requests.length > 0);
  });

  it("flush and dispose resolve at once, even with a collector that never answers", async () => {
    // A collector that keeps every request open: an enabled provider's
    // flush would wait for it.
    await using silent = await startTestServer(() => new Promise(() => {}));
    const config = await configOf("0", silent);
    const provider = CustomAnalyticsProvider.fromConfiguration(config);
    provider.track({
      type: "track",
      name: "a",
      properties: {},
      timestamp: Date.now(),
      anonymousId: "anon-1",
      sampleRate: 1,
      messageId: "m-1",
    });
    // Bounded: an enabled provider would give up at the deadline and count
    // the event as dropped.
    assert.deepEqual(await provider.flush({ timeout: 5000 }), {
      delivered: 0,
      dropped: 0,
    });
    await provider.dispose({ timeout: 5000 });
    assert.deepEqual(silent.requests, []);
  });

  it("checkHealth says disabled, and healthy, for the providers and the manager", async () => {
    await using custom = await startCollector();
    const config = await configOf("false", custom);
    const provider = CustomAnalyticsProvider.fromConfiguration(config);
    assert.deepEqual(provider.checkHealth(), {
      status: "healthy",
      detail: {
        disabled: true,
        reason:
          "features:enableAnalytics=false (from env FEATURE_ANALYTICS): sends no event",
      },
    });
    const analytics = new AnalyticsManager().addProvider(provider);
    const health = await analytics.checkHealth();
    assert.equal(health.status, "healthy");
    assert.equal((health.detail as { disabled?: unknown }).disabled, true);
    await analytics.dispose();
  });

  it("no key of the providers is read: no endpoint or tracking id is needed", async () => {
    const config = await configOf("false");
    const custom = CustomAnalyticsProvider.fromConfiguration(config);
    const google = ExternalAnalyticsProvider.fromConfiguration(config);
    assert.equal(custom.enabled, false);
    assert.equal(google.enabled, false);
    await custom.dispose();
    await google.dispose();
  });

  it("says so once, as an info line under kit.analytics in the application's log", async () => {
    await using custom = await startCollector();
    await using google = await startCollector();
    const config = await configOf("false", custom, google);
    const { provider, entries } = recorder();
    const app = await Application.start({
      configuration: () => config,
      logging: () =>
        new LoggerManager().configure({
          level: "debug",
          providers: [provider],
        }),
      platform: (services) => {
        services.register("analytics", () =>
          new AnalyticsManager()
            .addProvider(CustomAnalyticsProvider.fromConfiguration(config))
            .addProvider(ExternalAnalyticsProvider.fromConfiguration(config)));
      },
    });
    try {
      use(app.services.get<AnalyticsManager>("analytics"));
    } finally {
      await app.stop();
    }
    const own = entries.filter((entry) => entry.category === "kit.analytics");
    assert.equal(own.length, 1, own.map((entry) => entry.message).join("\n"));
    assert.equal(own[0].level, LogLevel.Info);
    assert.equal(
      own[0].message,
      "features:enableAnalytics=false (from env FEATURE_ANALYTICS): analytics send no event (the providers built from configuration are off)",
    );
    assert.deepEqual(custom.requests, []);
    assert.deepEqual(google.requests, []);
  });

  it("a provider built with new sends as the code says", async () => {
    await using custom = await startCollector();
    const config = await configOf("false");
    assert.equal(config.getValue("features:enableAnalytics"), "false");
    const analytics = new AnalyticsManager()
      .addProvider(CustomAnalyticsProvider.fromConfiguration(config))
      .addProvider(
        new CustomAnalyticsProvider({ endpoint: `${custom.url}/v1/events` }),
      );
    analytics.track("signed_up");
    assert.deepEqual(await analytics.flush(), { delivered: 1, dropped: 0 });
    await analytics.dispose();
    assert.equal(custom.requests.length, 1);
  });

  it("a value that is no switch fails, naming the key, the value and the variable", async () => {
    await using custom = await startCollector();
    const config = await configOf("off-ish", custom);
    for (
      const build of [
        () => CustomAnalyticsProvider.fromConfiguration(config),
        () => ExternalAnalyticsProvider.fromConfiguration(config),
      ]
    ) {
      assert.throws(build, (error: unknown) => {
        assert.ok(error instanceof AnalyticsConfigurationError);
        assert.equal(
          error.message,
          'features:enableAnalytics must be true or false, got "off-ish" (from env FEATURE_ANALYTICS)',
        );
        assert.ok(error instanceof SettingError);
        assert.equal(error.key, "features:enableAnalytics");
        assert.equal(error.source, "FEATURE_ANALYTICS");
        return true;
      });
    }
    assert.deepEqual(custom.requests, []);
  });
});
