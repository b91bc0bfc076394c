// The retries of HttpClient.fromConfiguration reported by default: inside a
// running application, under `kit.http` through its logging (each retry at
// info, a call that gives up after retrying at warning), with the address
// shown without its query; nothing when the application passes its own
// onRetry, and nothing outside an application. Against real loopback servers
// that fail first, in applications of the test kit that record every line.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createTestApplication } from "@vendor/kit-platform/testing";
import type { LogRecord } from "@vendor/kit-platform/testing";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { HttpClient, HttpError, type HttpRetryEvent } from "../../http/mod.ts";
import { startFailingFirst, startTestServer } from "../_support/http_server.ts";

const SECRET = "s3cr3t-k3y-value";

async function apiConfig(baseUrl: string): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  await config.addProvider(
    new MemoryProvider({ "api:baseUrl": baseUrl, "api:retryAttempts": "3" }),
  );
  await config.loadConfiguration();
  return config;
}

/** Every recorded line of `kit.http`, oldest first. */
function httpLines(logs: Iterable<LogRecord>): LogRecord[] {
  return [...logs].filter((record) => record.category === "kit.http");
}

/** Fails when the secret appears anywhere in what was logged. */
function assertNoSecret(records: readonly LogRecord[]): void {
  for (const record of records) {
    const text = record.message + JSON.stringify(record.properties) +
      String(record.error?.message ?? "");
    assert.ok(!text.includes(SECRET), `secret logged: ${text}`);
  }
}

describe("HttpClient.fromConfiguration reports its retries", () => {
  it("logs each retry at info under kit.http, query hidden", async () => {
    await using server = await startFailingFirst(2, 503);
    const config = await apiConfig(server.url);
    await using app = await createTestApplication({
      configuration: () => config,
      serve: () => () => new Response("ok"),
    });
    const client = HttpClient.fromConfiguration(config, {
      retryDelay: 5,
      retryJitter: 0,
    });
    assert.deepEqual(
      await client.get("/items", { query: { api_key: SECRET, page: 2 } }),
      {},
    );
    assert.equal(server.requests.length, 3);
    const lines = httpLines(app.logs);
    assert.equal(lines.length, 2, JSON.stringify(lines));
    const address = `${server.url}/items?…`;
    lines.forEach((line, i) => {
      assert.equal(line.level, "info");
      assert.equal(
        line.message,
        `GET ${address} got 503; retry ${i + 1} of 3 in ${5 * 2 ** i} ms`,
      );
      assert.deepEqual(line.properties, {
        method: "GET",
        url: address,
        retry: i + 1,
        retryAttempts: 3,
        status: 503,
        delay: 5 * 2 ** i,
      });
    });
    assertNoSecret(app.logs.all);
  });

  it("logs a warning when the call gives up after its retries", async () => {
    await using server = await startFailingFirst(100, 502);
    const config = await apiConfig(server.url);
    await using app = await createTestApplication({
      configuration: () => config,
    });
    const client = HttpClient.fromConfiguration(config, {
      retryAttempts: 2,
      retryDelay: 1,
      retryJitter: 0,
    });
    await assert.rejects(
      client.get(`/orders?token=${SECRET}`),
      (error: unknown) => error instanceof HttpError && error.status === 502,
    );
    assert.equal(server.requests.length, 3);
    const lines = httpLines(app.logs);
    assert.deepEqual(lines.map((line) => line.level), [
      "info",
      "info",
      "warning",
    ]);
    const last = lines[2];
    assert.equal(
      last.message,
      `GET ${server.url}/orders?… got 502; gave up after 3 attempts`,
    );
    assert.deepEqual(last.properties, {
      method: "GET",
      url: `${server.url}/orders?…`,
      attempts: 3,
      status: 502,
    });
    assertNoSecret(app.logs.all);
  });

  it("names the error of an attempt that got no response", async () => {
    // A port that was listening and is closed: connections are refused.
    const closed = await startTestServer();
    const url = closed.url;
    await closed.close();
    const config = await apiConfig(url);
    await using app = await createTestApplication({
      configuration: () => config,
    });
    const client = HttpClient.fromConfiguration(config, {
      retryAttempts: 1,
      retryDelay: 1,
      retryJitter: 0,
    });
    await assert.rejects(client.get(`/x?password=${SECRET}`), TypeError);
    const lines = httpLines(app.logs);
    assert.deepEqual(lines.map((line) => line.level), ["info", "warning"]);
    assert.equal(
      lines[0].message,
      `GET ${url}/x?… failed (TypeError); retry 1 of 1 in 1 ms`,
    );
    assert.equal(lines[0].properties.error, "TypeError");
    assert.equal(lines[0].properties.status, undefined);
    assert.equal(
      lines[1].message,
      `GET ${url}/x?… failed (TypeError); gave up after 2 attempts`,
    );
    assertNoSecret(app.logs.all);
  });

  it("logs a warning when the next retry would pass the total timeout", async () => {
    await using server = await startTestServer((_request, response) => {
      response.writeHead(503, { "retry-after": "30" });
      response.end();
    });
    const config = await apiConfig(server.url);
    await using app = await createTestApplication({
      configuration: () => config,
    });
    const client = HttpClient.fromConfiguration(config, {
      totalTimeout: 5_000,
    });
    await assert.rejects(client.get("/slow"), { name: "TimeoutError" });
    const lines = httpLines(app.logs);
    assert.equal(lines.length, 1);
    assert.equal(lines[0].level, "warning");
    assert.equal(
      lines[0].message,
      `GET ${server.url}/slow got 503; gave up after 1 attempt: ` +
        "another would pass the total timeout of 5000 ms",
    );
  });

  it("writes nothing of its own when the application passes onRetry", async () => {
    await using server = await startFailingFirst(100, 503);
    const config = await apiConfig(server.url);
    await using app = await createTestApplication({
      configuration: () => config,
    });
    const events: HttpRetryEvent[] = [];
    const client = HttpClient.fromConfiguration(config, {
      retryAttempts: 1,
      retryDelay: 1,
      onRetry: (event) => events.push(event),
    });
    await assert.rejects(client.get("/x"), HttpError);
    assert.equal(events.length, 1);
    assert.equal(events[0].status, 503);
    assert.deepEqual(httpLines(app.logs), []);
    // The same client without onRetry reports.
    const reporting = HttpClient.fromConfiguration(config, {
      retryAttempts: 1,
      retryDelay: 1,
    });
    await assert.rejects(reporting.get("/x"), HttpError);
    assert.equal(httpLines(app.logs).length, 2);
  });

  it("writes nothing outside an application", async () => {
    await using server = await startFailingFirst(100, 503);
    const client = HttpClient.fromConfiguration(await apiConfig(server.url), {
      retryAttempts: 1,
      retryDelay: 1,
    });
    const written: unknown[][] = [];
    const saved = { ...console };
    for (const name of ["log", "info", "warn", "error", "debug"] as const) {
      console[name] = (...args: unknown[]) => written.push(args);
    }
    try {
      await assert.rejects(client.get("/x"), HttpError);
    } finally {
      Object.assign(console, saved);
    }
    assert.equal(server.requests.length, 2);
    assert.deepEqual(written, []);
    // The same client reports once an application runs.
    await using app = await createTestApplication({
      configuration: () => ({}),
    });
    await assert.rejects(client.get("/x"), HttpError);
    assert.deepEqual(httpLines(app.logs).map((line) => line.level), [
      "info",
      "warning",
    ]);
  });

  it("leaves a client made with the constructor silent", async () => {
    await using server = await startFailingFirst(1, 503);
    const config = await apiConfig(server.url);
    await using app = await createTestApplication({
      configuration: () => config,
    });
    const client = new HttpClient(server.url, { retryDelay: 1 });
    assert.deepEqual(await client.get("/x"), {});
    assert.equal(server.requests.length, 2);
    assert.deepEqual(httpLines(app.logs), []);
    // One from the configuration, against the same failure, reports.
    server.requests.length = 0;
    const configured = HttpClient.fromConfiguration(config, {
      retryDelay: 1,
    });
    assert.deepEqual(await configured.get("/x"), {});
    assert.equal(httpLines(app.logs).length, 1);
  });
});
