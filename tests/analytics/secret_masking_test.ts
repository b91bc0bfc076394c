// Delivery errors quote the collector's answer; a collector (or proxy) that
// echoes the API key, or a network error that repeats the URL, must never
// put the secret in an error message or its causes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { sendJson, startTestServer } from "../_support/http_server.ts";
import {
  AnalyticsDeliveryError,
  CustomAnalyticsProvider,
  ExternalAnalyticsProvider,
} from "../../analytics/mod.ts";
import { errorSink, refusingEndpoint } from "./_helpers.ts";
import type { AnalyticsEvent } from "../../analytics/mod.ts";

const KEY = "sk_live_4f9a2c7e1b";

function event(): AnalyticsEvent {
  return {
    type: "track",
    name: "a",
    properties: {},
    timestamp: Date.now(),
    anonymousId: "anon-1",
    sampleRate: 1,
    messageId: "m-1",
  };
}

// The message and every cause's message, as printed by console.error.
function allText(error: unknown): string {
  const parts: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) {
    parts.push(e.message, String(e.stack));
  }
  return parts.join("\n");
}

test("a 401 body that echoes the API key is masked in the delivery error", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 401, {
      error: `invalid key ${request.headers["x-api-key"]}`,
      headers: { "X-API-Key": request.headers["x-api-key"] },
    })
  );
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    apiKey: KEY,
    onError: sink.onError,
  });
  provider.track(event());
  assert.deepEqual(await provider.flush(), { delivered: 0, dropped: 1 });
  assert.equal(server.requests[0].headers["x-api-key"], KEY);
  assert.equal(sink.errors.length, 1);
  const [error] = sink.errors;
  assert.ok(error instanceof AnalyticsDeliveryError);
  assert.equal(error.status, 401);
  assert.match(error.message, /HTTP 401 Unauthorized: .*invalid key \*\*\*/);
  assert.ok(!allText(error).includes(KEY), allText(error));
  await provider.dispose();
});

test("a bearer token in a custom header and a token in the body are masked", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 403, {
      got: request.headers.authorization,
      note: "rejected: token=abc123def456",
    })
  );
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: server.url,
    headers: { Authorization: "Bearer tok-987654321" },
    onError: sink.onError,
  });
  provider.track(event());
  await provider.flush();
  const text = allText(sink.errors[0]);
  assert.match(sink.errors[0].message, /\*\*\*/);
  assert.ok(!text.includes("tok-987654321"), text);
  assert.ok(!text.includes("abc123def456"), text);
  await provider.dispose();
});

test("GA4: the api_secret never appears, neither in an echoed URL nor in a network error", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 400, { error: `bad request to ${request.url}` })
  );
  const sink = errorSink();
  const echoing = new ExternalAnalyticsProvider({
    trackingId: "G-TEST",
    apiSecret: KEY,
    endpoint: `${server.url}/mp/collect`,
    onError: sink.onError,
  });
  echoing.track(event());
  await echoing.flush();
  assert.ok(server.requests[0].url.includes(KEY));
  const refused = new ExternalAnalyticsProvider({
    trackingId: "G-TEST",
    apiSecret: KEY,
    endpoint: (await refusingEndpoint()).replace("/v1/events", "/mp/collect"),
    maxRetries: 0,
    onError: sink.onError,
  });
  refused.track(event());
  await refused.flush();
  assert.equal(sink.errors.length, 2);
  assert.match(sink.errors[0].message, /bad request to .*api_secret=\*\*\*/);
  assert.match(sink.errors[1].message, /network error/);
  for (const error of sink.errors) {
    assert.ok(!allText(error).includes(KEY), allText(error));
  }
  await echoing.dispose();
  await refused.dispose();
});

test("the password of a user:password@ endpoint is not shown in delivery errors", async () => {
  const sink = errorSink();
  const endpoint = (await refusingEndpoint()).replace(
    "http://",
    "http://collector:pw-5566778899@",
  );
  const provider = new CustomAnalyticsProvider({
    endpoint,
    maxRetries: 0,
    onError: sink.onError,
  });
  provider.track(event());
  await provider.flush();
  assert.equal(sink.errors.length, 1);
  assert.ok(!allText(sink.errors[0]).includes("pw-5566778899"));
  assert.match(sink.errors[0].message, /collector:\*\*\*@/);
  await provider.dispose();
});
