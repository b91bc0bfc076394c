// CacheManager's OpenTelemetry output, recorded by the official SDK
// (tests/_support/otel_sdk.ts): the span "cache getOrSet" around factory
// runs only, the "cache.hit" event on the caller's recording span, and the
// counter kit.cache.requests per area and result. Each test uses areas of
// its own: the counter's counts are per area name for the whole process.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import {
  type CacheError,
  CacheManager,
  MemoryCacheProvider,
  RemoteStoreCacheProvider,
} from "../../caching/mod.ts";
import {
  installOtelSdk,
  type MetricPoint,
  type OtelSdk,
} from "../_support/otel_sdk.ts";
import { deferred, FakeClock, flush } from "./_support.ts";
import { redisSkip, startRedisServer, waitFor } from "./_redis_server.ts";

const SCOPE = "@vendor/kit-platform-caching";

/** kit.cache.requests points of `area`, as { result: count }. */
function requestsOf(
  points: MetricPoint[],
  area: string,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const point of points) {
    if (
      point.name === "kit.cache.requests" && point.scope === SCOPE &&
      point.attributes["kit.cache.area"] === area
    ) {
      counts[String(point.attributes["kit.cache.result"])] = point.value ?? -1;
    }
  }
  return counts;
}

function childrenOf(sdk: OtelSdk, parent: ReadableSpan): ReadableSpan[] {
  return sdk.spans().filter((span) =>
    span.parentSpanContext?.spanId === parent.spanContext().spanId
  );
}

/** Runs `fn` inside a recording span named `name`, ended afterwards. */
async function inSpan<T>(name: string, fn: () => Promise<T>): Promise<T> {
  return await trace.getTracer("test").startActiveSpan(name, async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}

test("a miss is one 'cache getOrSet' span, the factory's own span inside it; a hit adds only a 'cache.hit' event to the caller's span", async () => {
  const sdk = installOtelSdk();
  const cache = new CacheManager(new MemoryCacheProvider());
  try {
    const products = cache.area("t1-products");
    const load = () =>
      trace.getTracer("test").startActiveSpan("load product", (span) => {
        span.end();
        return Promise.resolve({ id: 42 });
      });
    const first = await inSpan(
      "request 1",
      () => products.getOrSet("42", load),
    );
    assert.deepEqual(first, { id: 42 });
    const [cacheSpan, ...more] = sdk.spansNamed("cache getOrSet");
    assert.equal(more.length, 0, "one span for the miss");
    assert.deepEqual(cacheSpan.attributes, {
      "kit.cache.area": "t1-products",
      "kit.cache.result": "miss",
    });
    assert.equal(cacheSpan.instrumentationScope.name, SCOPE);
    assert.equal(cacheSpan.status.code, SpanStatusCode.UNSET);
    const [request1] = sdk.spansNamed("request 1");
    assert.equal(
      cacheSpan.parentSpanContext?.spanId,
      request1.spanContext().spanId,
      "a child of the caller's span",
    );
    assert.equal(
      cacheSpan.spanContext().traceId,
      request1.spanContext().traceId,
    );
    assert.deepEqual(
      childrenOf(sdk, cacheSpan).map((span) => span.name),
      ["load product"],
      "the factory ran inside the cache span",
    );
    assert.deepEqual(request1.events, [], "no hit event on a miss");

    // A hit: no span of its own, an event on the caller's recording span.
    assert.deepEqual(
      await inSpan("request 2", () => products.getOrSet("42", load)),
      { id: 42 },
    );
    assert.equal(sdk.spansNamed("cache getOrSet").length, 1, "no new span");
    const [request2] = sdk.spansNamed("request 2");
    assert.deepEqual(
      request2.events.map((event) => [event.name, event.attributes]),
      [["cache.hit", {
        "kit.cache.area": "t1-products",
        "kit.cache.result": "hit",
      }]],
    );
    assert.deepEqual(childrenOf(sdk, request2), []);

    // A hit outside any span records nothing at all.
    const before = sdk.spans().length;
    assert.deepEqual(await products.getOrSet("42", load), { id: 42 });
    assert.equal(sdk.spans().length, before);
    // Keys outside any area carry no kit.cache.area.
    await inSpan("request 3", () => cache.getOrSet("plain", () => 1));
    const plain = sdk.spansNamed("cache getOrSet").at(-1);
    assert.deepEqual(plain?.attributes, { "kit.cache.result": "miss" });
  } finally {
    await cache.dispose();
    await sdk.uninstall();
  }
});

test("stale-while-revalidate and refresh ahead of expiry: the background run's span says why, inside the caller's trace", async () => {
  const sdk = installOtelSdk();
  const clock = new FakeClock();
  const cache = new CacheManager(
    new MemoryCacheProvider({ clock: clock.read }),
    {
      clock: clock.read,
    },
  );
  try {
    cache.setPolicy("t2-rates", {
      ttl: 1_000,
      refreshThreshold: 0.8,
      maxStale: 1_000,
    });
    const rates = cache.area("t2-rates");
    let version = 0;
    const factory = () => Promise.resolve(++version);
    assert.equal(await rates.getOrSet("eur", factory), 1); // miss
    clock.advance(900); // past the refresh threshold, still fresh
    assert.equal(
      await inSpan("refresh", () => rates.getOrSet("eur", factory)),
      1,
    );
    await waitFor(
      () => sdk.spansNamed("cache getOrSet").length === 2,
      "the refresh span",
    );
    clock.advance(1_500); // past the ttl, within maxStale
    assert.equal(
      await inSpan("stale", () => rates.getOrSet("eur", factory)),
      2,
    );
    await waitFor(
      () => sdk.spansNamed("cache getOrSet").length === 3,
      "the stale span",
    );
    const spans = sdk.spansNamed("cache getOrSet");
    assert.deepEqual(
      spans.map((span) => span.attributes["kit.cache.result"]),
      ["miss", "refresh", "stale"],
    );
    for (const [index, name] of [[1, "refresh"], [2, "stale"]] as const) {
      const [caller] = sdk.spansNamed(name);
      assert.equal(
        spans[index].parentSpanContext?.spanId,
        caller.spanContext().spanId,
      );
      assert.deepEqual(caller.events, [], "not a hit event: a span instead");
    }
    assert.equal(await rates.getOrSet("eur", factory), 3, "refreshed value");
  } finally {
    await cache.dispose();
    await sdk.uninstall();
  }
});

test("a failing factory: result 'error', ERROR status with the message masked, the exception recorded; a failed refresh too", async () => {
  const sdk = installOtelSdk();
  const clock = new FakeClock();
  const errors: CacheError[] = [];
  const cache = new CacheManager(
    new MemoryCacheProvider({ clock: clock.read }),
    {
      clock: clock.read,
      onError: (error) => errors.push(error),
    },
  );
  try {
    const users = cache.area("t3-users");
    const failing = () =>
      Promise.reject(
        new Error("cannot reach https://app:hunter2secret@db.example/users"),
      );
    await assert.rejects(
      inSpan("request", () => users.getOrSet("1", failing)),
      /hunter2secret/,
      "the caller still gets the factory's own error",
    );
    const [span] = sdk.spansNamed("cache getOrSet");
    assert.equal(span.attributes["kit.cache.result"], "error");
    assert.equal(span.attributes["kit.cache.area"], "t3-users");
    assert.deepEqual(span.status, {
      code: SpanStatusCode.ERROR,
      message: "cannot reach https://app:***@db.example/users",
    });
    const exception = span.events.find((event) => event.name === "exception");
    assert.equal(
      exception?.attributes?.["exception.message"],
      "cannot reach https://app:***@db.example/users",
    );
    assert.ok(
      !JSON.stringify(span.events).includes("hunter2secret"),
      "the secret reaches no event",
    );

    // A refresh that fails keeps the value; its span is the error.
    const policy = { ttl: 1_000, maxStale: 1_000 };
    await users.getOrSet("2", () => "kept", { policy });
    clock.advance(1_500);
    assert.equal(await users.getOrSet("2", failing, { policy }), "kept");
    await waitFor(
      () => sdk.spansNamed("cache getOrSet").length === 3,
      "the refresh span",
    );
    const refresh = sdk.spansNamed("cache getOrSet")[2];
    assert.equal(refresh.attributes["kit.cache.result"], "error");
    assert.equal(refresh.status.code, SpanStatusCode.ERROR);
    await flush();
    assert.equal(errors.length, 1, "reported through onError as before");
  } finally {
    await cache.dispose();
    await sdk.uninstall();
  }
});

test("kit.cache.requests counts per area and result, getOrSet and get alike, summed over managers", async () => {
  const sdk = installOtelSdk();
  const clock = new FakeClock();
  const a = new CacheManager(new MemoryCacheProvider({ clock: clock.read }), {
    clock: clock.read,
    onError: () => {},
  });
  const b = new CacheManager(new MemoryCacheProvider(), { onError: () => {} });
  try {
    const orders = a.area("t4-orders");
    await orders.getOrSet("1", () => "one"); // miss
    await orders.getOrSet("1", () => "one"); // hit
    await orders.getOrSet("1", () => "one"); // hit
    await orders.get("1"); // hit
    await orders.get("2"); // miss
    await b.area("t4-orders").getOrSet("1", () => "one"); // miss, other manager
    await assert.rejects(
      b.area("t4-orders").getOrSet("3", () => Promise.reject(new Error("x"))),
    ); // miss + error
    const policy = { ttl: 1_000, refreshThreshold: 0.5, maxStale: 1_000 };
    const prices = a.area("t4-prices");
    await prices.getOrSet("p", () => 1, { policy }); // miss
    clock.advance(600);
    await prices.getOrSet("p", () => 2, { policy }); // hit + refresh
    await flush();
    clock.advance(1_500);
    await prices.getOrSet("p", () => 3, { policy }); // stale + refresh
    await flush();

    const points = await sdk.collect();
    assert.deepEqual(requestsOf(points, "t4-orders"), {
      hit: 3,
      miss: 4,
      error: 1,
    });
    assert.deepEqual(requestsOf(points, "t4-prices"), {
      hit: 1,
      miss: 1,
      stale: 1,
      refresh: 2,
    });
    const point = points.find((p) => p.name === "kit.cache.requests");
    assert.equal(point?.unit, "{request}");
    // The same counts as stats().
    assert.equal(a.area("t4-orders").stats().hits, 3);
    // Cumulative: a later collection adds to them.
    await orders.get("1");
    assert.equal(requestsOf(await sdk.collect(), "t4-orders").hit, 4);
  } finally {
    await a.dispose();
    await b.dispose();
    await sdk.uninstall();
  }
});

test("an SDK registered after the CacheManager was made still gets its spans and counts", async () => {
  const cache = new CacheManager(new MemoryCacheProvider());
  const sdk = installOtelSdk();
  try {
    const late = cache.area("t5-late");
    await inSpan("request", () => late.getOrSet("k", () => "v"));
    await late.getOrSet("k", () => "v");
    assert.equal(sdk.spansNamed("cache getOrSet").length, 1);
    assert.deepEqual(requestsOf(await sdk.collect(), "t5-late"), {
      hit: 1,
      miss: 1,
    });
  } finally {
    await cache.dispose();
    await sdk.uninstall();
  }
});

test("an SDK registered after the CacheManager, with only hits afterwards, gets the counts within 1,024 hits", async () => {
  const cache = new CacheManager(new MemoryCacheProvider());
  const warm = cache.area("t5-warm");
  await warm.getOrSet("k", () => "v"); // the miss, before the SDK
  const sdk = installOtelSdk();
  try {
    for (let i = 0; i < 1_024; i++) await warm.getOrSet("k", () => "v");
    assert.deepEqual(requestsOf(await sdk.collect(), "t5-warm"), {
      hit: 1_024,
      miss: 1,
    });
    assert.equal(sdk.spansNamed("cache getOrSet").length, 0);
  } finally {
    await cache.dispose();
    await sdk.uninstall();
  }
});

test("with nothing registered, getOrSet works as before and records nothing", async () => {
  const cache = new CacheManager(new MemoryCacheProvider());
  try {
    const gate = deferred<void>();
    const value = cache.getOrSet("k", async () => {
      await gate.promise;
      return trace.getActiveSpan()?.isRecording() ?? false;
    });
    gate.resolve();
    assert.equal(await value, false, "no recording span around the factory");
    assert.equal(await cache.getOrSet("k", () => true), false);
    await assert.rejects(
      cache.getOrSet("e", () => Promise.reject(new Error("x"))),
    );
    assert.equal(cache.stats().factoryErrors, 1);
  } finally {
    await cache.dispose();
  }
});

test(
  "over Redis: the miss span holds the factory's span, a hit is an event, the counts are per area",
  {
    skip: redisSkip,
  },
  async () => {
    await using server = await startRedisServer();
    const sdk = installOtelSdk();
    const cache = new CacheManager(
      new RemoteStoreCacheProvider({
        host: server.host,
        port: server.port,
        keyPrefix: "otel:",
      }),
    );
    try {
      const catalog = cache.area("t6-catalog");
      const load = () =>
        trace.getTracer("test").startActiveSpan("load", (span) => {
          span.end();
          return Promise.resolve({ name: "Lamp" });
        });
      assert.deepEqual(
        await inSpan("request 1", () => catalog.getOrSet("9", load)),
        { name: "Lamp" },
      );
      assert.deepEqual(
        await inSpan("request 2", () => catalog.getOrSet("9", load)),
        { name: "Lamp" },
      );
      const [cacheSpan, ...more] = sdk.spansNamed("cache getOrSet");
      assert.equal(more.length, 0);
      assert.equal(cacheSpan.attributes["kit.cache.result"], "miss");
      const [request1] = sdk.spansNamed("request 1");
      assert.equal(
        cacheSpan.parentSpanContext?.spanId,
        request1.spanContext().spanId,
      );
      assert.deepEqual(childrenOf(sdk, cacheSpan).map((s) => s.name), ["load"]);
      const [request2] = sdk.spansNamed("request 2");
      assert.deepEqual(request2.events.map((event) => event.name), [
        "cache.hit",
      ]);
      assert.deepEqual(requestsOf(await sdk.collect(), "t6-catalog"), {
        hit: 1,
        miss: 1,
      });
    } finally {
      await cache.dispose();
      await sdk.uninstall();
    }
  },
);
