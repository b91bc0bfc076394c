// checkHealth() of the HTTP providers (degraded while deliveries fail or
// events were dropped since the last check; counts, never a key) and of
// AnalyticsManager (the worst of its providers; healthy when none).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import {
  type AnalyticsEvent,
  AnalyticsManager,
  CustomAnalyticsProvider,
  ExternalAnalyticsProvider,
  type IAnalyticsProvider,
} from "../../analytics/mod.ts";
import type { HealthCheckResult } from "../../platform/mod.ts";
import { errorSink, MemoryProvider, trackEvent } from "./_helpers.ts";

const KEY = "sk_health_0a1b2c3d";

const event = (name = "a"): AnalyticsEvent => trackEvent(name, `m-${name}`);

test("CustomAnalyticsProvider.checkHealth(): healthy, degraded while failing and after drops, healthy again", async () => {
  let status = 503;
  await using server = await startTestServer((_request, response) =>
    sendJson(response, status, {})
  );
  const provider = new CustomAnalyticsProvider({
    endpoint: `${server.url}/v1/events`,
    apiKey: KEY,
    maxRetries: 0,
    onError: errorSink().onError,
  });
  assert.deepEqual(provider.checkHealth(), {
    status: "healthy",
    detail: {
      pending: 0,
      delivered: 0,
      dropped: 0,
      droppedSinceLastCheck: 0,
      failing: false,
      breaker: "closed",
    },
  });
  provider.track(event("a"));
  provider.track(event("b"));
  await provider.flush();
  const failing = provider.checkHealth();
  assert.equal(failing.status, "degraded");
  assert.deepEqual(failing.detail, {
    pending: 0,
    delivered: 0,
    dropped: 2,
    droppedSinceLastCheck: 2,
    failing: true,
    breaker: "closed",
    reason: "deliveries are failing; 2 event(s) dropped since the last check",
  });
  const text = JSON.stringify(failing);
  assert.ok(!text.includes(KEY) && !text.includes(server.url), text);
  // Still failing, though nothing new was dropped.
  assert.equal(provider.checkHealth().status, "degraded");
  assert.equal(
    (provider.checkHealth().detail as Record<string, unknown>)
      .droppedSinceLastCheck,
    0,
  );
  status = 200;
  provider.track(event("c"));
  await provider.flush();
  assert.equal(provider.checkHealth().status, "healthy");
  await provider.dispose();
});

test("ExternalAnalyticsProvider.checkHealth() is healthy without an apiSecret on an address that is not Google's", async () => {
  const provider = new ExternalAnalyticsProvider({
    trackingId: "G-TEST",
    endpoint: "http://127.0.0.1:9/mp/collect",
    onError: () => {},
  });
  assert.equal(provider.checkHealth().status, "healthy");
  await provider.dispose();
});

test("AnalyticsManager.checkHealth() is healthy with no checkable provider, else the worst state", async () => {
  const analytics = new AnalyticsManager();
  assert.deepEqual(await analytics.checkHealth(), {
    status: "healthy",
    detail: { providers: {} },
  });
  analytics.addProvider(new MemoryProvider("memory")); // no checkHealth
  assert.equal((await analytics.checkHealth()).status, "healthy");
  const signals: (AbortSignal | undefined)[] = [];
  const checkable = (
    name: string,
    result: () => HealthCheckResult | Promise<HealthCheckResult>,
  ): IAnalyticsProvider => {
    const provider = new MemoryProvider(name) as
      & MemoryProvider
      & IAnalyticsProvider;
    provider.checkHealth = (signal?: AbortSignal) => {
      signals.push(signal);
      return result();
    };
    return provider;
  };
  analytics.addProvider(checkable("a", () => ({ status: "healthy" })));
  analytics.addProvider(
    checkable("b", () =>
      Promise.resolve<HealthCheckResult>({
        status: "degraded",
        detail: { dropped: 3 },
      })),
  );
  const controller = new AbortController();
  const degraded = await analytics.checkHealth(controller.signal);
  assert.deepEqual(degraded, {
    status: "degraded",
    detail: {
      providers: {
        a: { status: "healthy" },
        b: { status: "degraded", detail: { dropped: 3 } },
      },
    },
  });
  assert.deepEqual(signals, [controller.signal, controller.signal]);
  analytics.addProvider(checkable("a", () => {
    throw new Error(`lost token=${KEY}`);
  }));
  const broken = await analytics.checkHealth();
  assert.equal(broken.status, "unhealthy");
  const providers = (broken.detail as {
    providers: Record<string, HealthCheckResult>;
  }).providers;
  assert.deepEqual(Object.keys(providers), ["a", "b", "a #2"]);
  assert.equal(providers["a #2"].status, "unhealthy");
  assert.ok(!JSON.stringify(broken).includes(KEY));
  await analytics.dispose();
  assert.equal((await analytics.checkHealth()).status, "healthy");
});

test("AnalyticsManager.checkHealth() reports a provider that drops events", async () => {
  await using server = await startCollector(400, {});
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    onError: () => {},
  });
  const analytics = new AnalyticsManager().addProvider(provider);
  analytics.track("a");
  await analytics.flush();
  const result = await analytics.checkHealth();
  assert.equal(result.status, "degraded");
  const providers = (result.detail as {
    providers: Record<string, HealthCheckResult>;
  }).providers;
  assert.equal(providers.CustomAnalyticsProvider.status, "degraded");
  await analytics.dispose();
});
