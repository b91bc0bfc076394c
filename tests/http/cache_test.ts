// The HTTP cache of HttpClient.fromConfiguration (`api:enableCaching`): GET
// responses kept by their Cache-Control, Expires, ETag/Last-Modified, Vary,
// never those of requests with credentials unless public, bounded in size and
// count, in the built-in memory store, the application's `cache` service or a
// store given in code. Each rule against a real loopback server that counts
// the requests reaching it; the time of freshness runs on the test kit's
// FakeClock where it must pass.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { createTestApplication, FakeClock } from "@vendor/kit-platform/testing";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import {
  AuthInterceptor,
  ErrorInterceptor,
  HttpClient,
  type HttpClientConfigurationOptions,
  HttpConfigurationError,
  type HttpRequestOptions,
} from "../../http/mod.ts";
import {
  type RecordedRequest,
  startTestServer,
  type TestServer,
} from "../_support/http_server.ts";

async function configWith(
  values: Record<string, string>,
): Promise<ConfigurationManager> {
  const config = new ConfigurationManager();
  await config.addProvider(new MemoryProvider(values));
  await config.loadConfiguration();
  return config;
}

/** A client of `server` with the cache on (unless `values` say otherwise). */
async function cachingClient(
  server: TestServer,
  options: HttpClientConfigurationOptions = {},
  values: Record<string, string> = { "api:enableCaching": "true" },
): Promise<HttpClient> {
  return HttpClient.fromConfiguration(
    await configWith({ "api:baseUrl": server.url, ...values }),
    { retryAttempts: 0, ...options },
  );
}

/** Answers JSON `{ n, path }` (n counts the requests) with `headers`. */
function answer(
  headers:
    | Record<string, string>
    | ((request: RecordedRequest) => Record<
      string,
      string
    >),
) {
  let n = 0;
  return (request: RecordedRequest, response: ServerResponse): void => {
    n++;
    const extra = typeof headers === "function" ? headers(request) : headers;
    response.writeHead(200, { "content-type": "application/json", ...extra });
    response.end(JSON.stringify({ n, path: request.url }));
  };
}

/** Gets `path` `times` times in turn and returns the values. */
async function getTimes(
  client: HttpClient,
  path: string,
  times: number,
  options?: HttpRequestOptions,
): Promise<unknown[]> {
  const values: unknown[] = [];
  for (let i = 0; i < times; i++) values.push(await client.get(path, options));
  return values;
}

describe("HTTP cache: turning it on", () => {
  it("is off unless api:enableCaching is true", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const configs: Record<string, string>[] = [
      {},
      { "api:enableCaching": "false" },
    ];
    for (const values of configs) {
      const client = await cachingClient(server, {}, values);
      await getTimes(client, "/off", 2);
    }
    assert.equal(server.requests.length, 4);
    // The same answers, the cache on: one request.
    await getTimes(await cachingClient(server), "/off", 2);
    assert.equal(server.requests.length, 5);
  });

  it("accepts true and 1 from the configuration", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    for (const value of ["true", "1", "TRUE"]) {
      const client = await cachingClient(server, {}, {
        "api:enableCaching": value,
      });
      await getTimes(client, "/on", 2);
    }
    assert.equal(server.requests.length, 3);
  });

  it("refuses a value that is not a boolean, naming the key", async () => {
    const config = await configWith({
      "api:baseUrl": "http://127.0.0.1:1",
      "api:enableCaching": "sometimes",
    });
    assert.throws(
      () => HttpClient.fromConfiguration(config),
      (error: unknown) =>
        error instanceof HttpConfigurationError &&
        error.key === "api:enableCaching" &&
        error.message ===
          'api:enableCaching must be true or false (or 1 or 0): "sometimes"',
    );
  });

  it("takes enableCaching given in code over the configuration", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const off = await cachingClient(server, { enableCaching: false });
    await getTimes(off, "/a", 2);
    assert.equal(server.requests.length, 2);
    const on = await cachingClient(server, { enableCaching: true }, {});
    await getTimes(on, "/a", 2);
    assert.equal(server.requests.length, 3);
  });

  it("checks the cache options", async () => {
    const config = await configWith({ "api:baseUrl": "http://127.0.0.1:1" });
    assert.throws(
      () =>
        HttpClient.fromConfiguration(config, {
          enableCaching: true,
          // @ts-expect-error: not a store
          cache: { get: () => undefined },
        }),
      {
        name: "TypeError",
        message:
          "Invalid cache: expected a store with get(key), set(key, value, " +
          "{ ttl }) and delete(key) methods, such as a CacheManager",
      },
    );
    assert.throws(
      () =>
        HttpClient.fromConfiguration(config, {
          enableCaching: true,
          maxCacheEntrySize: -1,
        }),
      {
        name: "RangeError",
        message:
          "Invalid maxCacheEntrySize: -1; expected a whole number of bytes >= 0",
      },
    );
    assert.throws(
      () =>
        HttpClient.fromConfiguration(config, {
          enableCaching: true,
          maxCacheEntries: 0,
        }),
      {
        name: "RangeError",
        message: "Invalid maxCacheEntries: 0; expected a whole number >= 1",
      },
    );
  });
});

describe("HTTP cache: freshness", () => {
  it("serves a fresh response without a request (max-age)", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const client = await cachingClient(server);
    const [first, second] = await getTimes(client, "/items", 2);
    assert.deepEqual(first, { n: 1, path: "/items" });
    assert.deepEqual(second, first);
    assert.equal(server.requests.length, 1);
    // Another query is another address.
    await client.get("/items", { query: { page: 2 } });
    assert.equal(server.requests.length, 2);
  });

  it("honours Expires against Date", async () => {
    const now = Date.now();
    await using server = await startTestServer(
      answer((request) => ({
        date: new Date(now).toUTCString(),
        expires: new Date(
          request.url === "/later" ? now + 600_000 : now - 600_000,
        ).toUTCString(),
      })),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/later", 2);
    assert.equal(server.requests.length, 1);
    await getTimes(client, "/past", 2);
    assert.equal(server.requests.length, 3);
  });

  it("ignores s-maxage, as a private cache", async () => {
    await using server = await startTestServer(
      answer((request) => ({
        "cache-control": request.url === "/shared-only"
          ? "s-maxage=600"
          : "s-maxage=0, max-age=600",
      })),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/shared-only", 2);
    assert.equal(server.requests.length, 2);
    await getTimes(client, "/private-too", 2);
    assert.equal(server.requests.length, 3);
  });

  it("stores a private response", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "private, max-age=600" }),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/mine", 2);
    assert.equal(server.requests.length, 1);
  });

  it("never stores no-store", async () => {
    await using server = await startTestServer(
      answer((request) => ({
        "cache-control": request.url === "/secret"
          ? "no-store, max-age=600"
          : "max-age=600",
        etag: '"x"',
      })),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/secret", 3);
    assert.equal(server.requests.length, 3);
    assert.equal(server.requests[2].headers["if-none-match"], undefined);
    await getTimes(client, "/kept", 3);
    assert.equal(server.requests.length, 4);
  });

  it("bypasses the cache for a call that sends Cache-Control: no-store", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const client = await cachingClient(server);
    const bypass = { headers: { "cache-control": "no-store" } };
    await getTimes(client, "/x", 2, bypass);
    assert.equal(server.requests.length, 2);
    await getTimes(client, "/x", 2);
    assert.equal(server.requests.length, 3);
  });
});

describe("HTTP cache: revalidation", () => {
  /** Answers 304 to a matching If-None-Match, else 200 with `etag`. */
  function withEtag(
    cacheControl: string,
    etag: () => string,
  ) {
    let n = 0;
    return (request: RecordedRequest, response: ServerResponse): void => {
      const tag = etag();
      if (request.headers["if-none-match"] === tag) {
        response.writeHead(304, { "cache-control": cacheControl, etag: tag });
        response.end();
        return;
      }
      n++;
      response.writeHead(200, {
        "content-type": "application/json",
        "cache-control": cacheControl,
        etag: tag,
      });
      response.end(JSON.stringify({ n, etag: tag }));
    };
  }

  it("revalidates a stale entry with its ETag: 304 serves the stored body and refreshes it", async () => {
    await using server = await startTestServer(
      withEtag("max-age=60", () => '"v1"'),
    );
    const clock = new FakeClock();
    const client = await cachingClient(server, { clock });
    assert.deepEqual(await client.get("/doc"), { n: 1, etag: '"v1"' });
    await clock.advance(30_000);
    assert.deepEqual(await client.get("/doc"), { n: 1, etag: '"v1"' });
    assert.equal(server.requests.length, 1, "fresh after 30 s");
    await clock.advance(31_000);
    assert.deepEqual(await client.get("/doc"), { n: 1, etag: '"v1"' });
    assert.equal(server.requests.length, 2, "one conditional request");
    assert.equal(server.requests[1].headers["if-none-match"], '"v1"');
    // The 304 made it fresh for another 60 s.
    await clock.advance(59_000);
    assert.deepEqual(await client.get("/doc"), { n: 1, etag: '"v1"' });
    assert.equal(server.requests.length, 2);
  });

  it("revalidates no-cache on every use, and must-revalidate once stale", async () => {
    await using server = await startTestServer(
      withEtag("no-cache", () => '"n1"'),
    );
    const client = await cachingClient(server);
    const values = await getTimes(client, "/always", 3);
    assert.deepEqual(values, Array(3).fill({ n: 1, etag: '"n1"' }));
    assert.equal(server.requests.length, 3);
    assert.equal(server.requests[0].headers["if-none-match"], undefined);
    assert.equal(server.requests[1].headers["if-none-match"], '"n1"');
    assert.equal(server.requests[2].headers["if-none-match"], '"n1"');

    await using strict = await startTestServer(
      withEtag("max-age=10, must-revalidate", () => '"m1"'),
    );
    const clock = new FakeClock();
    const other = await cachingClient(strict, { clock });
    await getTimes(other, "/strict", 2);
    assert.equal(strict.requests.length, 1);
    await clock.advance(11_000);
    await other.get("/strict");
    assert.equal(strict.requests.length, 2);
    assert.equal(strict.requests[1].headers["if-none-match"], '"m1"');
  });

  it("revalidates with Last-Modified through If-Modified-Since", async () => {
    const modified = new Date(Date.now() - 3_600_000).toUTCString();
    let n = 0;
    await using server = await startTestServer((request, response) => {
      if (request.headers["if-modified-since"] === modified) {
        response.writeHead(304);
        response.end();
        return;
      }
      n++;
      response.writeHead(200, {
        "content-type": "application/json",
        "cache-control": "no-cache",
        "last-modified": modified,
      });
      response.end(JSON.stringify({ n }));
    });
    const client = await cachingClient(server);
    assert.deepEqual(await getTimes(client, "/report", 2), [{ n: 1 }, {
      n: 1,
    }]);
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1].headers["if-modified-since"], modified);
  });

  it("serves and stores the new body when the conditional request gets 200", async () => {
    let version = 1;
    await using server = await startTestServer(
      withEtag("no-cache", () => `"v${version}"`),
    );
    const client = await cachingClient(server);
    assert.deepEqual(await client.get("/doc"), { n: 1, etag: '"v1"' });
    version = 2;
    assert.deepEqual(await client.get("/doc"), { n: 2, etag: '"v2"' });
    assert.deepEqual(await client.get("/doc"), { n: 2, etag: '"v2"' });
    assert.equal(server.requests.length, 3);
    assert.equal(server.requests[2].headers["if-none-match"], '"v2"');
  });

  it("shows interceptors the stored response, not the 304", async () => {
    await using server = await startTestServer(
      withEtag("no-cache", () => '"i1"'),
    );
    const client = await cachingClient(server);
    const seen: number[] = [];
    client.addInterceptor(new ErrorInterceptor()).addInterceptor({
      intercept: (request) => request,
      onResponse: (response) => {
        seen.push(response.status);
        return response;
      },
    });
    const values = await getTimes(client, "/guarded", 2);
    assert.deepEqual(values, Array(2).fill({ n: 1, etag: '"i1"' }));
    assert.equal(server.requests.length, 2);
    assert.deepEqual(seen, [200, 200]);
  });

  it("revalidates a fresh entry for a call that sends Cache-Control: no-cache", async () => {
    await using server = await startTestServer(
      withEtag("max-age=600", () => '"f1"'),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/doc", 2);
    assert.equal(server.requests.length, 1);
    const value = await client.get("/doc", {
      headers: { "cache-control": "no-cache" },
    });
    assert.deepEqual(value, { n: 1, etag: '"f1"' });
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1].headers["if-none-match"], '"f1"');
  });

  it("does not store a response with neither freshness nor validator", async () => {
    await using server = await startTestServer(
      answer((request): Record<string, string> =>
        request.url === "/plain" ? {} : { "cache-control": "max-age=600" }
      ),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/plain", 2);
    assert.equal(server.requests.length, 2);
    await getTimes(client, "/fresh", 2);
    assert.equal(server.requests.length, 3);
  });
});

describe("HTTP cache: credentials", () => {
  it("never stores the answer to a request with Authorization unless public", async () => {
    await using server = await startTestServer(
      answer((request) => ({
        "cache-control": request.url === "/public"
          ? "public, max-age=600"
          : "max-age=600",
      })),
    );
    const client = await cachingClient(server, {
      headers: { authorization: "Bearer t0ken" },
    });
    await getTimes(client, "/private", 2);
    assert.equal(server.requests.length, 2);
    await getTimes(client, "/public", 2);
    assert.equal(server.requests.length, 3);
  });

  it("treats a Cookie of the call and an Authorization of an interceptor alike", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/anonymous", 2);
    assert.equal(server.requests.length, 1);
    await getTimes(client, "/cookie", 2, { headers: { cookie: "sid=abc" } });
    assert.equal(server.requests.length, 3);
    client.addInterceptor(new AuthInterceptor({ getToken: () => "t0ken" }));
    await getTimes(client, "/auth", 2);
    assert.equal(server.requests.length, 5);
    assert.equal(server.requests[4].headers.authorization, "Bearer t0ken");
  });
});

describe("HTTP cache: Vary", () => {
  it("serves an entry only to a request with the same Accept-Language", async () => {
    await using server = await startTestServer((request, response) => {
      response.writeHead(200, {
        "content-type": "application/json",
        "cache-control": "max-age=600",
        vary: "Accept-Language",
      });
      response.end(
        JSON.stringify({ lang: request.headers["accept-language"] ?? null }),
      );
    });
    const client = await cachingClient(server);
    const en = { headers: { "accept-language": "en" } };
    const fr = { headers: { "accept-language": "fr" } };
    assert.deepEqual(await client.get("/hello", en), { lang: "en" });
    assert.deepEqual(await client.get("/hello", en), { lang: "en" });
    assert.equal(server.requests.length, 1);
    assert.deepEqual(await client.get("/hello", fr), { lang: "fr" });
    assert.equal(server.requests.length, 2);
    // Without the header (the runtime may send its own default).
    const plain = await client.get("/hello");
    assert.equal(server.requests.length, 3);
    assert.deepEqual(plain, {
      lang: server.requests[2].headers["accept-language"] ?? null,
    });
  });

  it("never stores Vary: *", async () => {
    await using server = await startTestServer(
      answer((request) => ({
        "cache-control": "max-age=600",
        vary: request.url === "/any" ? "*" : "accept",
      })),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/any", 2);
    assert.equal(server.requests.length, 2);
    await getTimes(client, "/json", 2);
    assert.equal(server.requests.length, 3);
  });
});

describe("HTTP cache: bounds", () => {
  it("does not store a body above maxCacheEntrySize", async () => {
    await using server = await startTestServer((request, response) => {
      response.writeHead(200, {
        "content-type": "application/json",
        "cache-control": "max-age=600",
      });
      const size = request.url === "/big" ? 2_000 : 100;
      response.end(JSON.stringify("x".repeat(size)));
    });
    const client = await cachingClient(server, { maxCacheEntrySize: 1024 });
    await getTimes(client, "/big", 2);
    assert.equal(server.requests.length, 2);
    await getTimes(client, "/small", 2);
    assert.equal(server.requests.length, 3);
  });

  it("keeps at most maxCacheEntries responses in memory, least recently used out first", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const client = await cachingClient(server, { maxCacheEntries: 2 });
    for (const path of ["/a", "/b", "/c"]) await client.get(path);
    assert.equal(server.requests.length, 3);
    await client.get("/c");
    await client.get("/b");
    assert.equal(server.requests.length, 3);
    await client.get("/a");
    assert.equal(server.requests.length, 4);
  });

  it("keeps at most maxCacheSize bytes of bodies in memory", async () => {
    await using server = await startTestServer((request, response) => {
      response.writeHead(200, {
        "content-type": "application/json",
        "cache-control": "max-age=600",
      });
      response.end(JSON.stringify({ path: request.url, pad: "x".repeat(80) }));
    });
    // Each body is about 100 bytes: two do not fit in 150.
    const client = await cachingClient(server, { maxCacheSize: 150 });
    await getTimes(client, "/a", 2);
    assert.equal(server.requests.length, 1);
    await getTimes(client, "/b", 2);
    assert.equal(server.requests.length, 2);
    await client.get("/a");
    assert.equal(server.requests.length, 3);
    // Without the byte bound, both stay.
    const unbounded = await cachingClient(server, { maxCacheSize: Infinity });
    for (const path of ["/a", "/b", "/a", "/b"]) await unbounded.get(path);
    assert.equal(server.requests.length, 5);
  });
});

describe("HTTP cache: what is cached", () => {
  it("forgets an address after a successful PUT, POST, PATCH or DELETE to it", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const client = await cachingClient(server);
    await getTimes(client, "/users/1", 2);
    assert.equal(server.requests.length, 1);
    await client.put("/users/1", { json: { name: "Ada" } });
    await getTimes(client, "/users/1", 2);
    assert.equal(server.requests.length, 3);
    await client.delete("/users/1");
    await client.get("/users/1");
    assert.equal(server.requests.length, 5);
  });

  it("leaves request() alone", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const client = await cachingClient(server);
    for (let i = 0; i < 2; i++) {
      const response = await client.request("GET", "/raw");
      await response.body?.cancel();
    }
    assert.equal(server.requests.length, 2);
    await getTimes(client, "/raw", 2);
    assert.equal(server.requests.length, 3);
  });

  it("does not store a response reached through a redirect", async () => {
    await using server = await startTestServer((request, response) => {
      if (request.url === "/old") {
        response.writeHead(302, { location: "/new" });
        response.end();
        return;
      }
      answer({ "cache-control": "max-age=600" })(request, response);
    });
    const client = await cachingClient(server);
    await getTimes(client, "/old", 2);
    assert.equal(server.requests.length, 4);
    await getTimes(client, "/new", 2);
    assert.equal(server.requests.length, 5);
  });

  it("keeps working when the store fails, and says so once", async () => {
    await using server = await startTestServer(
      answer({ "cache-control": "max-age=600" }),
    );
    const config = await configWith({
      "api:baseUrl": server.url,
      "api:enableCaching": "true",
    });
    await using app = await createTestApplication({
      configuration: () => config,
    });
    const broken = {
      get: () => Promise.reject(new Error("store down")),
      set: () => Promise.reject(new Error("store down")),
      delete: () => Promise.reject(new Error("store down")),
    };
    const client = HttpClient.fromConfiguration(config, { cache: broken });
    const values = await getTimes(client, "/x", 2);
    assert.deepEqual(values, [{ n: 1, path: "/x" }, { n: 2, path: "/x" }]);
    const warnings = app.logs.filter({
      category: "kit.http",
      level: "warning",
    });
    assert.equal(warnings.length, 1);
    assert.equal(
      warnings[0].message,
      "The HTTP cache's store failed to read (store down): the call goes to " +
        "the server; later failures of this client's store are logged at debug",
    );
  });
});
