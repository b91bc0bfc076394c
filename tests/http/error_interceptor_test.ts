import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorInterceptor, HttpClient, HttpError } from "../../http/mod.ts";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";

const UUID =
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("ErrorInterceptor sets X-Request-ID to a random UUID, a new one per call", async () => {
  await using server = await startCollector();
  const client = new HttpClient(server.url);
  client.addInterceptor(new ErrorInterceptor());
  await client.get("/a");
  await client.get("/b");
  const [a, b] = server.requests.map((r) => r.headers["x-request-id"]);
  assert.match(String(a), UUID);
  assert.match(String(b), UUID);
  assert.notEqual(a, b);
});

test("ErrorInterceptor keeps the same X-Request-ID across the retries of one call", async () => {
  let seen = 0;
  await using server = await startTestServer((_request, response) => {
    seen++;
    sendJson(response, seen < 3 ? 503 : 200, {});
  });
  const client = new HttpClient(server.url, { retryDelay: 1 });
  client.addInterceptor(new ErrorInterceptor());
  await client.get("/x");
  const ids = server.requests.map((r) => r.headers["x-request-id"]);
  assert.equal(ids.length, 3);
  assert.match(String(ids[0]), UUID);
  assert.deepEqual(ids, [ids[0], ids[0], ids[0]]);
});

test("ErrorInterceptor keeps an X-Request-ID the caller set", async () => {
  await using server = await startCollector();
  const client = new HttpClient(server.url);
  client.addInterceptor(new ErrorInterceptor());
  await client.get("/x", { headers: { "X-Request-ID": "mine-1" } });
  assert.equal(server.requests[0].headers["x-request-id"], "mine-1");
});

test("ErrorInterceptor throws HttpError(status, message) with the message field of the JSON body", async () => {
  await using server = await startCollector(422, {
    message: "Name is required",
    field: "name",
  });
  const client = new HttpClient(server.url);
  client.addInterceptor(new ErrorInterceptor({ generateId: () => "req-42" }));
  await assert.rejects(
    client.post("/users", { json: {} }),
    (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.equal(error.name, "HttpError");
      assert.equal(error.status, 422);
      assert.equal(error.message, "Name is required");
      assert.deepEqual(error.body, {
        message: "Name is required",
        field: "name",
      });
      assert.equal(error.requestId, "req-42");
      assert.equal(error.method, "POST");
      assert.equal(error.url, `${server.url}/users`);
      return true;
    },
  );
});

test("ErrorInterceptor falls back to the status text when the body is not JSON", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(502, "Bad Gateway", { "content-type": "text/html" });
    response.end("<h1>proxy error</h1>");
  });
  const client = new HttpClient(server.url, { retryAttempts: 0 });
  client.addInterceptor(new ErrorInterceptor());
  await assert.rejects(client.get("/x"), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 502);
    assert.equal(error.message, "Bad Gateway");
    assert.equal(error.body, "<h1>proxy error</h1>");
    return true;
  });
});

test("ErrorInterceptor falls back to the status text when the JSON body has no message", async () => {
  await using server = await startCollector(403, { error: "nope" });
  const client = new HttpClient(server.url);
  client.addInterceptor(new ErrorInterceptor());
  await assert.rejects(client.get("/x"), {
    name: "HttpError",
    message: "Forbidden",
    status: 403,
  });
  server.setHandler((_request, response) => {
    response.writeHead(404);
    response.end();
  });
  await assert.rejects(client.get("/y"), {
    message: "Not Found",
    status: 404,
    body: undefined,
  });
});

test("ErrorInterceptor makes request() throw for a non-success status too", async () => {
  await using server = await startCollector(404, { message: "gone" });
  const client = new HttpClient(server.url);
  client.addInterceptor(new ErrorInterceptor());
  await assert.rejects(client.request("GET", "/x"), {
    name: "HttpError",
    message: "gone",
  });
});

test("HttpError uses the standard reason phrase when the status text is empty", async () => {
  const error = await HttpError.fromResponse(
    new Response("", { status: 503, statusText: "" }),
  );
  assert.equal(error.message, "Service Unavailable");
  const unknown = await HttpError.fromResponse(
    new Response("", { status: 599, statusText: "" }),
  );
  assert.equal(unknown.message, "HTTP 599");
});
