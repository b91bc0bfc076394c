import { test } from "node:test";
import assert from "node:assert/strict";
import { sendJson, startTestServer } from "../_support/http_server.ts";
import {
  ConfigurationManager,
  ConfigurationSourceError,
  JsonUrlProvider,
  MemoryProvider,
} from "../../config/mod.ts";

test("JsonUrlProvider loads a JSON object over HTTP, sending the given headers", async () => {
  await using server = await startTestServer((_request, response) => {
    sendJson(response, 200, {
      api: { baseUrl: "https://remote" },
      level: "info",
    });
  });
  const config = new ConfigurationManager();
  await config.addProvider(
    new JsonUrlProvider(`${server.url}/config/appsettings.json?token=abc`, {
      headers: { Authorization: "Bearer t" },
    }),
  );
  config.addProvider(new MemoryProvider({ level: "debug" }));
  await config.loadConfiguration();
  assert.equal(config.getValue("api:baseUrl"), "https://remote");
  assert.equal(config.getValue("level"), "debug");
  // The label drops the query string (it may carry a token).
  assert.equal(
    config.getSource("api:baseUrl"),
    `${server.url}/config/appsettings.json`,
  );
  assert.equal(server.requests[0].headers.authorization, "Bearer t");
  assert.equal(server.requests[0].headers.accept, "application/json");
  assert.equal(server.requests[0].url, "/config/appsettings.json?token=abc");
});

test("JsonUrlProvider: an error status fails, naming the URL; 404 is skipped when optional", async () => {
  await using server = await startTestServer((request, response) => {
    sendJson(response, request.url === "/missing.json" ? 404 : 500, {
      message: "nope",
    });
  });
  const config = new ConfigurationManager();
  await assert.rejects(
    async () =>
      await config.addProvider(
        new JsonUrlProvider(`${server.url}/broken.json`),
      ),
    (error: unknown) => {
      assert.ok(error instanceof ConfigurationSourceError);
      assert.equal(
        error.message,
        `Configuration URL ${server.url}/broken.json answered 500 Internal Server Error`,
      );
      return true;
    },
  );
  await assert.rejects(
    async () =>
      await config.addProvider(
        new JsonUrlProvider(`${server.url}/missing.json`),
      ),
    {
      message:
        `Configuration URL ${server.url}/missing.json answered 404 Not Found`,
    },
  );
  await config.addProvider(
    new JsonUrlProvider(`${server.url}/missing.json`, { optional: true }),
  );
  await config.loadConfiguration();
  assert.deepEqual(config.explain(), []);
});

test("JsonUrlProvider: invalid JSON and non-objects are reported with the URL, line and column", async () => {
  await using server = await startTestServer((request, response) => {
    response.setHeader("content-type", "application/json");
    response.end(request.url === "/array.json" ? "[]" : '{\n  "a": 1,\n}x');
  });
  const config = new ConfigurationManager();
  await assert.rejects(
    async () =>
      await config.addProvider(new JsonUrlProvider(`${server.url}/bad.json`)),
    {
      message:
        `Configuration URL ${server.url}/bad.json is not valid JSON: unexpected character after the end of the JSON value at line 3, column 2`,
    },
  );
  await assert.rejects(
    async () =>
      await config.addProvider(new JsonUrlProvider(`${server.url}/array.json`)),
    {
      message:
        `Configuration URL ${server.url}/array.json must contain a JSON object at the top level, not an array`,
    },
  );
});

test("JsonUrlProvider: a server that does not answer in time fails with the timeout", async () => {
  await using server = await startTestServer(() => {
    // Never answers; the server's close() drops the connection.
  });
  const config = new ConfigurationManager();
  await assert.rejects(
    async () =>
      await config.addProvider(
        new JsonUrlProvider(`${server.url}/slow.json`, { timeout: 100 }),
      ),
    {
      message:
        `Configuration URL ${server.url}/slow.json did not answer within 100ms`,
    },
  );
});

test("JsonUrlProvider: a refused connection fails naming the URL", async () => {
  const server = await startTestServer();
  const url = `${server.url}/gone.json`;
  await server.close();
  const config = new ConfigurationManager();
  await assert.rejects(
    async () => await config.addProvider(new JsonUrlProvider(url)),
    (error: unknown) => {
      assert.ok(error instanceof ConfigurationSourceError);
      assert.ok(
        error.message.startsWith(
          `Configuration URL ${url} could not be fetched: `,
        ),
      );
      // The network cause, not only "fetch failed", which says nothing about
      // what to fix.
      assert.match(error.message, /ECONNREFUSED|refused/i);
      return true;
    },
  );
});
