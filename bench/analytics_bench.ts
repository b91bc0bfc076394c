// Analytics benchmarks: Kit's AnalyticsManager + CustomAnalyticsProvider
// against @segment/analytics-node (the baseline), both sending to the same
// local HTTP server with batches of 50 (CustomAnalyticsProvider's default
// batchSize).
//
//   deno bench -A --config deno.dev.json bench/analytics_bench.ts
//
// - "track enqueue": the cost of one track() call as the caller sees it
//   (both clients deliver in the background meanwhile; queues are unbounded
//   enough that nothing is dropped); 200,000 calls each, so the backlog
//   stays bounded.
// - "delivery 1000 events": track 1000 events and wait until the server has
//   accepted all of them (Kit: flush(); Segment: flush(), which waits for
//   'drained').
// - "bounded dispose": dispose({ timeout }) against a port that refuses
//   connections (Kit only).
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Analytics } from "@segment/analytics-node";
import { AnalyticsManager, CustomAnalyticsProvider } from "../analytics/mod.ts";
import { RequestContext } from "../platform/mod.ts";

let received = 0;
const server = createServer(
  (request: IncomingMessage, response: ServerResponse) => {
    let length = 0;
    request.on("data", (chunk: Uint8Array) => (length += chunk.length));
    request.on("end", () => {
      received += length > 0 ? 1 : 0;
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  },
);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
server.unref();
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function kitClient(): AnalyticsManager {
  const analytics = new AnalyticsManager({ anonymousId: "bench-anon" });
  analytics.addProvider(
    new CustomAnalyticsProvider({
      endpoint: `${base}/v1/events`,
      apiKey: "bench",
      batchSize: 50,
      flushInterval: 30_000,
      maxQueueSize: 50_000_000,
    }),
  );
  analytics.identify("bench-user");
  return analytics;
}

function segmentClient(): Analytics {
  return new Analytics({
    writeKey: "bench",
    host: base,
    path: "/v1/batch",
    flushAt: 50,
    flushInterval: 30_000,
  });
}

const properties = { plan: "pro", value: 42, source: "bench" };

// The delivery group runs first, on a quiet system; the enqueue group leaves
// a backlog that drains in the background.
const kitDelivery = kitClient();
const segmentDelivery = segmentClient();

Deno.bench({
  name: "Kit: 1000 events delivered (batches of 50)",
  group: "delivery 1000 events",
  n: 30,
  warmup: 3,
  async fn() {
    for (let i = 0; i < 1000; i++) kitDelivery.track("bench_event", properties);
    const result = await kitDelivery.flush();
    // The first flush also carries the identify event.
    if (result.delivered < 1000) {
      throw new Error(`Kit delivered ${result.delivered} of 1000`);
    }
  },
});

Deno.bench({
  name: "@segment/analytics-node: 1000 events delivered (batches of 50)",
  group: "delivery 1000 events",
  baseline: true,
  n: 30,
  warmup: 3,
  async fn() {
    for (let i = 0; i < 1000; i++) {
      segmentDelivery.track({
        userId: "bench-user",
        event: "bench_event",
        properties,
      });
    }
    await segmentDelivery.flush();
  },
});

const kitEnqueue = kitClient();
const segmentEnqueue = segmentClient();

Deno.bench({
  name: "Kit AnalyticsManager.track (CustomAnalyticsProvider)",
  group: "track enqueue",
  n: 200_000,
  warmup: 1_000,
  fn() {
    kitEnqueue.track("bench_event", properties);
  },
});

Deno.bench({
  name: "@segment/analytics-node track",
  group: "track enqueue",
  baseline: true,
  n: 200_000,
  warmup: 1_000,
  fn() {
    segmentEnqueue.track({
      userId: "bench-user",
      event: "bench_event",
      properties,
    });
  },
});

Deno.bench({
  name: "Kit AnalyticsManager.track inside RequestContext.run (run included)",
  group: "track enqueue",
  n: 200_000,
  warmup: 1_000,
  fn() {
    RequestContext.run(
      { requestId: "bench-request" },
      () => kitEnqueue.track("bench_event", properties),
    );
  },
});

// dispose() while the endpoint refuses connections: without a deadline it
// takes the first batch's whole retry schedule (≈ 15-31 s with the default
// maxRetries 5 and retryDelay 1000);
// with { timeout } it ends at the deadline, dropping and reporting the rest.
const refusing = await (async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1/events`;
})();

Deno.bench({
  name: "Kit: dispose({ timeout: 500 }) with 500 events, endpoint refusing",
  group: "bounded dispose",
  n: 3,
  warmup: 0,
  async fn() {
    const analytics = new AnalyticsManager().addProvider(
      new CustomAnalyticsProvider({ endpoint: refusing, onError: () => {} }),
    );
    for (let i = 0; i < 500; i++) analytics.track("bench_event", properties);
    await analytics.dispose({ timeout: 500 });
  },
});

// Let the process end once the benches are done.
globalThis.addEventListener("unload", () => {
  void received;
  server.close();
});
