// Redirects: HttpClient follows them itself, so that credentials never reach
// another origin (only origins the client trusts), and a redirect loop ends
// at maxRedirects with a final RedirectError instead of being retried as a
// network failure. Two real loopback servers on different ports are two
// origins.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  AuthInterceptor,
  HttpClient,
  HttpError,
  RedirectError,
} from "../../http/mod.ts";
import {
  sendJson,
  startTestServer,
  type TestServer,
} from "../_support/http_server.ts";

const CREDENTIALS = {
  "X-Api-Key": "k-123",
  "Authorization": "Basic dXNlcjpwdw==",
  "X-Auth-Token": "t-456",
  "Cookie": "sid=789",
};

/** A server that echoes what it received as JSON. */
function echo(): Promise<TestServer> {
  return startTestServer((request, response) =>
    sendJson(response, 200, {
      method: request.method,
      url: request.url,
      body: request.body,
    })
  );
}

/** A server that answers every request with `status` and a Location. */
function redirecting(
  status: number,
  location: (url: string) => string,
): Promise<TestServer> {
  return startTestServer((request, response) => {
    response.writeHead(status, {
      location: location(request.url),
      "content-type": "text/plain",
    });
    response.end("moved");
  });
}

function hasNone(headers: Record<string, unknown>, names: string[]): void {
  for (const name of names) {
    assert.equal(headers[name], undefined, `${name} reached the other origin`);
  }
}

const CREDENTIAL_NAMES = [
  "x-api-key",
  "authorization",
  "x-auth-token",
  "cookie",
];

test("HttpClient drops credential headers when a 302 leads to another origin", async () => {
  await using other = await echo();
  await using server = await redirecting(302, () => `${other.url}/landing`);
  const client = new HttpClient(server.url, {
    headers: { ...CREDENTIALS, "X-App": "demo" },
  });
  const body = await client.get<{ url: string }>("/start", {
    headers: { "X-Call-Secret": "s-1" },
  });
  assert.equal(body.url, "/landing");
  assert.equal(server.requests[0].headers["x-api-key"], "k-123");
  const landed = other.requests[0].headers;
  hasNone(landed, [...CREDENTIAL_NAMES, "x-call-secret"]);
  // Headers that are not credentials go along.
  assert.equal(landed["x-app"], "demo");
  assert.equal(landed["accept"], "application/json");
});

test("HttpClient drops credential headers on a 307 to another origin and sends the body again", async () => {
  await using other = await echo();
  await using server = await redirecting(307, () => `${other.url}/landing`);
  const client = new HttpClient(server.url, { headers: CREDENTIALS });
  const body = await client.post<{ method: string; body: string }>("/start", {
    json: { name: "Ada" },
  });
  assert.deepEqual(body, {
    method: "POST",
    url: "/landing",
    body: '{"name":"Ada"}',
  });
  hasNone(other.requests[0].headers, CREDENTIAL_NAMES);
  assert.equal(other.requests[0].headers["content-type"], "application/json");
});

test("HttpClient drops the Authorization an interceptor sets when a redirect leads to another origin", async () => {
  await using other = await echo();
  await using server = await redirecting(302, () => `${other.url}/landing`);
  const client = new HttpClient(server.url).addInterceptor(
    new AuthInterceptor({ getToken: () => "tok-1" }),
  );
  await client.get("/start");
  assert.equal(server.requests[0].headers["authorization"], "Bearer tok-1");
  hasNone(other.requests[0].headers, ["authorization"]);
});

test("HttpClient keeps credential headers on a redirect within the origin", async () => {
  await using server = await startTestServer((request, response) => {
    if (request.url === "/start") {
      response.writeHead(302, { location: "/landing" });
      response.end();
    } else sendJson(response, 200, { url: request.url });
  });
  const client = new HttpClient(server.url, { headers: CREDENTIALS });
  assert.deepEqual(await client.get("/start"), { url: "/landing" });
  const landed = server.requests[1].headers;
  assert.equal(landed["x-api-key"], "k-123");
  assert.equal(landed["authorization"], "Basic dXNlcjpwdw==");
  assert.equal(landed["x-auth-token"], "t-456");
  assert.equal(landed["cookie"], "sid=789");
});

test("HttpClient keeps credential headers on a redirect to a trustedRedirectOrigins origin, and only there", async () => {
  await using third = await echo();
  await using trusted = await startTestServer((request, response) => {
    if (request.url === "/hop") {
      response.writeHead(302, { location: `${third.url}/end` });
      response.end();
    } else sendJson(response, 200, { url: request.url });
  });
  await using server = await startTestServer((request, response) => {
    response.writeHead(302, {
      location: `${trusted.url}${
        request.url === "/start" ? "/landing" : "/hop"
      }`,
    });
    response.end();
  });
  const client = new HttpClient(server.url, {
    headers: CREDENTIALS,
    // An address: its origin is what counts.
    trustedRedirectOrigins: [`${trusted.url}/any/path`],
  });
  assert.deepEqual(await client.get("/start"), { url: "/landing" });
  assert.equal(trusted.requests[0].headers["x-api-key"], "k-123");
  assert.equal(trusted.requests[0].headers["cookie"], "sid=789");
  assert.deepEqual(client.options.trustedRedirectOrigins, [trusted.url]);
  // From the trusted origin on to one that is not: dropped there.
  const end = await client.get<{ url: string }>("/other");
  assert.equal(end.url, "/end");
  hasNone(third.requests[0].headers, CREDENTIAL_NAMES);
});

test("HttpClient: once dropped, credentials stay dropped when the chain comes back", async () => {
  // The first server's address, known once it listens.
  const home = { url: "" };
  await using other = await startTestServer((_request, response) => {
    response.writeHead(302, { location: `${home.url}/back` });
    response.end();
  });
  await using server = await startTestServer((request, response) => {
    if (request.url === "/start") {
      response.writeHead(302, { location: `${other.url}/away` });
      response.end();
    } else sendJson(response, 200, { url: request.url });
  });
  home.url = server.url;
  const client = new HttpClient(server.url, { headers: CREDENTIALS });
  assert.deepEqual(await client.get("/start"), { url: "/back" });
  hasNone(other.requests[0].headers, CREDENTIAL_NAMES);
  hasNone(server.requests[1].headers, CREDENTIAL_NAMES);
});

test("HttpClient ends a redirect loop at 20 redirects with a RedirectError, not retried", async () => {
  await using server = await redirecting(302, () => "/loop?token=s3cr3t");
  const client = new HttpClient(server.url, { retryDelay: 1 });
  assert.equal(client.options.maxRedirects, 20);
  await assert.rejects(client.get("/start"), (error: unknown) => {
    assert.ok(error instanceof RedirectError);
    assert.equal(error.name, "RedirectError");
    assert.equal(error.reason, "limit");
    assert.equal(error.method, "GET");
    assert.equal(error.url, `${server.url}/start`);
    assert.equal(error.status, 302);
    assert.equal(error.redirects, 20);
    assert.equal(error.location, `${server.url}/loop?token=s3cr3t`);
    assert.equal(
      error.message,
      `GET ${server.url}/start was redirected more than maxRedirects (20) ` +
        `times; the last address, ${server.url}/loop?…, answered 302 with ` +
        `one more redirect, to ${server.url}/loop?…; look for a redirect ` +
        "loop, or raise maxRedirects in the HttpClient options if the chain " +
        "is expected",
    );
    assert.ok(!error.message.includes("s3cr3t"));
    return true;
  });
  // The first request and 20 redirects, once: no retry.
  assert.equal(server.requests.length, 21);
});

test("HttpClient maxRedirects: a lower limit, and 0 returns the redirect itself", async () => {
  await using server = await redirecting(301, () => "/loop");
  const limited = new HttpClient(server.url, { maxRedirects: 2 });
  await assert.rejects(limited.get("/start"), (error: unknown) => {
    assert.ok(error instanceof RedirectError);
    assert.equal(error.redirects, 2);
    assert.match(error.message, /more than maxRedirects \(2\) times/);
    return true;
  });
  assert.equal(server.requests.length, 3);

  const none = new HttpClient(server.url, { maxRedirects: 0 });
  const response = await none.request("GET", "/start");
  assert.equal(response.status, 301);
  assert.equal(response.headers.get("location"), "/loop");
  await response.body?.cancel();
  await assert.rejects(
    none.get("/start"),
    (error: unknown) => error instanceof HttpError && error.status === 301,
  );
  assert.equal(server.requests.length, 5);

  assert.throws(() => new HttpClient(server.url, { maxRedirects: -1 }), {
    name: "RangeError",
    message: "Invalid maxRedirects: -1; expected a whole number >= 0",
  });
});

test("HttpClient: 303 turns any method into a GET without body; 301/302 turn a POST into one", async () => {
  await using other = await echo();
  for (
    const [status, method] of [[303, "PUT"], [302, "POST"], [
      301,
      "POST",
    ]] as const
  ) {
    await using server = await redirecting(status, () => `${other.url}/seen`);
    const client = new HttpClient(server.url, { retryAttempts: 0 });
    const body = await client.request(method, "/start", {
      json: { a: 1 },
    }).then((response) => response.json());
    assert.deepEqual(body, { method: "GET", url: "/seen", body: "" });
    const last = other.requests[other.requests.length - 1];
    assert.equal(last.headers["content-type"], undefined, `${status}`);
  }
});

test("HttpClient: a Location that is not http(s) and a stream body that a 307 wants again are final errors", async () => {
  await using server = await startTestServer((request, response) => {
    response.writeHead(request.url === "/ftp" ? 302 : 307, {
      location: request.url === "/ftp" ? "ftp://files.example/x" : "/again",
    });
    response.end();
  });
  const client = new HttpClient(server.url, { retryDelay: 1 });
  await assert.rejects(client.get("/ftp"), (error: unknown) => {
    assert.ok(error instanceof RedirectError);
    assert.equal(error.reason, "location");
    assert.equal(
      error.message,
      `GET ${server.url}/ftp: ${server.url}/ftp answered 302 with a ` +
        'redirect to "ftp://files.example/x", which is not an http(s) ' +
        "address; the redirect is not followed",
    );
    return true;
  });
  assert.equal(server.requests.length, 1);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("data"));
      controller.close();
    },
  });
  await assert.rejects(
    client.request("PUT", "/upload", { body: stream }),
    (error: unknown) => {
      assert.ok(error instanceof RedirectError);
      assert.equal(error.reason, "body");
      assert.equal(
        error.message,
        `PUT ${server.url}/upload: ${server.url}/upload answered 307, which ` +
          `asks for the body to be sent again to ${server.url}/again, but ` +
          "the body is a stream that can be read only once; send the " +
          "request to that address directly",
      );
      return true;
    },
  );
  assert.equal(server.requests.length, 2);
});

test("HttpClient: invalid trustedRedirectOrigins fail at construction", () => {
  assert.throws(
    () =>
      new HttpClient("http://127.0.0.1:1", {
        trustedRedirectOrigins: ["auth.example.com"],
      }),
    {
      name: "TypeError",
      message:
        'Invalid trustedRedirectOrigins entry: "auth.example.com"; expected ' +
        'an http(s) origin such as "https://auth.example.com"',
    },
  );
  assert.throws(
    () =>
      new HttpClient("http://127.0.0.1:1", {
        trustedRedirectOrigins: "https://a.example" as unknown as string[],
      }),
    {
      name: "TypeError",
      message:
        "Invalid trustedRedirectOrigins: expected an array of http(s) origins",
    },
  );
});
