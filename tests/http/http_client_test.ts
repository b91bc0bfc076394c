import { test } from "node:test";
import assert from "node:assert/strict";
import { HttpClient, HttpError } from "../../http/mod.ts";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";

test("HttpClient.get() returns the parsed JSON body", async () => {
  await using server = await startCollector(200, { id: 7, tags: ["a", "b"] });
  const client = new HttpClient(server.url);
  const body = await client.get<{ id: number; tags: string[] }>("/items/7");
  assert.deepEqual(body, { id: 7, tags: ["a", "b"] });
  assert.equal(server.requests[0].method, "GET");
  assert.equal(server.requests[0].url, "/items/7");
});

test("HttpClient JSON methods return undefined for an empty body and for 204", async () => {
  await using server = await startTestServer((request, response) => {
    response.statusCode = request.url === "/none" ? 204 : 200;
    response.end();
  });
  const client = new HttpClient(server.url);
  assert.equal(await client.get("/empty"), undefined);
  assert.equal(await client.delete("/none"), undefined);
});

test("HttpClient sends Accept: application/json always and Content-Type: application/json only with a JSON body", async () => {
  await using server = await startCollector();
  const client = new HttpClient(server.url);
  await client.get("/a");
  await client.post("/b", { json: { name: "Ada" } });
  const [get, post] = server.requests;
  assert.equal(get.headers["accept"], "application/json");
  assert.equal(get.headers["content-type"], undefined);
  assert.equal(post.headers["accept"], "application/json");
  assert.equal(post.headers["content-type"], "application/json");
  assert.equal(post.body, '{"name":"Ada"}');
});

test("HttpClient merges client headers and per-call headers, the call winning", async () => {
  await using server = await startCollector();
  const client = new HttpClient(server.url, {
    headers: { "X-App": "demo", "X-Shared": "client", Accept: "text/plain" },
  });
  await client.get("/a", { headers: { "x-shared": "call", "X-Call": "1" } });
  await client.get("/b");
  const [first, second] = server.requests;
  assert.equal(first.headers["x-app"], "demo");
  assert.equal(first.headers["x-shared"], "call");
  assert.equal(first.headers["x-call"], "1");
  assert.equal(first.headers["accept"], "text/plain");
  assert.equal(second.headers["x-shared"], "client");
  assert.equal(second.headers["x-call"], undefined);
});

test("HttpClient sends put, patch and delete with their methods and bodies", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { method: request.method, body: request.body })
  );
  const client = new HttpClient(server.url);
  assert.deepEqual(await client.put("/x", { json: [1] }), {
    method: "PUT",
    body: "[1]",
  });
  assert.deepEqual(await client.patch("/x", { json: { a: 1 } }), {
    method: "PATCH",
    body: '{"a":1}',
  });
  assert.deepEqual(await client.delete("/x"), { method: "DELETE", body: "" });
});

test("HttpClient sends a raw body as given and leaves form data to fetch", async () => {
  await using server = await startCollector();
  const client = new HttpClient(server.url);
  await client.post("/text", { body: "plain" });
  const form = new URLSearchParams({ a: "1" });
  await client.post("/form", { body: form });
  assert.equal(server.requests[0].body, "plain");
  assert.equal(server.requests[0].headers["content-type"], "application/json");
  assert.equal(server.requests[1].body, "a=1");
  assert.match(
    String(server.requests[1].headers["content-type"]),
    /^application\/x-www-form-urlencoded/,
  );
});

test("HttpClient rejects a call that gives both json and body", async () => {
  const client = new HttpClient("http://127.0.0.1:9");
  await assert.rejects(
    client.post("/x", { json: {}, body: "x" }),
    /either `json` or `body`/,
  );
});

test("HttpClient appends paths to the base address with or without a leading slash", async () => {
  await using server = await startCollector();
  const client = new HttpClient(`${server.url}/api`);
  await client.get("/users");
  await client.get("users");
  const trailing = new HttpClient(`${server.url}/api/`);
  await trailing.get("/users");
  assert.deepEqual(server.requests.map((r) => r.url), [
    "/api/users",
    "/api/users",
    "/api/users",
  ]);
});

test("HttpClient builds the query string from an object, params or text", async () => {
  await using server = await startCollector();
  const client = new HttpClient(server.url);
  await client.get("/q", {
    query: {
      page: 2,
      tag: ["a", "b c"],
      skip: undefined,
      none: null,
      on: true,
    },
  });
  await client.get("/q?x=1", { query: new URLSearchParams({ y: "2" }) });
  await client.get("/q", { query: "?z=3" });
  assert.deepEqual(server.requests.map((r) => r.url), [
    "/q?page=2&tag=a&tag=b+c&on=true",
    "/q?x=1&y=2",
    "/q?z=3",
  ]);
});

test("HttpClient.get() fetches /api/localization/{culture}.json by path and by absolute URL", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { url: request.url, greeting: "Hallo {0}" })
  );
  const client = new HttpClient(server.url);
  const byPath = await client.get<{ url: string }>(
    "/api/localization/de-DE.json",
  );
  const byUrl = await client.get<{ url: string }>(
    `${server.url}/api/localization/fr-FR.json`,
  );
  assert.equal(byPath.url, "/api/localization/de-DE.json");
  assert.equal(byUrl.url, "/api/localization/fr-FR.json");
  // An absolute URL works even when the base address cannot resolve.
  const relative = new HttpClient("/app");
  const other = await relative.get<{ url: string }>(
    `${server.url}/api/localization/it-IT.json`,
  );
  assert.equal(other.url, "/api/localization/it-IT.json");
});

test("HttpClient.request() returns the Response, without throwing for a non-success status", async () => {
  await using server = await startTestServer((request, response) => {
    if (request.method === "HEAD") {
      response.writeHead(200, { "x-size": "42" });
      response.end();
      return;
    }
    sendJson(response, 404, { message: "missing" });
  });
  const client = new HttpClient(server.url);
  const head = await client.request("head", "/file");
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("x-size"), "42");
  assert.equal(server.requests[0].method, "HEAD");
  const missing = await client.request("GET", "/missing");
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { message: "missing" });
});

test("HttpClient JSON methods throw HttpError for a non-success status", async () => {
  await using server = await startCollector(404, { message: "No such user" });
  const client = new HttpClient(server.url);
  await assert.rejects(client.get("/users/9"), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 404);
    assert.equal(error.message, "No such user");
    assert.equal(error.method, "GET");
    assert.equal(error.url, `${server.url}/users/9`);
    return true;
  });
});

test("HttpClient JSON methods throw a SyntaxError naming the call for a body that is not JSON", async () => {
  await using server = await startTestServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<html>");
  });
  const client = new HttpClient(server.url);
  await assert.rejects(client.get("/page"), (error: unknown) => {
    assert.ok(error instanceof SyntaxError);
    assert.match(
      error.message,
      /^The response to GET http:.*\/page is not JSON/,
    );
    return true;
  });
});

test("new HttpClient() rejects an invalid base URL with a clear error", () => {
  for (const bad of ["", "   ", "not a url", "ftp://example.com", "http://"]) {
    assert.throws(
      () => new HttpClient(bad),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /^Invalid base URL: /);
        return true;
      },
      bad,
    );
  }
  assert.throws(
    () => new HttpClient("https://example.com/api?x=1"),
    /Invalid base URL: .*must not have a query or a fragment/,
  );
});

test("new HttpClient() rejects negative timeouts and retry counts with a clear error", () => {
  const base = "https://example.com";
  assert.throws(
    () => new HttpClient(base, { timeout: -1 }),
    { name: "RangeError", message: /^Invalid timeout: -1; / },
  );
  assert.throws(
    () => new HttpClient(base, { retryAttempts: -1 }),
    { name: "RangeError", message: /^Invalid retryAttempts: -1; / },
  );
  assert.throws(
    () => new HttpClient(base, { retryAttempts: 1.5 }),
    /^RangeError: Invalid retryAttempts: 1.5; expected a whole number >= 0$/,
  );
  assert.throws(
    () => new HttpClient(base, { retryDelay: -5 }),
    /Invalid retryDelay: -5/,
  );
  assert.throws(
    () => new HttpClient(base, { totalTimeout: Number.NaN }),
    /Invalid totalTimeout: NaN/,
  );
  assert.throws(
    () => new HttpClient(base, { timeout: 2 ** 40 }),
    /Invalid timeout: .*the largest timer is 2147483647ms/,
  );
  assert.throws(
    () => new HttpClient(base, { retryJitter: 2 }),
    /Invalid retryJitter: 2/,
  );
  // Zero and Infinity turn a timeout off and are accepted.
  new HttpClient(base, {
    timeout: 0,
    totalTimeout: Infinity,
    retryAttempts: 0,
  });
});

test("HttpClient with a relative base address reports clearly that a server has no origin", async () => {
  const client = new HttpClient("/api");
  assert.equal(client.baseUrl, "/api");
  await assert.rejects(client.get("/users"), (error: unknown) => {
    assert.ok(error instanceof TypeError);
    assert.match(
      error.message,
      /^Cannot resolve "\/users" against the relative base URL "\/api": there is no page origin \(globalThis\.location\)/,
    );
    return true;
  });
});

test("HttpClient resolves a relative base address against globalThis.location, as in a browser", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { url: request.url })
  );
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, "location");
  Object.defineProperty(globalThis, "location", {
    configurable: true,
    value: { href: `${server.url}/app/page.html` },
  });
  let client: HttpClient;
  try {
    client = new HttpClient("/api");
  } finally {
    if (descriptor) Object.defineProperty(globalThis, "location", descriptor);
    else delete (globalThis as { location?: unknown }).location;
  }
  assert.deepEqual(await client.get("/users"), { url: "/api/users" });
});

test("HttpClient.addInterceptor() rejects an object without intercept()", () => {
  const client = new HttpClient("https://example.com");
  assert.throws(
    () => client.addInterceptor({} as never),
    /needs an object with an intercept\(request\) method/,
  );
});

test("new HttpClient() given a host without a scheme suggests the http:// address", () => {
  assert.throws(() => new HttpClient("localhost:4010"), {
    name: "TypeError",
    message:
      'Invalid base URL: "localhost:4010"; the scheme must be http or https, not localhost:; did you mean "http://localhost:4010"?',
  });
  assert.throws(() => new HttpClient("api.example.com/v1"), {
    message:
      'Invalid base URL: "api.example.com/v1"; expected an absolute http(s) URL or a path starting with "/"; did you mean "http://api.example.com/v1"?',
  });
  // Neither the value nor the suggestion shows a query or credentials.
  assert.throws(() => new HttpClient("localhost:4010/v1?apiKey=s3cret"), {
    message:
      'Invalid base URL: "localhost:4010/v1?…"; the scheme must be http or https, not localhost:; did you mean "http://localhost:4010/v1?…"?',
  });
  // Nothing to suggest for what is not a host.
  assert.throws(() => new HttpClient("not a url"), {
    message:
      'Invalid base URL: "not a url"; expected an absolute http(s) URL or a path starting with "/"',
  });
});
