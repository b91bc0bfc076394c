// X-Request-ID on what the host's server writes, whichever way the response
// was made (on Node.js the server may write it on the connection itself).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Application } from "../../platform/mod.ts";
import { send } from "./_serve_support.ts";

describe("serve: X-Request-ID", () => {
  it("writes the request's id over any the handler set, once", async () => {
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
      const fresh = await send(app.url!, "/");
      assert.match(String(fresh.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
      assert.equal(fresh.headers["content-type"], "text/x");
      assert.equal(fresh.body, "d");
    } finally {
      await app.stop();
    }
  });
});
