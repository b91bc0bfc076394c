// The JSON POST helper against real loopback servers: the answer's body is
// read only up to a bound, the key never follows a redirect to another
// origin, and the exchange ends at its deadline or its signal.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { postJson } from "../../internal/delivery/post_json.ts";
import { sendJson, startTestServer } from "../_support/http_server.ts";

const KEY = { "x-api-key": "secret-key" };

describe("postJson()", () => {
  it("posts JSON with the headers and reads the answer", async () => {
    await using server = await startTestServer((_request, response) =>
      sendJson(response, 202, { ok: true })
    );
    const answer = await postJson(`${server.url}/ingest`, '{"a":1}', {
      headers: KEY,
      timeout: 5_000,
    });
    assert.equal(answer.status, 202);
    assert.equal(answer.ok, true);
    assert.equal(answer.text, '{"ok":true}');
    assert.equal(answer.truncated, false);
    const [request] = server.requests;
    assert.equal(request.method, "POST");
    assert.equal(request.body, '{"a":1}');
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers["x-api-key"], "secret-key");
  });

  it("reads at most maxResponseBytes of an endless answer and cancels the rest", async () => {
    await using server = await startTestServer((_request, response) => {
      response.writeHead(500, { "content-type": "text/plain" });
      const chunk = "x".repeat(16_384);
      const pump = (): void => {
        while (!response.destroyed && response.write(chunk)) {
          // Fill the socket until it pushes back.
        }
        if (!response.destroyed) response.once("drain", pump);
      };
      pump();
    });
    const answer = await postJson(`${server.url}/ingest`, "{}", {
      timeout: 5_000,
      maxResponseBytes: 1_000,
    });
    assert.equal(answer.status, 500);
    assert.equal(answer.ok, false);
    assert.equal(answer.text.length, 1_000);
    assert.equal(answer.truncated, true);
  });

  it("follows a 307 within the origin, headers and body included", async () => {
    await using server = await startTestServer((request, response) => {
      if (request.url === "/old") {
        response.writeHead(307, { location: "/new" });
        response.end();
      } else sendJson(response, 200, {});
    });
    const answer = await postJson(`${server.url}/old`, "[1]", {
      headers: KEY,
      timeout: 5_000,
    });
    assert.equal(answer.status, 200);
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1].url, "/new");
    assert.equal(server.requests[1].body, "[1]");
    assert.equal(server.requests[1].headers["x-api-key"], "secret-key");
  });

  it("never takes the key to another origin: the redirect is handed back, refused", async () => {
    await using other = await startTestServer((_request, response) =>
      sendJson(response, 200, {})
    );
    await using server = await startTestServer((_request, response) => {
      response.writeHead(307, { location: `${other.url}/steal` });
      response.end();
    });
    const answer = await postJson(`${server.url}/ingest`, "[]", {
      headers: KEY,
      timeout: 5_000,
    });
    assert.equal(answer.ok, false);
    assert.equal(answer.status, 307);
    assert.deepEqual(answer.redirect, {
      refused: "other-origin",
      from: server.url,
      to: other.url,
    });
    assert.equal(other.requests.length, 0, "nothing reached the other origin");
  });

  it("ends at its deadline with a clear error", async () => {
    await using server = await startTestServer(() => {
      // Never answers.
    });
    const started = Date.now();
    await assert.rejects(
      postJson(`${server.url}/ingest`, "[]", { timeout: 150 }),
      { message: "request timed out after 150 ms" },
    );
    assert.ok(Date.now() - started < 5_000);
  });

  it("ends when its signal aborts, with the signal's reason", async () => {
    await using server = await startTestServer(() => {
      // Never answers.
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("shutting down")), 100);
    await assert.rejects(
      postJson(`${server.url}/ingest`, "[]", {
        timeout: 10_000,
        signal: controller.signal,
      }),
      { message: "shutting down" },
    );
  });
});
