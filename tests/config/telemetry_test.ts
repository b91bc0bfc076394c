// Configuration reloads with the official OpenTelemetry SDK registered: each
// reload is a "configuration reload" span (an error, masked, when it fails),
// and kit.config.reload.failures counts failures per source, for reload()
// calls and for reloads of a watched file; telemetry:serviceName is a key of
// the application schema.
import { afterEach, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  appConfigSchema,
  ConfigurationManager,
  MemoryProvider,
} from "../../config/mod.ts";
import {
  installOtelSdk,
  type MetricPoint,
  type OtelSdk,
} from "../_support/otel_sdk.ts";
import { withTempDir } from "./_helpers.ts";
import { waitFor } from "../_support/wait_for.ts";

const SCOPE = "@vendor/kit-platform-configuration";

function failures(points: MetricPoint[]): Record<string, number | undefined> {
  return Object.fromEntries(
    points
      .filter((point) => point.name === "kit.config.reload.failures")
      .map((point) => [point.attributes["kit.config.source"], point.value]),
  );
}

describe("configuration reloads with an OpenTelemetry SDK", () => {
  let sdk: OtelSdk;
  beforeEach(() => {
    sdk = installOtelSdk();
  });
  afterEach(async () => {
    await sdk.uninstall();
  });

  it("makes a span per reload() with the number of changes, a child of the caller's span", async () => {
    const values = new Map([["feature:on", "false"]]);
    const config = new ConfigurationManager();
    config.addProvider(new MemoryProvider(values));
    await config.loadConfiguration();
    values.set("feature:on", "true");
    const outer = trace.getTracer("test").startSpan("deploy");
    await context.with(
      trace.setSpan(context.active(), outer),
      () => config.reload(),
    );
    outer.end();
    await config.reload();
    const spans = sdk.spansNamed("configuration reload");
    assert.equal(spans.length, 2, "loadConfiguration() is not a reload");
    const [first, second] = spans;
    assert.equal(first.instrumentationScope.name, SCOPE);
    assert.equal(first.parentSpanContext?.spanId, outer.spanContext().spanId);
    assert.equal(first.attributes["kit.config.trigger"], "call");
    assert.equal(first.attributes["kit.config.changes"], 1);
    assert.equal(first.status.code, SpanStatusCode.UNSET);
    assert.equal(second.attributes["kit.config.changes"], 0);
    assert.deepEqual(failures(await sdk.collect()), {});
    await config.close();
  });

  it("counts a failed reload() under the source at fault, and the span is an error without the secret", async () => {
    await withTempDir(async (dir) => {
      const file = await dir.write("appsettings.json", {
        database: { password: "pa55-word-1" },
      });
      const config = new ConfigurationManager();
      await config.addJsonFile(file);
      await config.loadConfiguration();
      await writeFile(file, '{ "database": { "password": "pa55-word-1" ');
      await assert.rejects(config.reload());
      await assert.rejects(config.reload());
      const spans = sdk.spansNamed("configuration reload");
      assert.equal(spans.length, 2);
      for (const span of spans) {
        assert.equal(span.status.code, SpanStatusCode.ERROR);
        assert.equal(span.attributes["kit.config.source"], file);
        assert.ok(span.events.some((event) => event.name === "exception"));
        assert.ok(
          !JSON.stringify([span.attributes, span.status, span.events])
            .includes("pa55-word-1"),
          "no secret in the span",
        );
      }
      assert.deepEqual(failures(await sdk.collect()), { [file]: 2 });
      await config.close();
    });
  });

  it("makes a root span for the reload of a watched file, and counts its failure", async () => {
    await withTempDir(async (dir) => {
      const file = await dir.write("appsettings.json", { value: "good" });
      const config = new ConfigurationManager({ reloadDelay: 20 });
      try {
        await config.addJsonFile(file, { watch: true });
        await config.loadConfiguration();
        await writeFile(file, '{ "value": "hal');
        await waitFor(
          () => sdk.spansNamed("configuration reload").length > 0,
          "the watched reload's span",
          20_000,
        );
        const [span] = sdk.spansNamed("configuration reload");
        assert.equal(span.attributes["kit.config.trigger"], "watch");
        assert.equal(span.parentSpanContext, undefined);
        assert.equal(span.status.code, SpanStatusCode.ERROR);
        assert.deepEqual(failures(await sdk.collect()), { [file]: 1 });
      } finally {
        await config.close();
      }
    });
  });
});

describe("telemetry:serviceName", () => {
  it("is a key of the application schema, trimmed, never empty", async () => {
    const base = {
      "database:connectionString": "postgres://db/app",
      "api:baseUrl": "https://api.example.com",
      "logging:providers:0:type": "console",
    };
    const config = new ConfigurationManager();
    config.addProvider(
      new MemoryProvider({ ...base, "telemetry:serviceName": " orders " }),
    );
    await config.loadConfiguration();
    assert.equal(config.bind(appConfigSchema).telemetry?.serviceName, "orders");
    const empty = new ConfigurationManager();
    empty.addProvider(
      new MemoryProvider({ ...base, "telemetry:serviceName": " " }),
    );
    await empty.loadConfiguration();
    assert.throws(() => empty.bind(appConfigSchema), /telemetry:serviceName/);
  });
});
