// RemoteLogProvider and a collector that answers with a redirect: followed
// within the endpoint's origin (a bounded number of times), never to another
// origin, so the API key and the entries stay where they were sent (two
// loopback servers are two origins). A refused redirect is a failed delivery
// like any other: dropped, counted and reported.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";
import {
  LogDeliveryError,
  type LogEntry,
  LogLevel,
  RemoteLogProvider,
} from "../../logging/mod.ts";

function entry(id: number): LogEntry {
  return {
    timestamp: new Date(),
    level: LogLevel.Info,
    category: "remote",
    message: `entry ${id}`,
    properties: { id },
  };
}

test("RemoteLogProvider does not follow a redirect to another origin: the batch is dropped and reported naming both origins, the key stays home", async () => {
  await using other = await startCollector();
  await using server = await startTestServer((_request, response) => {
    response.writeHead(307, { location: `${other.url}/steal?x=1` });
    response.end();
  });
  const errors: Error[] = [];
  const remote = new RemoteLogProvider({
    endpoint: `${server.url}/ingest`,
    apiKey: "key-must-stay",
    batchSize: 100,
    flushInterval: 60_000,
    retryDelay: 1,
    onError: (error) => errors.push(error),
  });
  await remote.log(entry(1));
  await remote.log(entry(2));
  await remote.flush();
  assert.equal(other.requests.length, 0, "nothing reached the other origin");
  assert.equal(server.requests.length, 1, "a redirect is not retried");
  assert.equal(remote.dropped, 2);
  assert.equal(errors.length, 1);
  const error = errors[0] as LogDeliveryError;
  assert.ok(error instanceof LogDeliveryError);
  assert.equal(error.status, 307);
  assert.equal(error.dropped, 2);
  assert.equal(
    error.message,
    `RemoteLogProvider: ${server.url}/ingest answered 307 with a redirect ` +
      `to another origin, ${other.url}, not followed: the API key and the ` +
      `entries go only to ${server.url} (set endpoint to the address that ` +
      `accepts them); 2 entries dropped`,
  );
  await remote.dispose();
});

test("RemoteLogProvider follows a redirect within its origin with the key and the entries, a bounded number of times", async () => {
  await using server = await startTestServer((request, response) => {
    if (request.url === "/ingest") {
      response.writeHead(308, { location: "/v2/ingest" });
      response.end();
    } else if (request.url === "/v2/ingest") sendJson(response, 200, {});
    else {
      // /loop redirects to itself.
      response.writeHead(307, { location: "/loop" });
      response.end();
    }
  });
  const remote = new RemoteLogProvider({
    endpoint: `${server.url}/ingest`,
    apiKey: "k-1",
    flushInterval: 60_000,
  });
  await remote.log(entry(1));
  await remote.flush();
  assert.equal(remote.dropped, 0);
  const [first, second] = server.requests;
  assert.equal(second.url, "/v2/ingest");
  assert.equal(second.method, "POST");
  assert.equal(second.headers["x-api-key"], "k-1");
  assert.equal(
    second.headers["idempotency-key"],
    first.headers["idempotency-key"],
  );
  assert.equal(second.body, first.body);
  await remote.dispose();

  const errors: Error[] = [];
  const looping = new RemoteLogProvider({
    endpoint: `${server.url}/loop`,
    flushInterval: 60_000,
    maxRetries: 0,
    onError: (error) => errors.push(error),
  });
  const before = server.requests.length;
  await looping.log(entry(2));
  await looping.flush();
  assert.equal(server.requests.length - before, 6, "1 request + 5 redirects");
  assert.equal(looping.dropped, 1);
  assert.equal(
    errors[0].message,
    `RemoteLogProvider: ${server.url}/loop answered 307: more than 5 ` +
      `redirects, not followed further; 1 entry dropped`,
  );
  await looping.dispose();
});
