// X-Request-ID on what the host's server writes, whichever way the response
// was made (on Node.js the server may write it on the connection itself).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Application, RequestContext } from "../../platform/mod.ts";
import { type LogEntry, LoggerManager } from "../../logging/mod.ts";
import { openSocket, send } from "./_serve_support.ts";

describe("serve: X-Request-ID", () => {
  it("writes the request's id over any the handler set, once", async () => {
    // One headers object for every response, as a handler may keep.
    const shared = { "content-type": "text/y" };
    const app = await Application.start({
      configuration: () => ({}),
      serve: () => (request: Request) => {
        const path = new URL(request.url).pathname;
        if (path === "/plain") {
          return new Response("a", { headers: { "x-request-ID": "mine" } });
        }
        if (path === "/headers") {
          return new Response("b", {
            headers: new Headers({ "X-Request-ID": "mine" }),
          });
        }
        if (path === "/set") {
          const response = new Response("c");
          response.headers.set("X-Request-ID", "mine");
          return response;
        }
        if (path === "/shared") return new Response("e", { headers: shared });
        if (path === "/async") {
          return Promise.resolve(new Response(null, { status: 204 }));
        }
        return new Response("d", { headers: { "content-type": "text/x" } });
      },
      server: { port: 0, hostname: "127.0.0.1" },
    });
    try {
      for (const path of ["/plain", "/headers", "/set", "/async", "/"]) {
        const answer = await send(app.url!, path, {
          headers: { "X-Request-ID": "given-1" },
        });
        assert.equal(answer.headers["x-request-id"], "given-1", path);
      }
      const first = await send(app.url!, "/shared");
      const second = await send(app.url!, "/shared");
      assert.match(String(first.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
      assert.match(String(second.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
      assert.notEqual(
        first.headers["x-request-id"],
        second.headers["x-request-id"],
      );
      assert.equal(second.headers["content-type"], "text/y");
      assert.deepEqual(shared, { "content-type": "text/y" });
      const fresh = await send(app.url!, "/");
      assert.match(String(fresh.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
      assert.equal(fresh.headers["content-type"], "text/x");
      assert.equal(fresh.body, "d");
    } finally {
      await app.stop();
    }
  });

  // The host answers a handler that returns a Response at once in the same
  // turn, and on Node.js reads X-Request-ID from the connection's raw header
  // lines: the context and the id must be the same as on the slow path.
  it("runs a handler that answers at once in the request's context, and what it starts", async () => {
    const entries: LogEntry[] = [];
    const manager = new LoggerManager().configure({
      // The access line is below the level, as in production.
      level: "warning",
      providers: [{
        log: (entry) => {
          entries.push(entry);
          return Promise.resolve();
        },
        isEnabled: () => true,
      }],
    });
    const seen: Record<string, string | undefined> = {};
    let later!: Promise<void>;
    const app = await Application.start({
      configuration: () => ({}),
      logging: () => manager,
      serve: () => (request: Request) => {
        const path = new URL(request.url).pathname;
        const id = RequestContext.current()?.requestId;
        seen[path] = id;
        manager.getLogger("handler").warning(`in ${path}`);
        if (path === "/later") {
          // Started by the request, run after its response was written.
          later = new Promise<void>((done) =>
            setTimeout(() => {
              seen.timer = RequestContext.current()?.requestId;
              manager.getLogger("handler").warning("after the response");
              done();
            }, 20)
          );
          Promise.resolve().then(() => {
            seen.microtask = RequestContext.current()?.requestId;
          });
        }
        return new Response(id ?? "none");
      },
      server: { port: 0, hostname: "127.0.0.1" },
    });
    try {
      const given = await send(app.url!, "/later", {
        headers: { "x-Request-Id": "given-2" },
      });
      assert.equal(given.body, "given-2");
      assert.equal(given.headers["x-request-id"], "given-2");
      await later;
      assert.equal(seen.timer, "given-2");
      assert.equal(seen.microtask, "given-2");

      const fresh = await send(app.url!, "/fresh");
      assert.match(fresh.body, /^[0-9a-f-]{36}$/);
      assert.equal(fresh.headers["x-request-id"], fresh.body);

      // Two X-Request-ID lines read as one joined value, which is not a
      // sane id: a new one is made, as for a request built by hand.
      const socket = await openSocket(
        app.url!,
        "GET /twice HTTP/1.1\r\nHost: localhost\r\nX-Request-ID: a-1\r\n" +
          "x-request-id: b-2\r\nConnection: close\r\n\r\n",
      );
      await socket.closed(5000);
      const twice = /^x-request-id: (.*)\r$/im.exec(socket.received())?.[1];
      assert.match(String(twice), /^[0-9a-f-]{36}$/);
      assert.equal(seen["/twice"], twice);

      const ids = (message: string): (string | undefined)[] =>
        entries.filter((entry) => entry.message === message)
          .map((entry) => entry.requestId);
      assert.deepEqual(ids("in /later"), ["given-2"]);
      assert.deepEqual(ids("after the response"), ["given-2"]);
      assert.deepEqual(ids("in /fresh"), [fresh.body]);
      assert.deepEqual(ids("in /twice"), [twice]);
    } finally {
      await app.stop();
    }
  });
});
