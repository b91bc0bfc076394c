// Events tracked inside RequestContext.run(...) carry its requestId in their
// context; the call's own requestId wins; concurrent contexts never mix.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AnalyticsManager } from "../../analytics/mod.ts";
import { RequestContext } from "../../platform/mod.ts";
import {
  delay,
  MemoryProvider,
  receivedEvents,
  startCollector,
} from "./_helpers.ts";
import { CustomAnalyticsProvider } from "../../analytics/mod.ts";

test("an event tracked inside a request context carries its requestId", async () => {
  const memory = new MemoryProvider();
  const analytics = new AnalyticsManager().addProvider(memory);
  analytics.track("outside");
  await RequestContext.run({ requestId: "req-1", tenant: "acme" }, async () => {
    analytics.track("inside");
    await delay(1);
    analytics.page("after an await");
    analytics.identify("user-1");
    analytics.track("explicit", {}, { requestId: "req-explicit" });
  });
  const [outside, inside, page, identify, explicit] = memory.events;
  assert.equal("context" in outside, false);
  assert.deepEqual(inside.context, { requestId: "req-1" });
  assert.deepEqual(page.context, { requestId: "req-1" });
  assert.deepEqual(identify.context, { requestId: "req-1" });
  assert.deepEqual(explicit.context, { requestId: "req-explicit" });
  await analytics.dispose();
});

test("concurrent request contexts do not mix their requestIds", async () => {
  const memory = new MemoryProvider();
  const analytics = new AnalyticsManager().addProvider(memory);
  const handle = (id: string, steps: number) =>
    RequestContext.run({ requestId: id }, async () => {
      for (let step = 0; step < steps; step++) {
        analytics.track(`${id}:${step}`);
        // Interleave the requests at every step.
        await delay(Math.floor(Math.random() * 5));
      }
    });
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => handle(`req-${i}`, 5)),
  );
  assert.equal(memory.events.length, 100);
  for (const event of memory.events) {
    const [id] = event.name.split(":");
    assert.equal(event.context?.requestId, id, event.name);
  }
  // Interleaved for real: the order of arrival is not request by request.
  const order = memory.events.map((event) => event.name.split(":")[0]);
  assert.notDeepEqual(order, [...order].sort());
  await analytics.dispose();
});

test("CustomAnalyticsProvider sends the event's context with it", async () => {
  await using server = await startCollector();
  const analytics = new AnalyticsManager().addProvider(
    new CustomAnalyticsProvider({ endpoint: server.url }),
  );
  RequestContext.run({ requestId: "req-42" }, () => analytics.track("a"));
  await analytics.flush();
  const [event] = receivedEvents(server);
  assert.deepEqual(event.context, { requestId: "req-42" });
  await analytics.dispose();
});
