import { test } from "node:test";
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
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

// Writes a JSON object that never ends, 64 KiB at a time, without a
// Content-Length (so chunked), honouring backpressure until the client goes;
// `sent` counts the bytes handed to the connection.
function streamEndless(
  response: ServerResponse,
  sent: { bytes: number },
): void {
  response.writeHead(200, { "content-type": "application/json" });
  const chunk = `"k": "${"x".repeat(64 * 1024)}",`;
  let closed = false;
  response.on("close", () => {
    closed = true;
  });
  response.write("{");
  const next = (): void => {
    while (!closed) {
      sent.bytes += chunk.length;
      if (!response.write(chunk)) {
        response.once("drain", next);
        return;
      }
    }
  };
  next();
}

const MiB = 1024 * 1024;

test("JsonUrlProvider stops an endless body at maxResponseSize (10 MiB by default), naming the URL and the limit", async () => {
  const sent = { bytes: 0 };
  await using server = await startTestServer((_request, response) =>
    streamEndless(response, sent)
  );
  // The timeout only ends a provider without a size limit; the limit must
  // end the load long before it.
  const provider = new JsonUrlProvider(
    `${server.url}/config/endless.json?token=s3cr3t-t0ken`,
    { timeout: 20_000 },
  );
  const error = await provider.load().then(
    () => assert.fail("loaded"),
    (error: unknown) => error,
  );
  console.log(
    `endless configuration body: the server sent ${
      (sent.bytes / MiB).toFixed(1)
    } MiB before the provider stopped`,
  );
  assert.ok(error instanceof ConfigurationSourceError);
  assert.equal(
    error.message,
    `Configuration URL ${server.url}/config/endless.json answered a body larger than the limit of 10 MiB (maxResponseSize): more than 10485760 bytes arrived; make the document smaller or raise the provider's maxResponseSize option`,
  );
  assert.equal(error.source, `${server.url}/config/endless.json`);
  // The limit, and what the connection and the server buffered meanwhile.
  assert.ok(sent.bytes < 40 * MiB, `${sent.bytes} bytes sent`);
});

test("JsonUrlProvider: a declared Content-Length above maxResponseSize is refused before reading; a document within it loads", async () => {
  const document = JSON.stringify({ text: "y".repeat(4_000) });
  await using server = await startTestServer((request, response) => {
    if (request.url === "/declared.json") {
      response.writeHead(200, {
        "content-type": "application/json",
        "content-length": String(200 * MiB),
      });
      response.write("{"); // and never more: reading would wait for ever
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    // Two writes: chunked, no Content-Length to check up front.
    response.write(document.slice(0, 100));
    response.end(document.slice(100));
  });
  await assert.rejects(
    new JsonUrlProvider(`${server.url}/declared.json`, { timeout: 20_000 })
      .load(),
    {
      name: "ConfigurationSourceError",
      message:
        `Configuration URL ${server.url}/declared.json answered a body larger than the limit of 10 MiB (maxResponseSize): its Content-Length is 209715200 bytes; make the document smaller or raise the provider's maxResponseSize option`,
    },
  );
  await assert.rejects(
    new JsonUrlProvider(`${server.url}/chunked.json`, { maxResponseSize: 1000 })
      .load(),
    {
      message:
        `Configuration URL ${server.url}/chunked.json answered a body larger than the limit of 1000 bytes (maxResponseSize): more than 1000 bytes arrived; make the document smaller or raise the provider's maxResponseSize option`,
    },
  );
  const exact = new JsonUrlProvider(`${server.url}/chunked.json`, {
    maxResponseSize: new TextEncoder().encode(document).length,
  });
  const [entry] = await exact.load();
  assert.deepEqual(entry.value, JSON.parse(document));
});

test("JsonUrlProvider: maxResponseSize must be a positive number of bytes", () => {
  for (const bad of [0, -1, Number.NaN, "1000"]) {
    assert.throws(
      () =>
        new JsonUrlProvider("http://127.0.0.1/a.json", {
          maxResponseSize: bad as number,
        }),
      {
        name: "RangeError",
        message:
          `JsonUrlProvider: maxResponseSize must be a positive number of bytes, got ${
            String(bad)
          }`,
      },
    );
  }
});
