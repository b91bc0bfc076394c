// kit(hono): what the handler form adds to tests/platform/hono_test.ts (which
// runs every behaviour for both forms): the route named from Hono's router
// after the response (overlapping routes, middleware patterns, sub-apps,
// mounted apps, HEAD, a 404 under a middleware's pattern), looked up only
// when the access line or a span is written, and once; served by the host's
// own server on loopback; no middleware added; an error handler of the
// app's own, set after it or by a subclass; errors outside app.handle(); the
// runtime's arguments reaching Hono; a wrong argument refused.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Context, Hono } from "hono";
import { Application, type ApplicationLogger } from "../../platform/mod.ts";
import { kit } from "@vendor/kit-platform/hono";
import { send } from "./_serve_support.ts";
import { installOtelSdk } from "../_support/otel_sdk.ts";

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
  it("names the route that answered: the first that names one path, not a middleware's pattern, sub-apps by their full path, HEAD as GET, none for a 404", async () => {
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
    // Hono answers /users/me with the first of these, and /api/users
    // before its fallback.
    hono.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
    hono.get("/users/me", (c) => c.text("never reached"));
    hono.get("/api/users", (c) => c.json([]));
    hono.get("/api/*", (c) => c.text("fallback"));
    hono.get("/files/*", (c) => c.text("file"));
    const admin = new Hono();
    admin.get("/reports/:year", (c) => c.text(c.req.param("year")));
    hono.route("/admin", admin);
    hono.use("/secure/*", (c) => Promise.resolve(c.text("sign in", 401)));
    hono.mount("/legacy", () => new Response("legacy"));
    const handle = app.handle(kit(hono));
    const requests: [string, string, number, string | undefined][] = [
      ["GET", "/users/7", 200, "/users/:id"],
      ["GET", "/users/me", 200, "/users/:id"],
      ["HEAD", "/users/8", 200, "/users/:id"],
      ["GET", "/api/users", 200, "/api/users"],
      ["GET", "/api/other", 200, "/api/*"],
      ["GET", "/files/a/b.txt", 200, "/files/*"],
      ["GET", "/admin/reports/2026", 200, "/admin/reports/:year"],
      ["GET", "/secure/data", 401, "/secure/*"],
      ["GET", "/legacy/x", 200, "/legacy/*"],
      ["GET", "/nothing", 404, undefined],
    ];
    for (const [method, path] of requests) {
      const response = await handle(
        new Request(`http://localhost${path}`, { method }),
      );
      await response.body?.cancel();
    }
    const access = lines.filter((line) => line.level === "info").slice(
      -requests.length,
    );
    assert.deepEqual(
      access.map((line) => [
        line.properties?.method,
        line.properties?.path,
        line.properties?.status,
        line.properties?.route,
      ]),
      requests,
    );
  });

  it("names the route under a middleware's pattern only when something answered", async () => {
    const lines: Line[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recording(lines),
    });
    const hono = new Hono();
    hono.use("/api/*", async (_c, next) => {
      await next();
    });
    hono.get("/api/users", (c) => c.json([]));
    const handle = app.handle(kit(hono));
    await (await handle(new Request("http://localhost/api/nothing"))).text();
    const [access] = lines.filter((line) => line.level === "info").slice(-1);
    assert.equal(access.properties?.status, 404);
    assert.equal("route" in (access.properties ?? {}), false);
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

  it("names the span without an access line, looking the route up once", async () => {
    const sdk = installOtelSdk();
    try {
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording([], false),
      });
      const hono = new Hono();
      hono.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
      const handle = app.handle(kit(hono));
      await (await handle(new Request("http://localhost/users/0"))).text();
      const matches = countMatches(hono);
      await (await handle(new Request("http://localhost/users/5"))).text();
      await (await handle(new Request("http://localhost/nothing"))).text();
      // Hono's own lookup and Kit's, a 404's too (asked once, found none).
      assert.equal(matches.count, 4);
      const [span] = sdk.spansNamed("GET /users/:id").slice(-1);
      assert.ok(span, sdk.spans().map((each) => each.name).join(", "));
      assert.equal(span.attributes["http.route"], "/users/:id");
      assert.equal(span.attributes["url.path"], "/users/5");
    } finally {
      await sdk.uninstall();
    }
  });

  it("keeps an error handler a subclass sets in its constructor", async () => {
    const lines: Line[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recording(lines),
    });
    let made = 0;
    // One handler shared by every instance, as a module's function is.
    const problem = (error: Error, c: Context): Response =>
      c.json({ problem: error.message }, 422);
    class ApiApp extends Hono {
      constructor() {
        super();
        made++;
        this.onError(problem);
      }
    }
    const hono = new ApiApp();
    hono.get("/boom", () => {
      throw new Error("invalid");
    });
    const response = await app.handle(kit(hono))(
      new Request("http://localhost/boom"),
    );
    assert.equal(response.status, 422);
    assert.deepEqual(await response.json(), { problem: "invalid" });
    assert.equal(made, 1, "the app's class is not constructed again");
    assert.deepEqual(lines.filter((line) => line.level === "error"), []);
  });

  it("outside app.handle(), answers an error as Hono does, headers set before it kept", async () => {
    const hono = new Hono();
    hono.get("/boom", (c) => {
      c.header("x-trace", "t1");
      throw new Error("outside");
    });
    const original = console.error;
    const printed: unknown[] = [];
    console.error = (...args: unknown[]) => void printed.push(...args);
    let response: Response;
    try {
      response = await kit(hono)(new Request("http://localhost/boom"));
    } finally {
      console.error = original;
    }
    assert.equal(response.status, 500);
    assert.equal(await response.text(), "Internal Server Error");
    assert.equal(response.headers.get("x-trace"), "t1");
    assert.equal(printed.length, 1);
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
