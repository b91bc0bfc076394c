import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type HttpCallContext,
  HttpClient,
  type HttpInterceptor,
} from "../../http/mod.ts";
import {
  sendJson,
  startCollector,
  startTestServer,
} from "../_support/http_server.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("HttpClient runs intercept in the order added and onResponse in reverse order, awaiting async ones", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { trail: request.headers["x-trail"] })
  );
  const log: string[] = [];
  const named = (name: string, wait: number): HttpInterceptor => ({
    async intercept(request) {
      await delay(wait);
      log.push(`intercept ${name}`);
      const trail = request.headers.get("x-trail");
      request.headers.set("x-trail", trail ? `${trail},${name}` : name);
      return request;
    },
    async onResponse(response) {
      await delay(wait);
      log.push(`onResponse ${name}`);
      return response;
    },
  });
  const client = new HttpClient(server.url);
  client.addInterceptor(named("a", 15)).addInterceptor(named("b", 1))
    .addInterceptor(named("c", 5));
  assert.deepEqual(await client.get("/x"), { trail: "a,b,c" });
  assert.deepEqual(log, [
    "intercept a",
    "intercept b",
    "intercept c",
    "onResponse c",
    "onResponse b",
    "onResponse a",
  ]);
});

test("HttpClient interceptors may return a new Request and a new Response", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { url: request.url, tag: request.headers["x-tag"] })
  );
  const client = new HttpClient(server.url);
  client.addInterceptor({
    intercept(request) {
      return new Request(request.url.replace("/old", "/new"), {
        method: request.method,
        headers: { ...Object.fromEntries(request.headers), "x-tag": "swapped" },
      });
    },
    async onResponse(response) {
      const body = await response.json();
      return Response.json({ ...body, wrapped: true }, { status: 200 });
    },
  });
  assert.deepEqual(await client.get("/old/path"), {
    url: "/new/path",
    tag: "swapped",
    wrapped: true,
  });
});

test("HttpClient interceptor that returns nothing keeps the request and response", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { tag: request.headers["x-tag"] })
  );
  const client = new HttpClient(server.url);
  client.addInterceptor({
    intercept(request) {
      request.headers.set("x-tag", "in-place");
    },
    onResponse() {},
  });
  assert.deepEqual(await client.get("/x"), { tag: "in-place" });
});

test("HttpClient runs intercept before every attempt, retries included, with the attempt number", async () => {
  let seen = 0;
  await using server = await startTestServer((request, response) => {
    seen++;
    if (seen < 3) sendJson(response, 503, {});
    else sendJson(response, 200, { attempt: request.headers["x-attempt"] });
  });
  const attempts: number[] = [];
  const responses: number[] = [];
  const client = new HttpClient(server.url, { retryDelay: 1 });
  client.addInterceptor({
    intercept(request, context) {
      attempts.push(context.attempt);
      // Each attempt starts from a fresh request: no header left over.
      assert.equal(request.headers.get("x-attempt"), null);
      request.headers.set("x-attempt", String(context.attempt));
      return request;
    },
    onResponse(response) {
      responses.push(response.status);
      return response;
    },
  });
  assert.deepEqual(await client.get("/x"), { attempt: "3" });
  assert.deepEqual(attempts, [1, 2, 3]);
  // Retried responses are discarded before onResponse.
  assert.deepEqual(responses, [200]);
  assert.deepEqual(server.requests.map((r) => r.headers["x-attempt"]), [
    "1",
    "2",
    "3",
  ]);
});

test("HttpClient passes the call context to interceptors and keeps its state across attempts", async () => {
  let seen = 0;
  await using server = await startTestServer((_request, response) => {
    seen++;
    sendJson(response, seen === 1 ? 500 : 200, {});
  });
  const contexts: HttpCallContext[] = [];
  const client = new HttpClient(server.url, { retryDelay: 1 });
  const controller = new AbortController();
  client.addInterceptor({
    intercept(request, context) {
      contexts.push(context);
      context.state.set(
        "count",
        ((context.state.get("count") as number) ?? 0) + 1,
      );
      return request;
    },
  });
  await client.get("/x", { query: { q: 1 }, signal: controller.signal });
  assert.equal(contexts.length, 2);
  assert.equal(contexts[0], contexts[1]);
  assert.equal(contexts[0].method, "GET");
  assert.equal(contexts[0].url, `${server.url}/x?q=1`);
  assert.equal(contexts[0].signal, controller.signal);
  assert.equal(contexts[0].state.get("count"), 2);
});

test("HttpClient does not retry an error thrown by an interceptor", async () => {
  await using server = await startCollector();
  let calls = 0;
  const client = new HttpClient(server.url, { retryDelay: 1 });
  const failure = new TypeError("interceptor broke");
  client.addInterceptor({
    intercept() {
      calls++;
      throw failure;
    },
  });
  await assert.rejects(client.get("/x"), (error: unknown) => error === failure);
  assert.equal(calls, 1);
  assert.equal(server.requests.length, 0);
});

test("HttpClient replays a call once when onResponse asks, never twice", async () => {
  await using server = await startCollector(409, {});
  const answers: boolean[] = [];
  const client = new HttpClient(server.url, { retryAttempts: 0 });
  client.addInterceptor({
    intercept(request) {
      return request;
    },
    onResponse(response, context) {
      answers.push(context.replay());
      return response;
    },
  });
  const response = await client.request("GET", "/x");
  assert.equal(response.status, 409);
  await response.body?.cancel();
  assert.deepEqual(answers, [true, false]);
  assert.equal(server.requests.length, 2);
});

test("HttpClient removeInterceptor() stops an interceptor for later calls", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 200, { tag: request.headers["x-tag"] ?? null })
  );
  const client = new HttpClient(server.url);
  const tagger: HttpInterceptor = {
    intercept(request) {
      request.headers.set("x-tag", "on");
      return request;
    },
  };
  client.addInterceptor(tagger);
  assert.deepEqual(await client.get("/x"), { tag: "on" });
  assert.equal(client.removeInterceptor(tagger), true);
  assert.equal(client.removeInterceptor(tagger), false);
  assert.deepEqual(await client.get("/x"), { tag: null });
});

test("HttpClient attempt timeout starts after the interceptors ran", async () => {
  await using server = await startCollector(200, { ok: true });
  const client = new HttpClient(server.url, { timeout: 500, retryAttempts: 0 });
  client.addInterceptor({
    async intercept(request) {
      await delay(700); // a slow token refresh, say
      return request;
    },
  });
  assert.deepEqual(await client.get("/x"), { ok: true });
});

test("HttpClient still times out a new Request an interceptor built without the signal", async () => {
  await using server = await startTestServer(() => {});
  const client = new HttpClient(server.url, { timeout: 50, retryAttempts: 0 });
  client.addInterceptor({
    intercept(request) {
      return new Request(request.url, { headers: request.headers });
    },
  });
  await assert.rejects(client.get("/silent"), {
    name: "TimeoutError",
    message: "Request timeout of 50ms exceeded",
  });
});

/** A promise that stays pending until `open()` or `ms` pass. */
function gate(
  ms: number,
): { wait: Promise<void>; open(): void; opened(): boolean } {
  let opened = false;
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = () => {
      opened = true;
      clearTimeout(timer);
      resolve();
    };
  });
  const timer = setTimeout(open, ms);
  return { wait, open, opened: () => opened };
}

test("HttpClient cancellation rejects with the reason while an intercept is still running", async () => {
  await using server = await startCollector();
  const slow = gate(5_000);
  const client = new HttpClient(server.url);
  client.addInterceptor({
    async intercept(request) {
      await slow.wait; // a token refresh that hangs
      return request;
    },
  });
  const controller = new AbortController();
  const reason = new Error("user left the page");
  const call = client.get("/x", { signal: controller.signal });
  await delay(20);
  controller.abort(reason);
  try {
    await assert.rejects(call, (error: unknown) => error === reason);
    assert.equal(slow.opened(), false, "rejected before the intercept ended");
  } finally {
    slow.open();
  }
  assert.equal(server.requests.length, 0);
});

test("HttpClient totalTimeout also bounds an intercept that hangs", async () => {
  await using server = await startCollector();
  const slow = gate(5_000);
  const client = new HttpClient(server.url, { totalTimeout: 50 });
  client.addInterceptor({
    async intercept(request) {
      await slow.wait;
      return request;
    },
  });
  try {
    await assert.rejects(client.get("/x"), {
      name: "TimeoutError",
      message: "Request timeout of 50ms exceeded",
    });
    assert.equal(slow.opened(), false, "rejected before the intercept ended");
  } finally {
    slow.open();
  }
  assert.equal(server.requests.length, 0);
});

test("HttpClient cancellation rejects with the reason while an onResponse is still running", async () => {
  await using server = await startCollector();
  const slow = gate(5_000);
  const client = new HttpClient(server.url);
  client.addInterceptor({
    intercept: (request) => request,
    async onResponse(response) {
      await slow.wait;
      return response;
    },
  });
  const controller = new AbortController();
  const reason = new Error("cancelled");
  const call = client.get("/x", { signal: controller.signal });
  while (server.requests.length === 0) await delay(5);
  await delay(20);
  controller.abort(reason);
  try {
    await assert.rejects(call, (error: unknown) => error === reason);
    assert.equal(slow.opened(), false, "rejected before onResponse ended");
  } finally {
    slow.open();
  }
});
