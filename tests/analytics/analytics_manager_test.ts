import { test } from "node:test";
import assert from "node:assert/strict";
import {
  AnalyticsConfigurationError,
  type AnalyticsEvent,
  AnalyticsManager,
  AnalyticsProviderError,
  CustomAnalyticsProvider,
  type IAnalyticsProvider,
  isSampledIn,
  samplingHash,
} from "../../analytics/mod.ts";
import {
  errorSink,
  MemoryProvider,
  receivedEvents,
  startCollector,
} from "./_helpers.ts";

function collecting(url: string): CustomAnalyticsProvider {
  return new CustomAnalyticsProvider({
    endpoint: url,
    batchSize: 500,
    flushInterval: 0,
  });
}

test("AnalyticsManager hands every provider the same normalized event", async () => {
  const first = new MemoryProvider("first");
  const second = new MemoryProvider("second");
  const analytics = new AnalyticsManager({ anonymousId: "anon" })
    .addProvider(first)
    .addProvider(second);
  const properties = { plan: "pro" };
  analytics.track("signed_up", properties, { timestamp: 1_700_000_000_000 });
  properties.plan = "changed later";
  assert.equal(first.events.length, 1);
  assert.equal(first.events[0], second.events[0]);
  const event = first.events[0];
  assert.deepEqual(
    { ...event, messageId: "" },
    {
      type: "track",
      name: "signed_up",
      properties: { plan: "pro" },
      timestamp: 1_700_000_000_000,
      anonymousId: "anon",
      sampleRate: 1,
      messageId: "",
    },
  );
  await analytics.dispose();
  assert.ok(first.disposed && second.disposed, "dispose disposes providers");
});

test("AnalyticsManager.identify() sets the user of later events; a per-call context does not", async () => {
  const memory = new MemoryProvider();
  const analytics = new AnalyticsManager({ anonymousId: "anon" })
    .addProvider(memory);
  analytics.identify("server-side-user", { a: 1 }, {});
  assert.equal(analytics.userId, undefined);
  analytics.identify("user-1", { email: "a@example.com" });
  analytics.track("x");
  analytics.track("y", {}, { userId: "other", anonymousId: "anon-2" });
  analytics.page();
  analytics.reset("anon-3");
  analytics.track("z");
  const summary = memory.events.map((
    e,
  ) => [e.type, e.name, e.userId, e.anonymousId]);
  assert.deepEqual(summary, [
    ["identify", "identify", "server-side-user", "anon"],
    ["identify", "identify", "user-1", "anon"],
    ["track", "x", "user-1", "anon"],
    ["track", "y", "other", "anon-2"],
    ["page", "page", "user-1", "anon"],
    ["track", "z", undefined, "anon-3"],
  ]);
  assert.deepEqual(memory.events[1].properties, { email: "a@example.com" });
  await analytics.dispose();
});

test("AnalyticsManager keeps delivering to healthy providers when one throws or rejects", async () => {
  await using server = await startCollector();
  const throwing: IAnalyticsProvider = {
    name: "Throwing",
    track() {
      throw new Error("sync failure");
    },
    page() {},
    identify() {},
    flush: () => Promise.reject(new Error("flush failure")),
    dispose: () => Promise.resolve(),
  };
  const rejecting: IAnalyticsProvider = {
    name: "Rejecting",
    track: () => Promise.reject(new Error("async failure")),
    page() {},
    identify() {},
    flush: () => Promise.resolve(),
    dispose: () => Promise.reject(new Error("dispose failure")),
  };
  const sink = errorSink();
  const analytics = new AnalyticsManager({ onError: sink.onError })
    .addProvider(throwing)
    .addProvider(rejecting)
    .addProvider(collecting(server.url));
  analytics.track("a");
  analytics.track("b");
  assert.deepEqual(await analytics.flush(), { delivered: 2, dropped: 0 });
  assert.deepEqual(receivedEvents(server).map((e) => e.name), ["a", "b"]);
  await analytics.dispose();
  const messages = sink.errors.map((e) => e.message).sort();
  assert.deepEqual(messages, [
    "Analytics provider Rejecting failed in dispose: dispose failure",
    "Analytics provider Rejecting failed in track: async failure",
    "Analytics provider Rejecting failed in track: async failure",
    "Analytics provider Throwing failed in flush: flush failure",
    "Analytics provider Throwing failed in track: sync failure",
    "Analytics provider Throwing failed in track: sync failure",
  ]);
  assert.ok(sink.errors.every((e) => e instanceof AnalyticsProviderError));
  const first = sink.errors.find((e) => e.message.includes("sync failure"));
  assert.equal((first as AnalyticsProviderError).provider, "Throwing");
  assert.equal((first as AnalyticsProviderError).operation, "track");
});

test("Sampling keeps or drops an id for good: same id, same decision, across managers", async () => {
  await using server = await startCollector();
  const ids = Array.from({ length: 200 }, (_, i) => `user-${i}`);
  const run = async (): Promise<Map<string, number>> => {
    const before = receivedEvents(server).length;
    const analytics = new AnalyticsManager({ samplingRate: 0.3 })
      .addProvider(collecting(server.url));
    for (let round = 0; round < 5; round++) {
      for (const id of ids) analytics.track("step", { round }, { userId: id });
    }
    await analytics.dispose();
    const counts = new Map<string, number>();
    for (const event of receivedEvents(server).slice(before)) {
      counts.set(event.userId!, (counts.get(event.userId!) ?? 0) + 1);
    }
    return counts;
  };
  const first = await run();
  const second = await run();
  assert.ok(first.size > 0 && first.size < ids.length);
  for (const count of first.values()) assert.equal(count, 5, "all or nothing");
  assert.deepEqual([...first.keys()].sort(), [...second.keys()].sort());
  for (const id of ids) {
    assert.equal(first.has(id), isSampledIn(id, 0.3), id);
  }
});

test("Sampling at 0.1 keeps between 8 % and 12 % of 10,000 ids and tags events with the rate", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ samplingRate: 0.1 })
    .addProvider(collecting(server.url));
  for (let i = 0; i < 10_000; i++) {
    analytics.track("visit", {}, { anonymousId: `visitor-${i}` });
  }
  await analytics.dispose();
  const events = receivedEvents(server);
  assert.ok(
    events.length >= 800 && events.length <= 1200,
    `${events.length} of 10000 sampled`,
  );
  assert.ok(events.every((e) => e.sampleRate === 0.1));
  assert.equal(analytics.stats.sampledOut, 10_000 - events.length);
});

test("Sampling follows the user id once known, else the anonymous id", async () => {
  const memory = new MemoryProvider();
  // Pick ids with known, opposite decisions at 0.5.
  const ids = Array.from({ length: 50 }, (_, i) => `id-${i}`);
  const keptId = ids.find((id) => isSampledIn(id, 0.5))!;
  const droppedId = ids.find((id) => !isSampledIn(id, 0.5))!;
  const analytics = new AnalyticsManager({
    samplingRate: 0.5,
    anonymousId: droppedId,
  }).addProvider(memory);
  analytics.track("anonymous"); // decided on droppedId
  analytics.identify(keptId);
  analytics.track("known"); // decided on keptId
  assert.deepEqual(memory.events.map((e) => e.name), ["identify", "known"]);
  await analytics.dispose();
});

test("samplingHash is FNV-1a with the fmix32 finalizer, identical across runtimes", () => {
  assert.equal(samplingHash(""), 2872998923);
  assert.equal(samplingHash("user-42"), 2083131798);
  assert.equal(samplingHash("héllo"), 4198468525); // UTF-8 bytes
  assert.equal(isSampledIn("user-42", 0.49), true); // 0.48501…
  assert.equal(isSampledIn("user-42", 0.48), false);
  assert.equal(isSampledIn("anything", 1), true);
  assert.equal(isSampledIn("anything", 0), false);
});

test("samplingRate outside 0..1 is a clear error and changes nothing", async () => {
  const analytics = new AnalyticsManager({ samplingRate: 0.5 });
  for (const bad of [1.5, -0.1, Number.NaN, Infinity]) {
    assert.throws(
      () => analytics.configure({ samplingRate: bad }),
      new AnalyticsConfigurationError(
        `samplingRate must be a number from 0 to 1: ${bad}`,
      ),
    );
  }
  assert.throws(
    () => new AnalyticsManager({ samplingRate: "0.5" as unknown as number }),
    { message: "samplingRate must be a number from 0 to 1: 0.5" },
  );
  assert.throws(() => isSampledIn("x", 2), AnalyticsConfigurationError);
  assert.equal(analytics.samplingRate, 0.5);
  await analytics.dispose();
});

test("Consent hold: events wait until consent, then reach the server in order", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ requireConsent: true })
    .addProvider(collecting(server.url));
  assert.equal(analytics.consent, "pending");
  analytics.page("Home");
  analytics.track("clicked_banner");
  assert.deepEqual(await analytics.flush(), { delivered: 0, dropped: 0 });
  assert.equal(server.requests.length, 0);
  assert.equal(analytics.stats.held, 2);
  analytics.setConsent(true);
  analytics.track("after_consent");
  assert.deepEqual(await analytics.flush(), { delivered: 3, dropped: 0 });
  assert.deepEqual(receivedEvents(server).map((e) => e.name), [
    "Home",
    "clicked_banner",
    "after_consent",
  ]);
  await analytics.dispose();
});

test("Consent hold is bounded by maxHeldEvents", async () => {
  const memory = new MemoryProvider();
  const analytics = new AnalyticsManager({
    requireConsent: true,
    maxHeldEvents: 2,
  }).addProvider(memory);
  for (let i = 0; i < 5; i++) analytics.track(`e${i}`);
  assert.deepEqual(analytics.stats.held, 2);
  assert.deepEqual(analytics.stats.droppedByConsent, 3);
  analytics.setConsent(true);
  assert.deepEqual(memory.events.map((e) => e.name), ["e0", "e1"]);
  await analytics.dispose();
});

test("Consent drop: events before consent never reach the server", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({
    requireConsent: true,
    consentMode: "drop",
  }).addProvider(collecting(server.url));
  analytics.track("before_1");
  analytics.track("before_2");
  assert.equal(analytics.stats.droppedByConsent, 2);
  analytics.setConsent(true);
  analytics.track("after");
  await analytics.flush();
  assert.deepEqual(receivedEvents(server).map((e) => e.name), ["after"]);
  await analytics.dispose();
});

test("Revoking consent drops what is held and everything after it", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager({ requireConsent: true })
    .addProvider(collecting(server.url));
  analytics.track("held_1");
  analytics.track("held_2");
  analytics.setConsent(false);
  assert.equal(analytics.consent, "denied");
  assert.equal(analytics.stats.held, 0);
  analytics.track("after_revocation");
  analytics.setConsent(true); // nothing left to release
  analytics.track("granted_again");
  await analytics.flush();
  assert.deepEqual(receivedEvents(server).map((e) => e.name), [
    "granted_again",
  ]);
  assert.equal(analytics.stats.droppedByConsent, 3);
  await analytics.dispose();
});

test("Consent: requireConsent off delivers at once; turning it on later holds again", async () => {
  const memory = new MemoryProvider();
  const analytics = new AnalyticsManager().addProvider(memory);
  assert.equal(analytics.consent, "granted");
  analytics.track("free");
  analytics.configure({ requireConsent: true });
  analytics.track("held");
  assert.deepEqual(memory.events.map((e) => e.name), ["free"]);
  analytics.configure({ requireConsent: false });
  assert.deepEqual(memory.events.map((e) => e.name), ["free", "held"]);
  await analytics.dispose();
});

test("AnalyticsManager.configure() validates consent options", async () => {
  const analytics = new AnalyticsManager();
  assert.throws(
    () => analytics.configure({ consentMode: "later" as "hold" }),
    { message: 'consentMode must be "hold" or "drop": later' },
  );
  assert.throws(
    () => analytics.configure({ maxHeldEvents: -1 }),
    { message: "maxHeldEvents must be an integer of at least 0: -1" },
  );
  await analytics.dispose();
});

test("AnalyticsManager on a server: page and performance tracking are no-ops", async () => {
  const memory = new MemoryProvider();
  const analytics = new AnalyticsManager({
    enableAutoPageTracking: true,
    enablePerformanceTracking: true,
  }).addProvider(memory);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(memory.events, []);
  analytics.page();
  assert.deepEqual(memory.events.map((e: AnalyticsEvent) => e.name), ["page"]);
  await analytics.dispose();
});

test("AnalyticsManager ignores calls after dispose", async () => {
  const memory = new MemoryProvider();
  const analytics = new AnalyticsManager().addProvider(memory);
  await analytics.dispose();
  analytics.track("late");
  assert.deepEqual(memory.events, []);
  assert.deepEqual(await analytics.flush(), { delivered: 0, dropped: 0 });
  await analytics.dispose(); // harmless
});
