// stop() with a server, at the edges of the drain: a client that went away
// before its answer was written does not hold the stop up, and a request
// whose body is still arriving when stop() begins is read and answered in
// full while new connections are refused.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Application } from "../../platform/mod.ts";
import { openSocket, refused, RUNTIME, send, sleep } from "./_serve_support.ts";

describe("serve: stop at the edges of the drain", () => {
  it("ends at once when the client of a finished request went away mid-request", async () => {
    let answered = false;
    const app = await Application.start({
      configuration: () => ({}),
      serve: () => async () => {
        await sleep(1_000);
        answered = true;
        return new Response("late");
      },
      server: { port: 0, hostname: "127.0.0.1" },
      shutdownTimeout: 5_000,
    });
    // fetch gives up at 200 ms, as a health check client does; Node.js's
    // fetch then opens a spare connection that never sends a request.
    const client = new AbortController();
    const timer = setTimeout(() => client.abort(), 200);
    const failed = await fetch(app.url!, { signal: client.signal }).then(
      () => false,
      () => true,
    );
    clearTimeout(timer);
    assert.equal(failed, true);
    while (!answered) await sleep(20);
    await sleep(50);
    const began = Date.now();
    const report = await app.stop();
    const took = Date.now() - began;
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.ok(took < 500, `stop took ${took} ms`);
  });

  it("closes a connection that never sent a request", async () => {
    const app = await Application.start({
      configuration: () => ({}),
      serve: () => () => new Response("ok"),
      server: { port: 0, hostname: "127.0.0.1" },
      shutdownTimeout: 5_000,
    });
    const silent = await openSocket(app.url!);
    await sleep(100);
    const began = Date.now();
    const report = await app.stop();
    const took = Date.now() - began;
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.ok(took < 500, `stop took ${took} ms`);
    // Bun.serve never closes a connection that sent nothing (docs/platform.md,
    // Limits); it does not hold the stop up either.
    if (RUNTIME !== "bun") await silent.closed(1_000);
    silent.socket.destroy();
  });

  it("reads and answers a body still arriving when stop() begins (drainDelay 0), turning new requests away", async () => {
    const app = await Application.start({
      configuration: () => ({}),
      serve: () => async (request: Request) =>
        new Response(`got ${(await request.text()).length}`),
      server: { port: 0, hostname: "127.0.0.1", drainDelay: 0 },
      shutdownTimeout: 5_000,
    });
    const url = app.url!;
    const upload = await openSocket(
      url,
      "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello",
    );
    await sleep(100);
    const stopped = app.stop();
    await sleep(200);
    if (RUNTIME === "deno") {
      // Deno.serve cannot stop accepting before its shutdown, which would
      // cut the body: until then a new request is turned away.
      const late = await send(url, "/");
      assert.equal(late.status, 503);
      assert.match(String(late.headers["connection"]), /close/);
    } else {
      assert.equal(await refused(url), true, "a new connection is refused");
    }
    upload.socket.write("world");
    await upload.receivedText("got 10", 2_000);
    assert.match(upload.received(), /^HTTP\/1\.1 200/);
    const report = await stopped;
    assert.equal(report.ok, true, JSON.stringify(report));
    await upload.closed(2_000);
    assert.equal(await refused(url), true, "refused once stopped");
  });
});
