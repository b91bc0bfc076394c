// The server's limits, with real sockets: a request body limit checked on
// Content-Length and while reading (a chunked body cannot pass it), a
// header-read timeout and an idle keep-alive timeout.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { Application } from "../../platform/mod.ts";
import { runChildScript } from "../_support/child_script.ts";
import { openSocket, RUNTIME, send } from "./_serve_support.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);

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

// Eight 40 MB chunked uploads at once to a handler that reads the whole
// body: without a limit the server would hold 320 MB; with the default
// 1 MiB each read stops early. Measured in a child process (its own RSS).
const UPLOADS = `
import process from "node:process";
import { request } from "node:http";
const { Application } = await import(PLATFORM_URL);
const app = await Application.start({
  configuration: () => ({}),
  serve: () => async (r) => new Response(String((await r.arrayBuffer()).byteLength)),
  server: { port: 0, hostname: "127.0.0.1" },
});
const chunk = new Uint8Array(64 * 1024).fill(120);
const post = () => new Promise((resolve) => {
  const req = request(app.url, {
    method: "POST", agent: false, headers: { "Transfer-Encoding": "chunked" },
  }, (res) => {
    res.resume();
    res.on("end", () => resolve(res.statusCode));
  });
  req.on("error", () => resolve("closed"));
  let sent = 0;
  const pump = () => {
    while (sent < 40 * 1024 * 1024) {
      sent += chunk.length;
      if (!req.write(chunk)) return void req.once("drain", pump);
    }
    req.end();
  };
  pump();
});
const before = process.memoryUsage().rss;
const statuses = await Promise.all(Array.from({ length: 8 }, post));
const growth = (process.memoryUsage().rss - before) / 1048576;
console.log("RESULT " + JSON.stringify({ statuses, growth }));
await app.stop();
`;

describe("serve: memory under large uploads", () => {
  it("stays bounded: eight 40 MB chunked bodies grow RSS by far less than they hold", async () => {
    const { code, out } = await runChildScript(UPLOADS);
    assert.equal(code, 0, out);
    const line = out.split("\n").find((l) => l.startsWith("RESULT "));
    assert.ok(line, out);
    const { statuses, growth } = JSON.parse(line.slice(7)) as {
      statuses: (number | string)[];
      growth: number;
    };
    for (const status of statuses) {
      assert.ok(status === 413 || status === "closed", out);
    }
    assert.ok(growth < 100, `RSS grew by ${growth.toFixed(1)} MB`);
  });
});

// Deno.serve offers no header-read or keep-alive timeout; there Kit cannot
// close such sockets (docs/platform.md says so).
const timeouts = RUNTIME === "deno" ? describe.skip : describe;

// Bun.serve has one inactivity timeout, which closes idle keep-alive
// connections but neither one that never sends a byte nor one that keeps
// sending header lines. Bun checks its timeouts every 4 s, so a 1 s
// timeout fires within 4 to 8 s there.
const nodeOnly = RUNTIME === "node" ? it : it.skip;
const WITHIN = RUNTIME === "bun" ? 9_500 : 3_500;
const SLOW = { timeout: 15_000 };

timeouts("serve: connection timeouts", () => {
  nodeOnly("closes a connection that sends nothing", async () => {
    await using app = await echoApp({
      headersTimeout: 1000,
      idleTimeout: 1000,
    });
    const silent = await openSocket(app.url!);
    assert.ok(await silent.closed(3_500) >= 900);
  });

  nodeOnly(
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

  it("closes an idle keep-alive connection", SLOW, async () => {
    await using app = await echoApp({
      headersTimeout: 1000,
      idleTimeout: 1000,
    });
    const socket = await openSocket(
      app.url!,
      "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    await socket.receivedText("read 0", 2_000);
    assert.ok(await socket.closed(WITHIN) >= 900);
  });
});
