// The server's limits, with real sockets: a request body limit checked on
// Content-Length and while reading (a chunked body cannot pass it), a
// header-read timeout and an idle keep-alive timeout.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { Application } from "../../platform/mod.ts";
import { openSocket, RUNTIME, send } from "./_serve_support.ts";

async function echoApp(
  server: Record<string, unknown> = {},
): Promise<Application> {
  return await Application.start({
    configuration: () => ({}),
    serve: () => async (request: Request) => {
      try {
        const body = await request.arrayBuffer();
        return new Response(`read ${body.byteLength}`);
      } catch {
        // An application that turns a failed read into its own answer.
        return new Response("could not read", { status: 400 });
      }
    },
    server: { port: 0, hostname: "127.0.0.1", ...server },
  });
}

describe("serve: request body limit", () => {
  it("passes a body within the limit", async () => {
    await using app = await echoApp({ maxBodySize: 1024 });
    const answer = await send(app.url!, "/", {
      method: "POST",
      body: "x".repeat(1024),
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, "read 1024");
  });

  it("answers 413 with a JSON message when Content-Length is over the limit", async () => {
    await using app = await echoApp({ maxBodySize: 1024 });
    const answer = await send(app.url!, "/", {
      method: "POST",
      body: "x".repeat(1025),
    });
    assert.equal(answer.status, 413);
    assert.deepEqual(JSON.parse(answer.body), {
      message:
        "The request body is larger than the limit of 1024 bytes (server:maxBodySize)",
    });
  });

  it("answers 413 to a chunked body that grows past the limit, whatever the handler did with the failed read", async () => {
    await using app = await echoApp({ maxBodySize: 1024 });
    const { hostname, port } = new URL(app.url!);
    const answer = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const request = httpRequest({
          hostname,
          port,
          method: "POST",
          path: "/",
          agent: false,
          headers: { "Transfer-Encoding": "chunked" },
        }, (response) => {
          let body = "";
          response.on("data", (chunk) => body += chunk);
          response.on(
            "end",
            () => resolve({ status: response.statusCode!, body }),
          );
        });
        request.on("error", reject);
        for (let i = 0; i < 8; i++) request.write("y".repeat(512));
        request.end();
      },
    );
    assert.equal(answer.status, 413);
    assert.match(JSON.parse(answer.body).message, /limit of 1024 bytes/);
  });

  it("defaults to 1 MiB", async () => {
    await using app = await echoApp();
    const within = await send(app.url!, "/", {
      method: "POST",
      body: new Uint8Array(1024 * 1024),
    });
    assert.equal(within.body, "read 1048576");
    const over = await send(app.url!, "/", {
      method: "POST",
      body: new Uint8Array(1024 * 1024 + 1),
    });
    assert.equal(over.status, 413);
  });
});

// Deno.serve offers no header-read or keep-alive timeout; there Kit cannot
// close such sockets (docs/platform.md says so).
const timeouts = RUNTIME === "deno" ? describe.skip : describe;

// Bun.serve has one inactivity timeout: a client that keeps sending header
// lines resets it.
const trickle = RUNTIME === "node" ? it : it.skip;

timeouts("serve: connection timeouts", () => {
  it("closes a connection that sends nothing", async () => {
    await using app = await echoApp({
      headersTimeout: 1000,
      idleTimeout: 1000,
    });
    const silent = await openSocket(app.url!);
    assert.ok(await silent.closed(3_500) >= 900);
  });

  trickle(
    "closes a connection whose headers do not arrive in time",
    async () => {
      await using app = await echoApp({
        headersTimeout: 1000,
        idleTimeout: 1000,
      });
      const slow = await openSocket(app.url!, "GET / HTTP/1.1\r\nHost: x\r\n");
      // Keeps sending, a header line at a time, never ending the headers.
      const drip = setInterval(() => slow.socket.write("X-Slow: 1\r\n"), 200);
      try {
        assert.ok(await slow.closed(3_500) < 3_500);
        assert.match(slow.received(), /^HTTP\/1\.1 408/);
      } finally {
        clearInterval(drip);
      }
    },
  );

  it("closes an idle keep-alive connection", async () => {
    await using app = await echoApp({
      headersTimeout: 1000,
      idleTimeout: 1000,
    });
    const socket = await openSocket(
      app.url!,
      "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    await socket.receivedText("read 0", 2_000);
    assert.ok(await socket.closed(3_500) >= 900);
  });
});
