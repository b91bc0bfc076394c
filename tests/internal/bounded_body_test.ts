// Kit's one response body reader against real loopback servers: an endless
// body stops at the limit and is cancelled (the server sees its connection
// close), a Content-Length above the limit is refused before reading, the
// error names the address with its secrets masked, the start of a body is
// cut at the limit, and a signal ends a body that stalls.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import {
  BodyTooLargeError,
  readBodyBytes,
  readBodyStart,
  readBodyText,
} from "../../internal/bounded_body.ts";
import { startTestServer } from "../_support/http_server.ts";
import { waitFor } from "../_support/wait_for.ts";

const MiB = 1024 * 1024;

// Writes 64 KiB chunks without end (chunked), honouring backpressure until
// the client goes; `state` counts what was handed over and sees the close.
function endless(
  response: ServerResponse,
  state: { sent: number; closed: boolean },
): void {
  response.writeHead(200, { "content-type": "application/octet-stream" });
  const chunk = "x".repeat(64 * 1024);
  response.on("close", () => {
    state.closed = true;
  });
  const next = (): void => {
    while (!state.closed) {
      state.sent += chunk.length;
      if (!response.write(chunk)) {
        response.once("drain", next);
        return;
      }
    }
  };
  next();
}

describe("readBodyText() and readBodyBytes()", () => {
  it("stop an endless body one byte past the limit and cancel the rest, naming the address with its secrets masked", async () => {
    const state = { sent: 0, closed: false };
    await using server = await startTestServer((_request, response) =>
      endless(response, state)
    );
    const response = await fetch(`${server.url}/feed`);
    const shown =
      `http://reader:pw-0123456789@127.0.0.1/feed?token=abcdef123456&lang=de`;
    const error = await readBodyText(response, { limit: MiB, url: shown })
      .then(() => assert.fail("read"), (error: unknown) => error);
    assert.ok(error instanceof BodyTooLargeError);
    assert.equal(error.limit, MiB);
    assert.equal(error.declared, false);
    // Past the limit by at most what one read hands over: a 64 KiB block of
    // ours where the body is a byte stream, else the runtime's chunk.
    assert.ok(error.size > MiB && error.size < 2 * MiB, `${error.size}`);
    assert.equal(
      error.message,
      `The body from http://reader:***@127.0.0.1/feed?token=***&lang=de is larger than the limit of ${MiB} bytes: more than ${MiB} bytes arrived`,
    );
    assert.ok(!error.message.includes("pw-0123456789"));
    assert.ok(!error.message.includes("abcdef123456"));
    // Cancelled: the connection closes, and the server stops writing.
    await waitFor(() => state.closed, "the server to see the body cancelled");
    assert.ok(state.sent < 32 * MiB, `${state.sent} bytes sent`);
  });

  it("refuse a Content-Length above the limit before reading, with the response's own address by default", async () => {
    await using server = await startTestServer((_request, response) => {
      response.writeHead(200, { "content-length": String(200 * MiB) });
      response.write("{"); // and never more: reading would wait for ever
    });
    const response = await fetch(`${server.url}/big`);
    await assert.rejects(readBodyBytes(response, { limit: MiB }), (error) => {
      assert.ok(error instanceof BodyTooLargeError);
      assert.equal(error.declared, true);
      assert.equal(error.size, 200 * MiB);
      assert.equal(error.url, `${server.url}/big`);
      assert.match(error.message, /its Content-Length is 209715200 bytes$/);
      return true;
    });
  });

  it("read a body of exactly the limit, and any body with no limit", async () => {
    const text = "é".repeat(500); // 1000 bytes
    await using server = await startTestServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      // Two writes: chunked, no Content-Length to check up front.
      response.write(text.slice(0, 10));
      response.end(text.slice(10));
    });
    assert.equal(
      await readBodyText(await fetch(server.url), { limit: 1000 }),
      text,
    );
    assert.equal(
      await readBodyText(await fetch(server.url), { limit: Infinity }),
      text,
    );
    await assert.rejects(
      readBodyText(await fetch(server.url), {
        limit: 999,
        tooLarge: (error) => new RangeError(`mine: ${error.size}`),
      }),
      { name: "RangeError", message: "mine: 1000" },
    );
  });

  it("end a stalled body when the signal aborts, with its reason", async () => {
    let closed = false;
    await using server = await startTestServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("start"); // then nothing
      response.on("close", () => {
        closed = true;
      });
    });
    const response = await fetch(server.url);
    const controller = new AbortController();
    const reading = readBodyText(response, {
      limit: MiB,
      signal: controller.signal,
    });
    controller.abort(new Error("too slow"));
    await assert.rejects(reading, { message: "too slow" });
    await waitFor(() => closed, "the server to see the body cancelled");
  });
});

describe("readBodyStart()", () => {
  it("keeps the first bytes of an endless body and cancels the rest", async () => {
    const state = { sent: 0, closed: false };
    await using server = await startTestServer((_request, response) =>
      endless(response, state)
    );
    const start = await readBodyStart(await fetch(server.url), 1000);
    assert.equal(start.text, "x".repeat(1000));
    assert.equal(start.truncated, true);
    await waitFor(() => state.closed, "the server to see the body cancelled");
  });

  it("reads a short body whole, and never throws", async () => {
    await using server = await startTestServer((_request, response) => {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end("oops");
    });
    assert.deepEqual(await readBodyStart(await fetch(server.url), 1000), {
      text: "oops",
      truncated: false,
    });
    // What arrived before the connection broke is kept.
    let pulls = 0;
    const broken = new Response(
      new ReadableStream({
        pull(controller) {
          if (pulls++ === 0) {
            controller.enqueue(new TextEncoder().encode("half"));
          } else controller.error(new Error("connection reset"));
        },
      }, { highWaterMark: 0 }),
    );
    assert.deepEqual(await readBodyStart(broken, 1000), {
      text: "half",
      truncated: false,
    });
  });
});
