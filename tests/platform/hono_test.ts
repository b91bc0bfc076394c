// Kit's Hono middleware with a real Hono app served through app.handle() on
// a node:http server on loopback: a route's error becomes Kit's JSON 500,
// logged once (to a real log file, stack masked) with the request id, the
// span marked; an HTTPException keeps its response; the matched route names
// the span and the access line; an onError of the app's own still decides.
import { afterEach, beforeEach, describe, it, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { SpanStatusCode } from "@opentelemetry/api";
import { Application, type ApplicationLogger } from "../../platform/mod.ts";
import { kit } from "@vendor/kit-platform/hono";
import { FileLogProvider, LoggerManager } from "../../logging/mod.ts";
import { installOtelSdk, type OtelSdk } from "../_support/otel_sdk.ts";
import { serveFetch as serve } from "../_support/fetch_front.ts";

interface Line {
  level: string;
  message: string;
  properties?: Record<string, unknown>;
}

function recording(lines: Line[]): { getLogger(): ApplicationLogger } {
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
    }),
  };
}

// Hono's default error handler writes with console.error: count its calls.
function watchConsoleError(): { calls: unknown[][]; restore(): void } {
  const original = console.error;
  const calls: unknown[][] = [];
  console.error = (...args: unknown[]) => void calls.push(args);
  return { calls, restore: () => void (console.error = original) };
}

// The two ways of using Kit with a Hono app, each test run for both: the
// handler kit(hono) returns, and the older middleware with hono.fetch.
interface Form {
  name: string;
  setUp(hono: Hono): void;
  fetch(hono: Hono): (request: Request) => Response | Promise<Response>;
}

const FORMS: Form[] = [
  { name: "kit(hono)", setUp: () => {}, fetch: (hono) => kit(hono) },
  {
    name: "the kit() middleware",
    setUp: (hono) => void hono.use(kit()),
    fetch: (hono) => hono.fetch,
  },
];

function honoApp(form: Form): Hono {
  const hono = new Hono();
  form.setUp(hono);
  hono.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
  hono.get("/boom/:id", () => {
    throw new Error("database password=hunter2 rejected");
  });
  hono.get("/private", () => {
    throw new HTTPException(401, { message: "sign in first" });
  });
  return hono;
}

for (const form of FORMS) {
  describe(`${form.name} with Hono`, () => {
    let sdk: OtelSdk | undefined;
    beforeEach(() => {
      sdk = undefined;
    });
    afterEach(async () => {
      await sdk?.uninstall();
    });

    it("answers a route's error with Kit's JSON 500, logged once with the request id, Hono printing nothing", async () => {
      const lines: Line[] = [];
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording(lines),
      });
      const hono = honoApp(form);
      const server = await serve(app.handle(form.fetch(hono)));
      const watch = watchConsoleError();
      let response: Response;
      try {
        response = await fetch(`${server.url}/boom/7`, {
          headers: { "X-Request-ID": "req-500" },
        });
      } finally {
        watch.restore();
        await server.close();
      }
      assert.equal(response.status, 500);
      assert.match(response.headers.get("content-type") ?? "", /json/);
      const body = await response.text();
      assert.deepEqual(JSON.parse(body), {
        message: "Internal Server Error",
        requestId: "req-500",
      });
      assert.doesNotMatch(body, /hunter2|database/);
      assert.deepEqual(watch.calls, [], "Hono's console.error did not run");
      const errors = lines.filter((line) => line.level === "error");
      assert.equal(errors.length, 1, JSON.stringify(lines));
      assert.match(errors[0].message, /^GET \/boom\/7 failed: /);
      assert.equal(errors[0].properties?.requestId, "req-500");
      const error = errors[0].properties?.error as Error;
      assert.equal(error.message, "database password=hunter2 rejected");
      assert.equal(
        "getResponse" in error,
        false,
        "the error is left as it was thrown",
      );
      const access = lines.filter((line) => line.level === "info").at(-1)!;
      assert.match(access.message, /^GET \/boom\/7 500 [\d.]+ ms$/);
      assert.equal(access.properties?.route, "/boom/:id");
    });

    it("answers an error whose getResponse() gives no Response, or throws, with Kit's JSON 500, logged once", async () => {
      // A getResponse() that returns the wrong thing, one that throws, one
      // that throws on an error that cannot be changed (frozen), and one of
      // the error's own that gives nothing.
      class Refusal extends Error {
        getResponse(): unknown {
          return "not allowed";
        }
      }
      class Broken extends Error {
        getResponse(): Response {
          throw new Error("no response password=hunter2");
        }
      }
      const thrown: Record<string, Error> = {
        "/odd": new Refusal("refused"),
        "/broken": new Broken("broke"),
        "/frozen": Object.freeze(new Broken("frozen")),
        "/own": Object.assign(new Error("own"), {
          getResponse: () => undefined,
        }),
      };
      const before = Object.fromEntries(
        Object.entries(thrown).map(([path, error]) => [
          path,
          Object.getOwnPropertyDescriptor(error, "getResponse"),
        ]),
      );
      const lines: Line[] = [];
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording(lines),
      });
      const hono = new Hono();
      form.setUp(hono);
      for (const [path, error] of Object.entries(thrown)) {
        hono.get(path, () => {
          throw error;
        });
      }
      const server = await serve(app.handle(form.fetch(hono)));
      const watch = watchConsoleError();
      const answers: { path: string; response: Response; body: string }[] = [];
      try {
        for (const path of Object.keys(thrown)) {
          const response = await fetch(`${server.url}${path}`, {
            headers: { "X-Request-ID": `req${path.replace("/", "-")}` },
          });
          answers.push({ path, response, body: await response.text() });
        }
      } finally {
        watch.restore();
        await server.close();
      }
      assert.deepEqual(watch.calls, [], "Hono's console.error did not run");
      for (const { path, response, body } of answers) {
        assert.equal(response.status, 500, `${path}: ${body}`);
        assert.match(response.headers.get("content-type") ?? "", /json/, path);
        assert.deepEqual(JSON.parse(body), {
          message: "Internal Server Error",
          requestId: `req${path.replace("/", "-")}`,
        });
        const errors = lines.filter((line) =>
          line.level === "error" && line.message.startsWith(`GET ${path} `)
        );
        assert.equal(errors.length, 1, `${path}: ${JSON.stringify(lines)}`);
        assert.equal(errors[0].properties?.error, thrown[path]);
        assert.deepEqual(
          Object.getOwnPropertyDescriptor(thrown[path], "getResponse"),
          before[path],
          `${path}: the error is left as it was thrown`,
        );
      }
      assert.equal(lines.filter((line) => line.level === "error").length, 4);
    });

    it("still hands an error whose getResponse() throws to an onError of the app's own", async () => {
      class Broken extends Error {
        getResponse(): Response {
          throw new Error("no response");
        }
      }
      const lines: Line[] = [];
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording(lines),
      });
      const error = new Broken("broke");
      const hono = new Hono();
      form.setUp(hono);
      hono.get("/broken", () => {
        throw error;
      });
      const seen: unknown[] = [];
      hono.onError((caught, c) => {
        seen.push(caught);
        return c.text("handled", 503);
      });
      const response = await app.handle(form.fetch(hono))(
        new Request("http://localhost/broken"),
      );
      assert.equal(response.status, 503);
      assert.equal(await response.text(), "handled");
      assert.deepEqual(seen, [error]);
      assert.deepEqual(lines.filter((line) => line.level === "error"), []);
    });

    it("writes the error's stack, secrets masked, to Kit's log file", async () => {
      const dir = await mkdtemp(join(tmpdir(), "kit-hono-"));
      const filename = join(dir, "app.log");
      try {
        const app = await Application.start({
          configuration: () => ({}),
          logging: () =>
            new LoggerManager().configure({
              level: "info",
              providers: [new FileLogProvider({ filename, format: "json" })],
            }),
        });
        const hono = honoApp(form);
        const handler = app.handle(form.fetch(hono));
        const watch = watchConsoleError();
        try {
          const response = await handler(
            new Request("http://localhost/boom/1", {
              headers: { "X-Request-ID": "req-file" },
            }),
          );
          assert.equal(response.status, 500);
        } finally {
          watch.restore();
        }
        await app.stop();
        const entries = (await readFile(filename, "utf8")).trim().split("\n")
          .map((line) => JSON.parse(line));
        const failures = entries.filter((entry) => entry.level === "error");
        assert.equal(failures.length, 1);
        const text = JSON.stringify(failures[0]);
        assert.match(text, /req-file/);
        assert.match(text, /at .*hono_test/, "the stack is written");
        assert.doesNotMatch(text, /hunter2/, "the secret is masked");
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("lets an HTTPException keep its own response and status, without an error line", async () => {
      const lines: Line[] = [];
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording(lines),
      });
      const handler = app.handle(form.fetch(honoApp(form)));
      const response = await handler(new Request("http://localhost/private"));
      assert.equal(response.status, 401);
      assert.equal(await response.text(), "sign in first");
      assert.deepEqual(lines.filter((line) => line.level === "error"), []);
    });

    it("names the access line's route and keeps the real path in its message", async () => {
      const lines: Line[] = [];
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording(lines),
      });
      const server = await serve(app.handle(form.fetch(honoApp(form))));
      try {
        const ok = await fetch(`${server.url}/users/42?token=x`);
        assert.deepEqual(await ok.json(), { id: "42" });
        const missing = await fetch(`${server.url}/nothing`);
        assert.equal(missing.status, 404);
        await missing.body?.cancel();
      } finally {
        await server.close();
      }
      const access = lines.filter((line) => line.level === "info").slice(-2);
      assert.match(access[0].message, /^GET \/users\/42 200 [\d.]+ ms$/);
      assert.equal(access[0].properties?.route, "/users/:id");
      assert.equal(access[0].properties?.path, "/users/42");
      assert.match(access[1].message, /^GET \/nothing 404 /);
      assert.equal("route" in (access[1].properties ?? {}), false);
    });

    it("sets http.route on the span, renames it, and marks a route's error on it", async () => {
      sdk = installOtelSdk();
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording([]),
      });
      const handler = app.handle(form.fetch(honoApp(form)));
      await (await handler(new Request("http://localhost/users/5"))).text();
      const watch = watchConsoleError();
      try {
        await (await handler(new Request("http://localhost/boom/5"))).text();
      } finally {
        watch.restore();
      }
      const [ok] = sdk.spansNamed("GET /users/:id");
      assert.ok(ok, sdk.spans().map((span) => span.name).join(", "));
      assert.equal(ok.attributes["http.route"], "/users/:id");
      assert.equal(ok.attributes["url.path"], "/users/5");
      const [failed] = sdk.spansNamed("GET /boom/:id");
      assert.ok(failed);
      assert.equal(failed.status.code, SpanStatusCode.ERROR);
      assert.equal(failed.attributes["http.response.status_code"], 500);
      assert.equal(failed.attributes["error.type"], "Error");
      assert.equal(failed.events[0]?.name, "exception");
      assert.doesNotMatch(JSON.stringify(failed.events), /hunter2/);
    });

    it("leaves the answer to an onError of the app's own, and shows c.error to middleware after it", async () => {
      const lines: Line[] = [];
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording(lines),
      });
      const seen: string[] = [];
      const hono = new Hono();
      form.setUp(hono);
      hono.use(async (c, next) => {
        await next();
        seen.push(`${c.error?.message} ${c.res.status}`);
      });
      hono.get("/boom", () => {
        throw new Error("custom");
      });
      hono.onError((error, c) => c.text(`handled: ${error.message}`, 503));
      const response = await app.handle(form.fetch(hono))(
        new Request("http://localhost/boom"),
      );
      assert.equal(response.status, 503);
      assert.equal(await response.text(), "handled: custom");
      // A middleware after it sees the error and the response so far: with
      // kit(hono) the app's own handler has answered by then, as in Hono
      // without Kit; the middleware form runs the handlers itself and shows
      // its placeholder 500.
      assert.deepEqual(seen, [
        form.name === "kit(hono)" ? "custom 503" : "custom 500",
      ]);
      assert.deepEqual(lines.filter((line) => line.level === "error"), []);
    });

    it("runs the handlers after it as Hono does: async ones, chained ones, not found, next() twice", async () => {
      // The same routes with and without kit(), both through app.handle():
      // what a client sees must not differ, except Kit's JSON 500 in place of
      // Hono's plain-text one.
      const build = (withKit: boolean): Hono => {
        const hono = new Hono();
        if (withKit) form.setUp(hono);
        hono.use(async (c, next) => {
          await next();
          c.header("x-after", `${c.res.status}`);
        });
        hono.get("/async", async (c) => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          return c.json({ late: true });
        });
        hono.get("/chain", async (c, next) => {
          c.header("x-first", "1");
          await next();
        }, (c) => c.text("second"));
        hono.get("/twice", async (_c, next) => {
          await next();
          await next();
        }, (c) => c.text("once"));
        hono.get("/empty", async (_c, next) => {
          await next();
        });
        return hono;
      };
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recording([]),
      });
      const watch = watchConsoleError();
      try {
        for (const path of ["/async", "/chain", "/nothing", "/empty"]) {
          const seen = [];
          for (const withKit of [false, true]) {
            const response = await app.handle(
              withKit ? form.fetch(build(true)) : build(false).fetch,
            )(
              new Request(`http://localhost${path}`),
            );
            seen.push({
              status: response.status,
              body: await response.text(),
              after: response.headers.get("x-after"),
              first: response.headers.get("x-first"),
            });
          }
          assert.deepEqual(seen[1], seen[0], path);
        }
        const twice = await app.handle(form.fetch(build(true)))(
          new Request("http://localhost/twice"),
        );
        assert.equal(twice.status, 500);
        assert.equal(
          (await twice.json() as { message: string }).message,
          "Internal Server Error",
        );
        assert.equal(twice.headers.get("x-after"), "500");
      } finally {
        watch.restore();
      }
    });

    it("steps aside outside app.handle(): Hono answers as without it", async () => {
      const watch = watchConsoleError();
      let response: Response;
      try {
        response = await form.fetch(honoApp(form))(
          new Request("http://localhost/boom/1"),
        );
      } finally {
        watch.restore();
      }
      assert.equal(response.status, 500);
      assert.equal(await response.text(), "Internal Server Error");
      assert.equal(watch.calls.length, 1);
    });
  });
}

test("kit() fits Hono's types, with typed variables too (a compile-time check)", () => {
  const typed = new Hono<{ Variables: { user: string } }>();
  typed.use(kit());
  typed.use("/api/*", kit());
  typed.get("/me", kit(), (c) => c.text(c.get("user")));
  assert.equal(typeof kit(), "function");
  const handler: (request: Request) => Response | Promise<Response> = kit(
    new Hono<{ Variables: { user: string } }>(),
  );
  assert.equal(typeof handler, "function");
});
