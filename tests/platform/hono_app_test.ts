// kit(hono): what the handler form adds to tests/platform/hono_test.ts (which
// runs every behaviour for both forms): the route named from Hono's router
// after the response (middleware patterns, sub-apps, HEAD, a 404 under a
// middleware's pattern), looked up only when the access line or a span is
// written; served by the host's own server on loopback; no middleware added;
// an error handler of the app's own set after it; the runtime's arguments
// reaching Hono; a wrong argument refused.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import { Application, type ApplicationLogger } from "../../platform/mod.ts";
import { kit } from "@vendor/kit-platform/hono";
import { send } from "./_serve_support.ts";

interface Line {
  level: string;
  message: string;
  properties?: Record<string, unknown>;
}

// A logger recording its lines; `info: false` puts the access line below
// its level, as a production app at "warning" has it.
function recording(
  lines: Line[],
  info = true,
): { getLogger(): ApplicationLogger } {
  const write =
    (level: string) =>
    (message: string, properties?: Record<string, unknown>): void => {
      lines.push({ level, message, properties });
    };
  return {
    getLogger: () => ({
      debug: write("debug"),
      info: write("info"),
      warning: write("warning"),
      error: write("error"),
      isEnabled: (level) => level >= (info ? 1 : 2),
    }),
  };
}

// Counts the router's lookups: Hono's own, one per request, and Kit's.
function countMatches(hono: Hono): { count: number } {
  const counter = { count: 0 };
  const router = hono.router;
  const match = router.match.bind(router);
  router.match = (method, path) => {
    counter.count++;
    return match(method, path);
  };
  return counter;
}

describe("kit(hono)", () => {
  it("names the route that answered: not a middleware's pattern, sub-apps by their full path, HEAD as GET, none for a 404", async () => {
    const lines: Line[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recording(lines),
    });
    const hono = new Hono();
    hono.use(async (_c, next) => {
      await next();
    });
    hono.use("/api/*", async (_c, next) => {
      await next();
    });
    hono.get("/api/users/:id", (c) => c.json({ id: c.req.param("id") }));
    hono.get("/files/*", (c) => c.text("file"));
    const admin = new Hono();
    admin.get("/reports/:year", (c) => c.text(c.req.param("year")));
    hono.route("/admin", admin);
    const handle = app.handle(kit(hono));
    const paths = [
      ["GET", "/api/users/7"],
      ["HEAD", "/api/users/8"],
      ["GET", "/files/a/b.txt"],
      ["GET", "/admin/reports/2026"],
      ["GET", "/api/nothing"],
    ];
    for (const [method, path] of paths) {
      const response = await handle(
        new Request(`http://localhost${path}`, { method }),
      );
      await response.body?.cancel();
    }
    const access = lines.filter((line) => line.level === "info").slice(-5);
    assert.deepEqual(
      access.map((line) => [line.properties?.status, line.properties?.route]),
      [
        [200, "/api/users/:id"],
        [200, "/api/users/:id"],
        [200, "/files/*"],
        [200, "/admin/reports/:year"],
        [404, undefined],
      ],
    );
  });

  it("looks the route up only when the access line or a span is written", async () => {
    for (const info of [false, true]) {
      const lines: Line[] = [];
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording(lines, info),
      });
      const hono = new Hono();
      hono.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
      const handle = app.handle(kit(hono));
      // Hono's router builds its matcher on the first request, replacing
      // its match method: counted from the second.
      await (await handle(new Request("http://localhost/users/0"))).text();
      const matches = countMatches(hono);
      for (let i = 0; i < 3; i++) {
        await (await handle(new Request(`http://localhost/users/${i}`)))
          .text();
      }
      // Hono's own lookup per request, and Kit's when the line is written.
      assert.equal(matches.count, info ? 6 : 3, `access line ${info}`);
      assert.equal(
        lines.filter((line) => line.properties?.route === "/users/:id")
          .length,
        info ? 4 : 0,
      );
    }
  });

  it("adds no middleware: the app's routes are the ones it registered", () => {
    const hono = new Hono();
    hono.get("/a", (c) => c.text("a"));
    const before = hono.routes.map((route) => `${route.method} ${route.path}`);
    kit(hono);
    assert.deepEqual(
      hono.routes.map((route) => `${route.method} ${route.path}`),
      before,
    );
  });

  it("is served by the host's own server, with route names and Kit's 500", async () => {
    const lines: Line[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recording(lines),
      serve: () => {
        const hono = new Hono();
        hono.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
        hono.post("/users", async (c) => c.json(await c.req.json(), 201));
        hono.get("/boom", () => {
          throw new Error("token=hunter2 refused");
        });
        return kit(hono);
      },
      server: { port: 0, hostname: "127.0.0.1" },
    });
    const ok = await send(app.url!, "/users/3");
    assert.equal(ok.status, 200);
    assert.equal(ok.body, '{"id":"3"}');
    // A request with a body goes through the server's body limit first.
    const created = await send(app.url!, "/users", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"name":"Ada"}',
    });
    assert.equal(created.status, 201);
    const failed = await send(app.url!, "/boom", {
      headers: { "X-Request-ID": "req-boom" },
    });
    assert.equal(failed.status, 500);
    assert.deepEqual(JSON.parse(failed.body), {
      message: "Internal Server Error",
      requestId: "req-boom",
    });
    assert.doesNotMatch(failed.body, /hunter2/);
    const routes = lines.filter((line) =>
      line.level === "info" && line.properties?.status
    )
      .map((line) => line.properties?.route);
    assert.deepEqual(routes, ["/users/:id", "/users", "/boom"]);
    const errors = lines.filter((line) => line.level === "error");
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /^GET \/boom failed: /);
    assert.equal(errors[0].properties?.requestId, "req-boom");
  });

  it("leaves errors to an error handler of the app's own set after it", async () => {
    const lines: Line[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recording(lines),
    });
    const hono = new Hono();
    hono.get("/boom", () => {
      throw new Error("mine");
    });
    const handle = app.handle(kit(hono));
    hono.onError((error, c) => c.text(`handled: ${error.message}`, 503));
    const response = await handle(new Request("http://localhost/boom"));
    assert.equal(response.status, 503);
    assert.equal(await response.text(), "handled: mine");
    assert.deepEqual(lines.filter((line) => line.level === "error"), []);
  });

  it("passes the runtime's arguments on to Hono (c.env)", async () => {
    await using app = await Application.start({ configuration: () => ({}) });
    const hono = new Hono<{ Bindings: { region: string } }>();
    hono.get("/where", (c) => c.text(c.env.region));
    const handle = app.handle(kit(hono));
    const response = await handle(new Request("http://localhost/where"), {
      region: "eu-west",
    });
    assert.equal(await response.text(), "eu-west");
  });

  it("refuses what is not a Hono app, saying what to pass", () => {
    for (const wrong of [{}, { fetch: () => new Response() }, null]) {
      assert.throws(
        () => kit(wrong as unknown as Hono),
        new TypeError(
          "kit(hono): pass a Hono app (new Hono() from the hono package); for the middleware, call kit() with no argument",
        ),
      );
    }
  });
});
