// stop() with a server: readiness turns 503 at once, requests are served for
// drainDelay, then the server stops accepting, lets the requests in flight
// finish and closes idle connections, and only then are the other hosted
// services stopped and the services disposed, all within shutdownTimeout.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Application } from "../../platform/mod.ts";
import { openSocket, refused, RUNTIME, send, sleep } from "./_serve_support.ts";

describe("serve: drain on shutdown", () => {
  it("finishes the request in flight, serves during drainDelay, refuses after close, then stops the rest", async () => {
    const events: string[] = [];
    let release: () => void = () => {};
    const app = await Application.start({
      configuration: () => ({}),
      services: (services, _config, app) => {
        app.addHostedService("worker", {
          start: () => {},
          stop: () => void events.push("worker stopped"),
        });
        services.register("store", () => ({
          dispose: () => void events.push("store disposed"),
        }), { eager: true });
      },
      serve: () => async (request: Request) => {
        if (new URL(request.url).pathname === "/slow") {
          await new Promise<void>((resolve) => release = resolve);
          events.push("slow answered");
        }
        return new Response("done");
      },
      server: { port: 0, hostname: "127.0.0.1", drainDelay: 400 },
      shutdownTimeout: 5_000,
    });
    const url = app.url!;
    const slow = send(url, "/slow");
    await sleep(50);
    const idle = await openSocket(url, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    await idle.receivedText("done", 2_000);

    const began = Date.now();
    const stopped = app.stop();
    await sleep(100);
    assert.equal((await send(url, "/health/ready")).status, 503);
    assert.equal((await send(url, "/")).body, "done", "served while draining");
    await sleep(500);
    // drainDelay is over: no new work; the slow request still runs. (Deno
    // accepts until its shutdown, which waits for the slow one: there a new
    // request is turned away.)
    if (RUNTIME === "deno") {
      const late = await send(url, "/");
      assert.equal(late.status, 503);
      assert.match(String(late.headers["connection"]), /close/);
    } else {
      assert.equal(await refused(url), true);
    }
    assert.deepEqual(events, []);
    release();
    assert.equal((await slow).body, "done");
    const report = await stopped;
    assert.equal(report.ok, true, JSON.stringify(report));
    assert.ok(Date.now() - began >= 400);
    assert.deepEqual(events, [
      "slow answered",
      "worker stopped",
      "store disposed",
    ]);
    await idle.closed(2_000);
    assert.equal(await refused(url), true);
  });

  it("gives up on a request that outlives shutdownTimeout", async () => {
    let entered!: () => void;
    const handling = new Promise<void>((resolve) => entered = resolve);
    const app = await Application.start({
      configuration: () => ({}),
      serve: () => () => {
        entered();
        return new Promise<Response>(() => {});
      },
      server: { port: 0, hostname: "127.0.0.1" },
      shutdownTimeout: 300,
    });
    const hung = send(app.url!, "/", { timeout: 1_000 }).catch((
      error: Error,
    ) => error);
    // In flight once the handler runs (a fixed sleep is too short on a
    // busy machine).
    await handling;
    const began = Date.now();
    const report = await app.stop();
    assert.ok(Date.now() - began < 2_000);
    assert.deepEqual(report.timedOut, ["server"]);
    await hung;
  });
});
