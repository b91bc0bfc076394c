// The preamble Kit's instrumented modules share: a scope's tracer and
// counters kept per global provider (made again when an SDK is registered,
// replaced or removed), and counting that does nothing, without loading the
// API, while no meter provider is registered.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { metrics, trace } from "@opentelemetry/api";
import {
  addCount,
  scopeCounter,
  scopeTracer,
  serverAttributes,
} from "../../internal/telemetry/telemetry.ts";
import { installOtelSdk } from "../_support/otel_sdk.ts";

const SCOPE = "kit-internal-telemetry-test";

describe("scopeTracer()", () => {
  it("gives the scope's tracer of the provider, the same one until the provider changes", async () => {
    const tracerOf = scopeTracer(SCOPE);
    const sdk = installOtelSdk();
    try {
      const provider = trace.getTracerProvider();
      const tracer = tracerOf(provider);
      assert.equal(tracerOf(provider), tracer);
      tracer.startSpan("one").end();
      assert.equal(sdk.spansNamed("one")[0].instrumentationScope.name, SCOPE);
    } finally {
      await sdk.uninstall();
    }
    const second = installOtelSdk();
    try {
      tracerOf(trace.getTracerProvider()).startSpan("two").end();
      assert.equal(second.spansNamed("two").length, 1);
    } finally {
      await second.uninstall();
    }
  });
});

describe("scopeCounter() and addCount()", () => {
  const countOf = scopeCounter(SCOPE, "kit.test.things", {
    description: "Things counted by the test",
    unit: "{thing}",
  });

  it("count into the registered meter provider, with the attributes given", async () => {
    const sdk = installOtelSdk();
    try {
      addCount(countOf, 2, { "kit.outcome": "delivered" });
      addCount(countOf, 0, { "kit.outcome": "delivered" });
      addCount(countOf, 1, { "kit.outcome": "dropped" });
      const points = (await sdk.collect()).filter((point) =>
        point.name === "kit.test.things"
      );
      assert.deepEqual(
        points.map((point) => [point.attributes["kit.outcome"], point.value])
          .sort(),
        [["delivered", 2], ["dropped", 1]],
      );
      assert.equal(points[0].scope, SCOPE);
      assert.equal(points[0].unit, "{thing}");
    } finally {
      await sdk.uninstall();
    }
  });

  it("do nothing while no meter provider is registered", () => {
    metrics.disable();
    let asked = 0;
    addCount(
      () => {
        asked++;
        throw new Error("not to be called");
      },
      5,
      {},
    );
    assert.equal(asked, 0);
  });
});

describe("serverAttributes()", () => {
  it("gives the host and port, the scheme's default port, never credentials, path or query", () => {
    assert.deepEqual(
      serverAttributes("https://user:pw@collector.example/v1?api_secret=s"),
      { "server.address": "collector.example", "server.port": 443 },
    );
    assert.deepEqual(serverAttributes("http://127.0.0.1/logs"), {
      "server.address": "127.0.0.1",
      "server.port": 80,
    });
    assert.deepEqual(serverAttributes("http://[::1]:4318/v1/logs"), {
      "server.address": "[::1]",
      "server.port": 4318,
    });
    assert.deepEqual(serverAttributes("ws://host.example/x"), {
      "server.address": "host.example",
    });
    assert.deepEqual(serverAttributes("not a url"), {});
  });
});
