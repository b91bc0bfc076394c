// HttpClient sends the request id of the RequestContext it runs in as
// X-Request-ID; an explicit header wins; ErrorInterceptor generates one only
// outside a context.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorInterceptor, HttpClient, HttpError } from "../../http/mod.ts";
import { RequestContext } from "../../platform/mod.ts";
import { sendJson, startTestServer } from "../_support/http_server.ts";

const echoId = startTestServer.bind(undefined, (request, response) => {
  // Answer out of order, so that concurrent calls interleave.
  setTimeout(
    () => sendJson(response, 200, { id: request.headers["x-request-id"] }),
    Math.floor(Math.random() * 20),
  );
});

test("HttpClient: 100 concurrent contexts each send their own X-Request-ID", async () => {
  await using server = await echoId();
  const client = new HttpClient(server.url);
  const ids = Array.from({ length: 100 }, (_, i) => `req-${i}`);
  const seen = await Promise.all(
    ids.map((requestId) =>
      RequestContext.run({ requestId }, async () => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
        const first = await client.get<{ id: string }>("/a");
        const second = await client.get<{ id: string }>("/b");
        return [first.id, second.id];
      })
    ),
  );
  assert.deepEqual(seen, ids.map((id) => [id, id]));
  assert.equal(server.requests.length, 200);
});

test("HttpClient: no X-Request-ID outside a context, an explicit one wins inside", async () => {
  await using server = await echoId();
  const client = new HttpClient(server.url);
  assert.deepEqual(await client.get("/"), {});
  const explicit = await RequestContext.run(
    { requestId: "from-context" },
    () => client.get("/", { headers: { "X-Request-ID": "explicit" } }),
  );
  assert.deepEqual(explicit, { id: "explicit" });
  const clientWide = new HttpClient(server.url, {
    headers: { "x-request-id": "client-wide" },
  });
  assert.deepEqual(
    await RequestContext.run(
      { requestId: "from-context" },
      () => clientWide.get("/"),
    ),
    { id: "client-wide" },
  );
});

test("HttpClient: the context's id beats ErrorInterceptor's generated one and reaches HttpError", async () => {
  await using server = await startTestServer((request, response) =>
    sendJson(response, 404, {
      message: "gone",
      id: request.headers["x-request-id"],
    })
  );
  const client = new HttpClient(server.url, { retryAttempts: 0 })
    .addInterceptor(new ErrorInterceptor({ generateId: () => "generated" }));
  await assert.rejects(
    RequestContext.run({ requestId: "ctx-7" }, () => client.get("/x")),
    (error: unknown) =>
      error instanceof HttpError && error.requestId === "ctx-7" &&
      (error.body as { id: string }).id === "ctx-7",
  );
  await assert.rejects(
    client.get("/x"),
    (error: unknown) =>
      error instanceof HttpError && error.requestId === "generated",
  );
  // Without ErrorInterceptor the JSON methods' HttpError carries it too.
  const bare = new HttpClient(server.url, { retryAttempts: 0 });
  await assert.rejects(
    RequestContext.run({ requestId: "ctx-8" }, () => bare.get("/x")),
    (error: unknown) =>
      error instanceof HttpError && error.requestId === "ctx-8",
  );
});
