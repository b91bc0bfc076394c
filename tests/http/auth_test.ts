import { test } from "node:test";
import assert from "node:assert/strict";
import {
  AuthInterceptor,
  ErrorInterceptor,
  HttpClient,
  HttpError,
  MemoryStorage,
  StorageTokenSource,
} from "../../http/mod.ts";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("AuthInterceptor sets Authorization: Bearer <token> only when a token exists", async () => {
  await using server = await startCollector();
  const tokens = new StorageTokenSource({ storage: new MemoryStorage() });
  const client = new HttpClient(server.url);
  client.addInterceptor(
    new AuthInterceptor({ getToken: () => tokens.getToken() }),
  );
  await client.get("/anonymous");
  tokens.setToken("abc");
  await client.get("/signed-in");
  assert.equal(server.requests[0].headers["authorization"], undefined);
  assert.equal(server.requests[1].headers["authorization"], "Bearer abc");
});

test("AuthInterceptor refreshes an expired token before the request", async () => {
  await using server = await startCollector();
  const tokens = new StorageTokenSource({ storage: new MemoryStorage() });
  tokens.setToken("expired-1");
  let refreshes = 0;
  const client = new HttpClient(server.url);
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => tokens.getToken(),
      isExpired: (token) => token.startsWith("expired"),
      refreshToken: () => {
        refreshes++;
        tokens.setToken("fresh-1");
      },
    }),
  );
  await client.get("/x");
  assert.equal(refreshes, 1);
  assert.equal(server.requests[0].headers["authorization"], "Bearer fresh-1");
});

test("AuthInterceptor shares one refresh among 10 concurrent requests with an expired token", async () => {
  await using server = await startCollector(200, { ok: true });
  const tokens = new StorageTokenSource({ storage: new MemoryStorage() });
  tokens.setToken("expired");
  let refreshes = 0;
  const client = new HttpClient(server.url);
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => tokens.getToken(),
      isExpired: async (token) => {
        await delay(1);
        return token === "expired";
      },
      refreshToken: async () => {
        refreshes++;
        await delay(50);
        tokens.setToken(`fresh-${refreshes}`);
        return `fresh-${refreshes}`;
      },
    }),
  );
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => client.get(`/item/${i}`)),
  );
  assert.equal(results.length, 10);
  assert.equal(refreshes, 1);
  assert.equal(server.requests.length, 10);
  for (const request of server.requests) {
    assert.equal(request.headers["authorization"], "Bearer fresh-1");
  }
});

test("AuthInterceptor refreshes once on a 401 and replays the call with the new token", async () => {
  await using server = await startTestServer((request, response) => {
    if (request.headers["authorization"] === "Bearer good") {
      sendJson(response, 200, { hello: "you" });
    } else {
      sendJson(response, 401, { message: "token revoked" });
    }
  });
  const tokens = new StorageTokenSource({ storage: new MemoryStorage() });
  tokens.setToken("revoked");
  let refreshes = 0;
  const client = new HttpClient(server.url);
  client.addInterceptor(new ErrorInterceptor());
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => tokens.getToken(),
      refreshToken: () => {
        refreshes++;
        tokens.setToken("good");
        return "good";
      },
    }),
  );
  assert.deepEqual(await client.get("/me"), { hello: "you" });
  assert.equal(refreshes, 1);
  assert.deepEqual(
    server.requests.map((r) => r.headers["authorization"]),
    ["Bearer revoked", "Bearer good"],
  );
  // The replay is the same call: same request id.
  assert.equal(
    server.requests[0].headers["x-request-id"],
    server.requests[1].headers["x-request-id"],
  );
});

test("AuthInterceptor never loops: a replay that gets 401 again ends with HttpError 401", async () => {
  await using server = await startCollector(401, {
    message: "still not allowed",
  });
  let token = "t0";
  let refreshes = 0;
  const client = new HttpClient(server.url, {
    retryAttempts: 3,
    retryDelay: 1,
  });
  client.addInterceptor(new ErrorInterceptor());
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => token,
      refreshToken: () => {
        refreshes++;
        token = `t${refreshes}`;
        return token;
      },
    }),
  );
  await assert.rejects(client.get("/x"), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 401);
    assert.equal(error.message, "still not allowed");
    return true;
  });
  assert.equal(refreshes, 1);
  assert.equal(server.requests.length, 2);
});

test("AuthInterceptor without refreshToken passes a 401 through without replay", async () => {
  await using server = await startCollector(401, {});
  const client = new HttpClient(server.url);
  client.addInterceptor(new AuthInterceptor({ getToken: () => "t" }));
  const response = await client.request("GET", "/x");
  assert.equal(response.status, 401);
  await response.body?.cancel();
  assert.equal(server.requests.length, 1);
});

test("AuthInterceptor shares one refresh among 10 concurrent calls that get 401", async () => {
  await using server = await startTestServer((request, response) => {
    if (request.headers["authorization"] === "Bearer new") {
      sendJson(response, 200, {});
    } else {
      sendJson(response, 401, {});
    }
  });
  let token = "old";
  let refreshes = 0;
  const client = new HttpClient(server.url);
  client.addInterceptor(new ErrorInterceptor());
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => token,
      refreshToken: async () => {
        refreshes++;
        await delay(30);
        token = "new";
        return token;
      },
    }),
  );
  await Promise.all(Array.from({ length: 10 }, () => client.get("/x")));
  assert.equal(refreshes, 1);
  assert.equal(server.requests.length, 20);
});

test("AuthInterceptor does not replay a call whose body is a stream", async () => {
  await using server = await startCollector(401, {});
  let refreshes = 0;
  const client = new HttpClient(server.url);
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => "t",
      refreshToken: () => {
        refreshes++;
        return "t2";
      },
    }),
  );
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("{}"));
      controller.close();
    },
  });
  const response = await client.request("POST", "/upload", { body });
  assert.equal(response.status, 401);
  await response.body?.cancel();
  assert.equal(server.requests.length, 1);
});

test("AuthInterceptor passes a refresh failure to the caller", async () => {
  await using server = await startCollector();
  const client = new HttpClient(server.url);
  const failure = new Error("refresh endpoint down");
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => "old",
      isExpired: () => true,
      refreshToken: () => Promise.reject(failure),
    }),
  );
  await assert.rejects(client.get("/x"), (error: unknown) => error === failure);
  assert.equal(server.requests.length, 0);
});

test("new AuthInterceptor() needs getToken", () => {
  assert.throws(
    () => new AuthInterceptor({} as never),
    /AuthInterceptor needs a getToken\(\) function/,
  );
});

test("StorageTokenSource reads and writes the authToken key of its storage", () => {
  const storage = new MemoryStorage();
  const tokens = new StorageTokenSource({ storage });
  assert.equal(tokens.key, "authToken");
  assert.equal(tokens.getToken(), null);
  storage.setItem("authToken", "from-storage");
  assert.equal(tokens.getToken(), "from-storage");
  tokens.setToken("abc");
  assert.equal(storage.getItem("authToken"), "abc");
  tokens.setToken(null);
  assert.equal(storage.getItem("authToken"), null);
  tokens.setToken("x");
  tokens.clear();
  assert.equal(tokens.getToken(), null);
  const custom = new StorageTokenSource({ storage, key: "other" });
  custom.setToken("y");
  assert.equal(storage.getItem("other"), "y");
});

test("StorageTokenSource uses an in-memory storage outside a browser", () => {
  const tokens = new StorageTokenSource();
  assert.ok(tokens.storage instanceof MemoryStorage);
  // Each source gets its own store: nothing shared through the process.
  tokens.setToken("one");
  assert.equal(new StorageTokenSource().getToken(), null);
});

test("StorageTokenSource uses localStorage in a browser", () => {
  const page = new MemoryStorage();
  const saved = {
    document: Object.getOwnPropertyDescriptor(globalThis, "document"),
    localStorage: Object.getOwnPropertyDescriptor(globalThis, "localStorage"),
  };
  Object.defineProperty(globalThis, "document", {
    configurable: true,
    value: {},
  });
  Object.defineProperty(globalThis, "localStorage", {
    configurable: true,
    value: page,
  });
  try {
    const tokens = new StorageTokenSource();
    assert.equal(tokens.storage, page);
  } finally {
    for (const [name, descriptor] of Object.entries(saved)) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete (globalThis as Record<string, unknown>)[name];
    }
  }
});

test("MemoryStorage implements the Storage operations", () => {
  const storage = new MemoryStorage();
  storage.setItem("a", "1");
  storage.setItem("b", 2 as unknown as string);
  assert.equal(storage.length, 2);
  assert.equal(storage.getItem("b"), "2");
  assert.equal(storage.key(0), "a");
  assert.equal(storage.key(1), "b");
  assert.equal(storage.key(2), null);
  storage.removeItem("a");
  assert.equal(storage.getItem("a"), null);
  storage.clear();
  assert.equal(storage.length, 0);
});

test("AuthInterceptor does not refresh again for a call that read the expired token before another call's refresh finished", async () => {
  await using server = await startCollector();
  let token = "expired";
  let refreshes = 0;
  let checks = 0;
  const client = new HttpClient(server.url);
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => token,
      // The second call's check is slow: the first call's refresh starts and
      // finishes while the second still holds the expired token.
      isExpired: async (value) => {
        await delay(++checks === 1 ? 0 : 80);
        return value === "expired";
      },
      refreshToken: async () => {
        refreshes++;
        await delay(10);
        token = `fresh-${refreshes}`;
      },
    }),
  );
  await Promise.all([client.get("/a"), client.get("/b")]);
  assert.equal(refreshes, 1);
  assert.deepEqual(
    server.requests.map((r) => r.headers["authorization"]),
    ["Bearer fresh-1", "Bearer fresh-1"],
  );
});

test("AuthInterceptor does not refresh again on a 401 when another call's refresh finished while this one read the token", async () => {
  await using server = await startTestServer((request, response) => {
    if (request.headers["authorization"] === "Bearer new") {
      sendJson(response, 200, {});
    } else {
      sendJson(response, 401, {});
    }
  });
  let token = "old";
  let refreshes = 0;
  // getToken reads the token at once but answers after a delay: the first
  // two reads (the requests) and the next one are quick, the fourth slow.
  const delays = [0, 0, 0, 80];
  const client = new HttpClient(server.url);
  client.addInterceptor(
    new AuthInterceptor({
      getToken: () => {
        const value = token;
        return delay(delays.shift() ?? 0).then(() => value);
      },
      refreshToken: async () => {
        refreshes++;
        await delay(10);
        token = "new";
        return token;
      },
    }),
  );
  const responses = await Promise.all([
    client.request("GET", "/a"),
    client.request("GET", "/b"),
  ]);
  for (const response of responses) await response.body?.cancel();
  assert.deepEqual(responses.map((r) => r.status), [200, 200]);
  assert.equal(refreshes, 1);
  assert.equal(server.requests.length, 4);
});
