// The server's limits, with real sockets: a request body limit checked on
// Content-Length and while reading (a chunked body cannot pass it), after
// which the connection is closed, a header-read timeout and an idle
// keep-alive timeout.
import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { Application } from "../../platform/mod.ts";
import { runChildScript } from "../_support/child_script.ts";
import {
  openSocket,
  RUNTIME,
  send,
  uploadPastAnswer,
} from "./_serve_support.ts";
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

// features:maxFileUploadSize: the limit of uploads (multipart forms and raw
// bytes), server:maxBodySize staying the limit of every other body.
describe("serve: the upload limit", () => {
  async function uploadApp(
    config: Record<string, unknown>,
  ): Promise<Application> {
    return await Application.start({
      configuration: () => config,
      serve: () => async (request: Request) =>
        new Response(`read ${(await request.arrayBuffer()).byteLength}`),
      server: { port: 0, hostname: "127.0.0.1", maxBodySize: 1024 },
    });
  }

  it("gives multipart/form-data and application/octet-stream bodies features:maxFileUploadSize", async () => {
    await using app = await uploadApp({
      features: { maxFileUploadSize: 4096 },
    });
    const json = await send(app.url!, "/", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "x".repeat(2000),
    });
    assert.equal(json.status, 413);
    assert.deepEqual(JSON.parse(json.body), {
      message:
        "The request body is larger than the limit of 1024 bytes (server:maxBodySize)",
    });
    const form = await send(app.url!, "/", {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=x" },
      body: "x".repeat(2000),
    });
    assert.equal(form.body, "read 2000");
    const bytes = await send(app.url!, "/", {
      method: "POST",
      headers: { "Content-Type": "application/octet-stream" },
      body: new Uint8Array(5000),
    });
    assert.equal(bytes.status, 413);
    assert.deepEqual(JSON.parse(bytes.body), {
      message:
        "The request body is larger than the limit of 4096 bytes (features:maxFileUploadSize)",
    });
  });

  it("counts a chunked upload as it is read", async () => {
    await using app = await uploadApp({
      features: { maxFileUploadSize: "4096" },
    });
    const { hostname, port } = new URL(app.url!);
    const answer = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const request = httpRequest({
          hostname,
          port,
          method: "POST",
          path: "/",
          headers: { "Content-Type": "application/octet-stream" },
          agent: false,
        }, (response) => {
          let body = "";
          response.on(
            "data",
            (chunk: Uint8Array) => body += new TextDecoder().decode(chunk),
          );
          response.on(
            "end",
            () => resolve({ status: response.statusCode!, body }),
          );
        });
        request.on("error", reject);
        for (let i = 0; i < 10; i++) request.write(new Uint8Array(1000));
        request.end();
      },
    );
    assert.equal(answer.status, 413);
    assert.match(answer.body, /4096 bytes \(features:maxFileUploadSize\)/);
  });

  it("fails start-up on a bad value, naming the key and its source", async () => {
    await assert.rejects(
      uploadApp({ features: { maxFileUploadSize: "1e999" } }),
      /features:maxFileUploadSize must be a whole number from 1 to 9007199254740991: "1e999" \(from the configuration\)/,
    );
  });
});

// After a 413 the server reads no more of the body: it closes the
// connection, so a client that goes on sending (a 4 GB upload) is stopped
// at once instead of being read to its end.
describe("serve: the connection after a 413", () => {
  const MiB = 1024 * 1024;
  for (
    const [name, header, chunked] of [
      ["a Content-Length of 4 GB", "Content-Length: 4294967296", false],
      ["a chunked body past the limit", "Transfer-Encoding: chunked", true],
    ] as const
  ) {
    it(`is closed after the 413 to ${name}, the rest of the body unread`, async () => {
      await using app = await echoApp({ maxBodySize: 1024 });
      const result = await uploadPastAnswer(
        app.url!,
        `POST / HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n`,
        // Past 256 MiB accepted after the answer, the server is reading on.
        { chunked, cap: 256 * MiB, within: 20_000 },
      );
      assert.match(result.statusLine, /^HTTP\/1\.1 413 /);
      assert.ok(
        result.closed,
        `still open after ${result.bytesAfter} bytes accepted in ${result.ms} ms`,
      );
      // What the socket buffers of both ends hold, at most.
      assert.ok(
        result.bytesAfter < 16 * MiB,
        `${result.bytesAfter} bytes accepted after the answer`,
      );
    });
  }
});

describe("serve: the request a handler gets behind the body limit", () => {
  it(
    "carries the client's signal: it aborts when the client goes away mid-body",
    {
      // Deno.serve does not abort request.signal when a client goes away
      // while its body is arriving (with or without Kit).
      skip: RUNTIME === "deno" ? "Deno.serve does not abort it" : false,
    },
    async () => {
      let started!: () => void;
      const reading = new Promise<void>((resolve) => started = resolve);
      let seen!: (aborted: boolean) => void;
      const outcome = new Promise<boolean>((resolve) => seen = resolve);
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => ({ debug() {}, info() {}, warning() {}, error() {} }),
        serve: () => async (request: Request) => {
          const signal = request.signal;
          const aborted = new Promise<boolean>((resolve) => {
            signal.addEventListener("abort", () => resolve(true), {
              once: true,
            });
            setTimeout(() => resolve(false), 5_000);
          });
          started();
          seen(await aborted);
          return new Response("done");
        },
        server: { port: 0, hostname: "127.0.0.1" },
      });
      const client = await openSocket(
        app.url!,
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n",
      );
      await reading;
      client.socket.destroy();
      assert.equal(await outcome, true, "request.signal did not abort");
    },
  );
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
