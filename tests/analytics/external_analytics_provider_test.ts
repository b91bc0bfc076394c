import { test } from "node:test";
import assert from "node:assert/strict";
import {
  AnalyticsConfigurationError,
  AnalyticsDeliveryError,
  AnalyticsManager,
  ExternalAnalyticsProvider,
  type ExternalAnalyticsProviderOptions,
  GA4_COLLECT_ENDPOINT,
} from "../../analytics/mod.ts";
import type { IConfiguration } from "../../config/mod.ts";
import { errorSink, startCollector, type TestServer } from "./_helpers.ts";
import { startTestServer } from "../_support/http_server.ts";

interface Ga4Body {
  client_id: string;
  user_id?: string;
  user_properties?: Record<string, { value: string | number }>;
  events: {
    name: string;
    params: Record<string, unknown>;
    timestamp_micros: number;
  }[];
}

function bodies(server: TestServer): Ga4Body[] {
  return server.requests.map((request) => JSON.parse(request.body));
}

function ga4(
  server: TestServer,
  options: Partial<ExternalAnalyticsProviderOptions> = {},
): ExternalAnalyticsProvider {
  return new ExternalAnalyticsProvider({
    trackingId: "G-TEST123",
    apiSecret: "s3cret",
    endpoint: `${server.url}/mp/collect`,
    flushInterval: 0,
    ...options,
  });
}

test("ExternalAnalyticsProvider sends GA4 Measurement Protocol payloads to the configured address", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ anonymousId: "client-1" })
    .addProvider(ga4(server));
  const before = Date.now();
  analytics.identify("user-9", { plan: "pro", isBeta: true });
  analytics.track("Signed Up", {
    method: "Google",
    retries: 2,
    accepted: true,
    meta: { a: 1 },
  });
  analytics.page("Pricing", {
    url: "https://example.com/pricing",
    referrer: "https://example.com/",
  });
  assert.deepEqual(await analytics.flush(), { delivered: 2, dropped: 0 });
  assert.equal(server.requests.length, 1);
  const url = new URL(server.requests[0].url, server.url);
  assert.equal(url.pathname, "/mp/collect");
  assert.equal(url.searchParams.get("measurement_id"), "G-TEST123");
  assert.equal(url.searchParams.get("api_secret"), "s3cret");
  const [body] = bodies(server);
  assert.deepEqual(Object.keys(body), [
    "client_id",
    "user_id",
    "user_properties",
    "events",
  ]);
  assert.equal(body.client_id, "client-1");
  assert.equal(body.user_id, "user-9");
  assert.deepEqual(body.user_properties, {
    plan: { value: "pro" },
    is_beta: { value: "true" },
  });
  assert.deepEqual(body.events.map((e) => e.name), ["signed_up", "page_view"]);
  assert.deepEqual(body.events[0].params, {
    method: "Google",
    retries: 2,
    accepted: "true",
    meta: '{"a":1}',
  });
  assert.deepEqual(body.events[1].params, {
    page_location: "https://example.com/pricing",
    page_title: "Pricing",
    page_referrer: "https://example.com/",
  });
  const micros = body.events[0].timestamp_micros;
  assert.ok(micros >= before * 1000 && micros <= Date.now() * 1000);
  await analytics.dispose();
});

test("ExternalAnalyticsProvider splits a flush into requests of at most 25 events", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ anonymousId: "client-1" })
    .addProvider(ga4(server));
  for (let i = 0; i < 60; i++) analytics.track("tick", { i });
  assert.deepEqual(await analytics.flush(), { delivered: 60, dropped: 0 });
  assert.deepEqual(bodies(server).map((b) => b.events.length), [25, 25, 10]);
  const order = bodies(server).flatMap((b) => b.events.map((e) => e.params.i));
  assert.deepEqual(order, Array.from({ length: 60 }, (_, i) => i));
  await analytics.dispose();
});

test("ExternalAnalyticsProvider sends one request per client and user", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ anonymousId: "server" })
    .addProvider(ga4(server));
  analytics.track("a", {}, { userId: "u1" });
  analytics.track("b", {}, { userId: "u2" });
  analytics.track("c", {}, { userId: "u1" });
  analytics.track("d", {}, { anonymousId: "visitor-3" });
  await analytics.flush();
  const summary = bodies(server).map((b) => ({
    client: b.client_id,
    user: b.user_id,
    events: b.events.map((e) => e.name),
  }));
  assert.deepEqual(summary, [
    { client: "server", user: "u1", events: ["a", "c"] },
    { client: "server", user: "u2", events: ["b"] },
    { client: "visitor-3", user: undefined, events: ["d"] },
  ]);
  await analytics.dispose();
});

test("ExternalAnalyticsProvider maps ecommerce events onto GA4 shapes when enableEnhancedEcommerce is on", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ anonymousId: "c" }).addProvider(
    ga4(server, { enableEnhancedEcommerce: true }),
  );
  analytics.track("purchase", {
    transactionId: "T-1001",
    currency: "eur",
    tax: 1.5,
    shipping: "4.90",
    coupon: "SUMMER",
    items: [
      {
        id: "SKU-1",
        name: "Mug",
        price: 12.5,
        quantity: 2,
        brand: "Kit",
        category: "Kitchen",
        variant: "blue",
        color: "blue",
      },
      { sku: "SKU-2", name: "Tea", price: 5 },
    ],
  });
  // Segment's e-commerce names and flat product properties map too.
  analytics.track("Product Added", {
    product_id: "SKU-3",
    name: "Spoon",
    price: 3,
    quantity: 4,
    currency: "USD",
  });
  analytics.track("add_to_cart", { currency: "EUR", value: 9, items: [] });
  await analytics.flush();
  const [purchase, added, emptyCart] = bodies(server)[0].events;
  assert.deepEqual(purchase, {
    name: "purchase",
    params: {
      currency: "EUR",
      transaction_id: "T-1001",
      coupon: "SUMMER",
      tax: 1.5,
      shipping: 4.9,
      items: [
        {
          item_id: "SKU-1",
          item_name: "Mug",
          item_brand: "Kit",
          item_category: "Kitchen",
          item_variant: "blue",
          price: 12.5,
          quantity: 2,
          color: "blue",
        },
        { item_id: "SKU-2", item_name: "Tea", price: 5 },
      ],
      value: 30,
    },
    timestamp_micros: purchase.timestamp_micros,
  });
  assert.equal(added.name, "add_to_cart");
  assert.deepEqual(added.params, {
    currency: "USD",
    items: [{ item_id: "SKU-3", item_name: "Spoon", price: 3, quantity: 4 }],
    value: 12,
  });
  assert.deepEqual(emptyCart.params, { currency: "EUR", value: 9, items: [] });
  await analytics.dispose();
});

test("ExternalAnalyticsProvider sends ecommerce events unmapped when enableEnhancedEcommerce is off", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager().addProvider(ga4(server));
  analytics.track("Order Completed", {
    orderId: "T-1",
    items: [{ id: "SKU-1" }],
  });
  await analytics.flush();
  const [event] = bodies(server)[0].events;
  assert.equal(event.name, "order_completed");
  assert.deepEqual(event.params, {
    order_id: "T-1",
    items: '[{"id":"SKU-1"}]',
  });
  await analytics.dispose();
});

test("ExternalAnalyticsProvider with anonymizeIp strips IP-like values and IP or user-agent fields", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ anonymousId: "c" }).addProvider(
    ga4(server, { anonymizeIp: true, enableEnhancedEcommerce: true }),
  );
  analytics.identify("u1", { ip: "10.0.0.1", userAgent: "Mozilla/5.0", a: 1 });
  analytics.track("visit", {
    ip: "203.0.113.7",
    clientIp: "198.51.100.1",
    "x-forwarded-for": "203.0.113.7, 10.0.0.1",
    user_agent: "curl/8.0",
    ua: "x",
    peer: "2001:db8::1",
    origin: "192.168.1.20:8080",
    keep: "this",
    version: "1.2.3.4.5",
  });
  analytics.track("purchase", {
    currency: "EUR",
    items: [{ id: "S", remoteAddr: "10.1.1.1" }],
  });
  await analytics.flush();
  const [body] = bodies(server);
  assert.deepEqual(body.user_properties, { a: { value: 1 } });
  assert.deepEqual(body.events[0].params, {
    keep: "this",
    version: "1.2.3.4.5",
  });
  assert.deepEqual(body.events[1].params.items, [{ item_id: "S" }]);
  await analytics.dispose();
});

test("ExternalAnalyticsProvider without anonymizeIp keeps those fields", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager().addProvider(
    ga4(server, { anonymizeIp: false }),
  );
  analytics.track("visit", { ip: "203.0.113.7", userAgent: "curl/8.0" });
  await analytics.flush();
  assert.deepEqual(bodies(server)[0].events[0].params, {
    ip: "203.0.113.7",
    user_agent: "curl/8.0",
  });
  await analytics.dispose();
});

test("ExternalAnalyticsProvider keeps GA4 names valid: snake_case, 40 characters, reserved names prefixed, 25 params", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ samplingRate: 1 }).addProvider(
    ga4(server),
  );
  const many: Record<string, number> = {};
  for (let i = 0; i < 30; i++) many[`p${i}`] = i;
  analytics.track("error", { "long value": "x".repeat(150) });
  analytics.track("session_start");
  analytics.track("ga_custom");
  analytics.track("9lives");
  analytics.track("A very long event name that goes past forty characters");
  analytics.track("many", many);
  await analytics.flush();
  const events = bodies(server)[0].events;
  assert.deepEqual(
    events.map((e) => e.name),
    [
      "app_error",
      "app_session_start",
      "app_ga_custom",
      "e_9_lives",
      "a_very_long_event_name_that_goes_past_fo",
    ].concat("many"),
  );
  assert.equal(events[0].params.long_value, "x".repeat(100));
  assert.equal(Object.keys(events[5].params).length, 25);
  await analytics.dispose();
});

test("ExternalAnalyticsProvider attaches the sampling rate as the sample_rate param", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ samplingRate: 0.5 }).addProvider(
    ga4(server),
  );
  // Find an id that is sampled in at 0.5.
  let kept = 0;
  for (let i = 0; kept === 0 && i < 100; i++) {
    analytics.track("x", {}, { userId: `u${i}` });
    kept = (await analytics.flush()).delivered;
  }
  assert.equal(kept, 1);
  assert.equal(bodies(server)[0].events[0].params.sample_rate, 0.5);
  await analytics.dispose();
});

test("ExternalAnalyticsProvider outside a browser fails at construction without an apiSecret for Google's address", () => {
  for (
    const options of [
      { trackingId: "G-TEST123" },
      {
        trackingId: "G-TEST123",
        enableEnhancedEcommerce: true,
        anonymizeIp: true,
      },
      {
        trackingId: "G-TEST123",
        endpoint: "https://region1.google-analytics.com/mp/collect",
      },
    ]
  ) {
    assert.throws(
      () => new ExternalAnalyticsProvider(options),
      new AnalyticsConfigurationError(
        "ExternalAnalyticsProvider: apiSecret is required outside a browser: Google's Measurement Protocol drops events sent without one. " +
          "Create one in Google Analytics (Admin → Data streams → your stream → Measurement Protocol API secrets) " +
          "and pass it as apiSecret (or set analytics:apiSecret). In a browser page the trackingId alone is enough.",
      ),
    );
  }
  assert.equal(
    GA4_COLLECT_ENDPOINT,
    "https://www.google-analytics.com/mp/collect",
  );
});

test("ExternalAnalyticsProvider: delivery errors go to the AnalyticsManager's onError when the provider has none", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(400, { "content-type": "application/json" });
    response.end("{}");
  });
  const managerErrors: Error[] = [];
  const provider = new ExternalAnalyticsProvider({
    trackingId: "G-TEST123",
    apiSecret: "s3cret",
    endpoint: `${server.url}/mp/collect`,
    flushInterval: 0,
  });
  const analytics = new AnalyticsManager({
    onError: (error) => managerErrors.push(error),
  }).addProvider(provider);
  analytics.track("x");
  assert.deepEqual(await analytics.flush(), { delivered: 0, dropped: 1 });
  assert.equal(managerErrors.length, 1);
  assert.ok(managerErrors[0] instanceof AnalyticsDeliveryError);
  assert.match(managerErrors[0].message, /HTTP 400/);

  // A provider's own onError still wins.
  const own = errorSink();
  const second = new ExternalAnalyticsProvider({
    trackingId: "G-TEST123",
    apiSecret: "s3cret",
    endpoint: `${server.url}/mp/collect`,
    flushInterval: 0,
    onError: own.onError,
  });
  analytics.addProvider(second);
  analytics.track("y");
  await analytics.flush();
  assert.equal(own.errors.length, 1);
  assert.equal(managerErrors.length, 2); // the first provider's second failure
  await analytics.dispose();
});

test("ExternalAnalyticsProvider rejects a missing trackingId and a batchSize above 25", () => {
  assert.throws(
    () => new ExternalAnalyticsProvider({ trackingId: "" }),
    new AnalyticsConfigurationError(
      "ExternalAnalyticsProvider: trackingId is required",
    ),
  );
  assert.throws(
    () =>
      new ExternalAnalyticsProvider({
        trackingId: "G-1",
        apiSecret: "s",
        batchSize: 26,
      }),
    new AnalyticsConfigurationError(
      "ExternalAnalyticsProvider: batchSize must be an integer from 1 to 25: 26",
    ),
  );
});

function configOf(values: Record<string, unknown>): IConfiguration {
  return {
    hasValue: (key) => key in values,
    getValue<T>(key: string, defaultValue?: T): T {
      if (key in values) return values[key] as T;
      if (arguments.length > 1) return defaultValue as T;
      throw new Error(`Configuration value not found: ${key}`);
    },
  };
}

test("ExternalAnalyticsProvider.fromConfiguration() reads analytics:trackingId and the GA4 keys", async () => {
  await using server = await startCollector();
  const provider = ExternalAnalyticsProvider.fromConfiguration(
    configOf({
      "analytics:trackingId": "G-FROMCONFIG",
      "analytics:apiSecret": "cfg-secret",
      "analytics:ga4Endpoint": `${server.url}/mp/collect`,
      "analytics:enableEnhancedEcommerce": "true",
      "analytics:anonymizeIp": "false",
    }),
    { flushInterval: 0 },
  );
  const analytics = new AnalyticsManager().addProvider(provider);
  analytics.track("Order Completed", { ip: "10.0.0.1", currency: "EUR" });
  await analytics.flush();
  const url = new URL(server.requests[0].url, server.url);
  assert.equal(url.searchParams.get("measurement_id"), "G-FROMCONFIG");
  assert.equal(url.searchParams.get("api_secret"), "cfg-secret");
  const [event] = bodies(server)[0].events;
  assert.equal(event.name, "purchase", "ecommerce mapping on");
  assert.equal(event.params.ip, "10.0.0.1", "anonymizeIp off");
  await analytics.dispose();
});

test("ExternalAnalyticsProvider.fromConfiguration() reports a missing analytics:trackingId", () => {
  assert.throws(
    () => ExternalAnalyticsProvider.fromConfiguration(configOf({})),
    { message: "Configuration value not found: analytics:trackingId" },
  );
});

test("ExternalAnalyticsProvider.fromConfiguration(): code options win, and a key they override is not read", async () => {
  await using server = await startCollector();
  const read: string[] = [];
  const values: Record<string, unknown> = {
    "analytics:trackingId": "G-FROMCONFIG",
    "analytics:apiSecret": "cfg-secret",
    "analytics:ga4Endpoint": "not a url",
    "analytics:enableEnhancedEcommerce": "maybe",
    "analytics:anonymizeIp": "false",
  };
  const config: IConfiguration = {
    hasValue: (key) => key in values,
    getValue<T>(key: string, defaultValue?: T): T {
      read.push(key);
      return (key in values ? values[key] : defaultValue) as T;
    },
  };
  const provider = ExternalAnalyticsProvider.fromConfiguration(config, {
    trackingId: "G-CODE",
    apiSecret: "code-secret",
    endpoint: `${server.url}/mp/collect`,
    enableEnhancedEcommerce: false,
    flushInterval: 0,
  });
  assert.deepEqual(read, ["analytics:anonymizeIp"]);
  const analytics = new AnalyticsManager().addProvider(provider);
  analytics.track("Order Completed", { ip: "10.0.0.1" });
  await analytics.flush();
  const url = new URL(server.requests[0].url, server.url);
  assert.equal(url.searchParams.get("measurement_id"), "G-CODE");
  assert.equal(url.searchParams.get("api_secret"), "code-secret");
  const [event] = bodies(server)[0].events;
  assert.equal(event.name, "order_completed", "ecommerce mapping off (code)");
  assert.equal(event.params.ip, "10.0.0.1", "anonymizeIp off (configuration)");
  await analytics.dispose();
});
