// What the analytics POST does with a collector's answer that is not a plain
// success: an error body is read only up to a small bound (a collector that
// streams an endless error body costs the process a few KiB, measured in a
// child process), and a redirect is followed only within the endpoint's
// origin, so the key and the events never reach another one (two loopback
// servers are two origins).
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import { lastJson, runChildScript } from "../_support/child_script.ts";
import {
  AnalyticsDeliveryError,
  AnalyticsManager,
  CustomAnalyticsProvider,
} from "../../analytics/mod.ts";
import { errorSink, eventsOf } from "./_helpers.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const MiB = 1024 * 1024;

// Writes 64 KiB chunks as fast as the client takes them, until the client
// goes away; returns the bytes handed to the socket.
function streamForever(response: ServerResponse): Promise<number> {
  const chunk = new TextEncoder().encode(
    "upstream failure ".repeat(4096).slice(0, 64 * 1024),
  );
  let written = 0;
  return new Promise((resolve) => {
    let open = true;
    response.on("close", () => {
      open = false;
      resolve(written);
    });
    const pump = (): void => {
      while (open) {
        written += chunk.length;
        if (!response.write(chunk)) {
          response.once("drain", pump);
          return;
        }
      }
    };
    pump();
  });
}

const CHILD = `
import process from "node:process";
import { AnalyticsManager, CustomAnalyticsProvider } from ANALYTICS_URL;
const errors = [];
const provider = new CustomAnalyticsProvider({
  endpoint: process.env.KIT_ENDPOINT,
  apiKey: "key-in-child",
  batchSize: 10,
  flushInterval: 0,
  maxRetries: 0,
  requestTimeout: 3000,
  onError: (error) => errors.push(error),
});
const analytics = new AnalyticsManager({ anonymousId: "a" }).addProvider(provider);
const before = process.memoryUsage().rss;
let peak = before;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 10);
analytics.track("x");
const result = await analytics.flush();
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
await analytics.dispose();
console.log(JSON.stringify({
  result,
  grownMiB: (peak - before) / ${MiB},
  message: errors[0]?.message ?? "",
}));
`;

test("CustomAnalyticsProvider reads a few KiB of an endless error body and cancels the rest (RSS measured in a child)", async () => {
  let sent: Promise<number> | undefined;
  await using server = await startTestServer((_request, response) => {
    response.writeHead(500, { "content-type": "text/plain" });
    sent = streamForever(response);
  });
  const child = await runChildScript(CHILD, {
    env: { KIT_ENDPOINT: `${server.url}/collect` },
  });
  assert.equal(child.code, 0, child.out);
  const report = lastJson(child) as {
    result: { delivered: number; dropped: number };
    grownMiB: number;
    message: string;
  };
  // Reading the body whole grew the child by hundreds of MiB within the
  // request timeout; a bounded read costs next to nothing.
  assert.ok(
    report.grownMiB < 48,
    `the child's RSS grew by ${report.grownMiB.toFixed(1)} MiB`,
  );
  // The client hung up after the snippet: the server could hand the socket
  // little more than its buffers, not the stream of a whole timeout.
  const bytes = await sent!;
  assert.ok(bytes < 32 * MiB, `the server wrote ${bytes} bytes`);
  assert.deepEqual(report.result, { delivered: 0, dropped: 1 });
  // The snippet in the error stays short, whatever the body's length.
  assert.match(
    report.message,
    /failed after 1 attempt\(s\): HTTP 500 Internal Server Error: upstream failure upstream/,
  );
  assert.ok(report.message.length < 400, report.message);
});

test("CustomAnalyticsProvider does not follow a redirect to another origin: the batch is dropped and reported naming both origins, the key stays home", async () => {
  await using other = await startCollector();
  await using server = await startTestServer((_request, response) => {
    response.writeHead(307, { location: `${other.url}/steal?x=1` });
    response.end();
  });
  const sink = errorSink();
  const provider = new CustomAnalyticsProvider({
    endpoint: `${server.url}/collect`,
    apiKey: "key-must-stay",
    batchSize: 10,
    flushInterval: 0,
    retryDelay: 1,
    onError: sink.onError,
  });
  const analytics = new AnalyticsManager({ anonymousId: "a" }).addProvider(
    provider,
  );
  analytics.track("a");
  analytics.track("b");
  assert.deepEqual(await analytics.flush(), { delivered: 0, dropped: 2 });
  assert.equal(other.requests.length, 0, "nothing reached the other origin");
  assert.equal(server.requests.length, 1, "a redirect is not retried");
  assert.equal(provider.droppedCount, 2);
  assert.equal(sink.errors.length, 1);
  const error = sink.errors[0] as AnalyticsDeliveryError;
  assert.ok(error instanceof AnalyticsDeliveryError);
  assert.equal(error.status, 307);
  assert.equal(error.events, 2);
  assert.equal(
    error.message,
    `Analytics delivery to ${server.url}/collect failed after 1 attempt(s): ` +
      `HTTP 307 Temporary Redirect to another origin, ${other.url}, not ` +
      `followed: the key and the events go only to ${server.url} (set the ` +
      `endpoint to the address that accepts them); 2 event(s) dropped`,
  );
  await analytics.dispose();
});

test("CustomAnalyticsProvider follows a redirect within its origin with the key and the events, a bounded number of times", async () => {
  await using server = await startTestServer((request, response) => {
    if (request.url === "/collect") {
      response.writeHead(308, { location: "/v2/collect" });
      response.end();
    } else if (request.url === "/v2/collect") sendJson(response, 200, {});
    else {
      // /loop redirects to itself.
      response.writeHead(307, { location: "/loop" });
      response.end();
    }
  });
  const provider = new CustomAnalyticsProvider({
    endpoint: `${server.url}/collect`,
    apiKey: "key-1",
    batchSize: 10,
    flushInterval: 0,
  });
  const analytics = new AnalyticsManager({ anonymousId: "a" }).addProvider(
    provider,
  );
  analytics.track("moved");
  assert.deepEqual(await analytics.flush(), { delivered: 1, dropped: 0 });
  const [first, second] = server.requests;
  assert.equal(second.url, "/v2/collect");
  assert.equal(second.method, "POST");
  assert.equal(second.headers["x-api-key"], "key-1");
  assert.equal(second.body, first.body);
  assert.deepEqual(eventsOf(second).map((event) => event.name), ["moved"]);
  await analytics.dispose();

  const sink = errorSink();
  const looping = new AnalyticsManager({ anonymousId: "a" }).addProvider(
    new CustomAnalyticsProvider({
      endpoint: `${server.url}/loop`,
      batchSize: 10,
      flushInterval: 0,
      maxRetries: 0,
      onError: sink.onError,
    }),
  );
  const before = server.requests.length;
  looping.track("lost");
  assert.deepEqual(await looping.flush(), { delivered: 0, dropped: 1 });
  assert.equal(server.requests.length - before, 6, "1 request + 5 redirects");
  assert.match(
    sink.errors[0].message,
    /: HTTP 307 Temporary Redirect: more than 5 redirects, not followed further; 1 event\(s\) dropped$/,
  );
  await looping.dispose();
});
