// RequestContext and app.handle(): ids carried across awaits without
// mixing, sane ids kept and others replaced, the access line, and a 500 that
// tells the client nothing about the error.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Application,
  type ApplicationLogger,
  RequestContext,
} from "../../platform/mod.ts";

describe("RequestContext", () => {
  it("carries values across awaits and timers, and is undefined outside", async () => {
    assert.equal(RequestContext.current(), undefined);
    const seen = await RequestContext.run(
      { requestId: "r-1", tenant: "acme" },
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const inTimer = await new Promise((resolve) =>
          setTimeout(() => resolve(RequestContext.current()), 1)
        );
        return [RequestContext.current(), inTimer];
      },
    );
    assert.deepEqual(seen, [
      { requestId: "r-1", tenant: "acme" },
      { requestId: "r-1", tenant: "acme" },
    ]);
    assert.equal(RequestContext.current(), undefined);
  });

  it("keeps 100 concurrent contexts apart", async () => {
    const results = await Promise.all(
      Array.from(
        { length: 100 },
        (_, i) =>
          RequestContext.run({ requestId: `r-${i}` }, async () => {
            await new Promise((resolve) => setTimeout(resolve, (i * 7) % 13));
            return RequestContext.current()?.requestId;
          }),
      ),
    );
    assert.deepEqual(results, Array.from({ length: 100 }, (_, i) => `r-${i}`));
  });

  it("nests, restoring the outer context, and freezes its values", () => {
    RequestContext.run({ requestId: "outer" }, () => {
      RequestContext.run({ requestId: "inner" }, () => {
        assert.equal(RequestContext.current()?.requestId, "inner");
      });
      const current = RequestContext.current()!;
      assert.equal(current.requestId, "outer");
      assert.ok(Object.isFrozen(current));
    });
  });

  it("needs a non-empty requestId", () => {
    assert.throws(
      () => RequestContext.run({ requestId: "" }, () => {}),
      {
        name: "TypeError",
        message:
          "RequestContext.run: values.requestId must be a non-empty string",
      },
    );
  });
});

interface Line {
  level: string;
  message: string;
  properties?: Record<string, unknown>;
  contextId?: string;
}

function recordingLogging(lines: Line[]): { getLogger(): ApplicationLogger } {
  const write =
    (level: string) =>
    (message: string, properties?: Record<string, unknown>): void => {
      lines.push({
        level,
        message,
        properties,
        contextId: RequestContext.current()?.requestId,
      });
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

describe("app.handle()", () => {
  it("keeps a sane X-Request-ID, sets it on the response and runs the handler in its context", async () => {
    const lines: Line[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recordingLogging(lines),
    });
    lines.length = 0;
    const handler = app.handle(async (request: Request, extra: string) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return new Response(`${RequestContext.current()?.requestId} ${extra}`, {
        status: request.method === "POST" ? 201 : 200,
      });
    });
    const response = await handler(
      new Request("http://localhost/orders?token=secret", {
        method: "POST",
        headers: { "X-Request-ID": "abc-123_x.y:z" },
      }),
      "env",
    );
    assert.equal(response.status, 201);
    assert.equal(response.headers.get("x-request-id"), "abc-123_x.y:z");
    assert.equal(await response.text(), "abc-123_x.y:z env");
    assert.equal(lines.length, 1);
    const [line] = lines;
    assert.equal(line.level, "info");
    // The query (which may hold secrets) is not logged.
    assert.match(line.message, /^POST \/orders 201 [\d.]+ ms$/);
    assert.deepEqual(
      { ...line.properties, durationMs: 0 },
      {
        method: "POST",
        path: "/orders",
        status: 201,
        durationMs: 0,
        requestId: "abc-123_x.y:z",
      },
    );
    assert.equal(line.contextId, "abc-123_x.y:z");
  });

  for (
    const given of [
      undefined,
      "",
      "has space",
      "a;b,c",
      "x".repeat(129),
      '"><script>',
    ]
  ) {
    it(`replaces ${JSON.stringify(given)?.slice(0, 20)} with a generated id`, async () => {
      await using app = await Application.start({
        configuration: () => ({}),
        logging: () => recordingLogging([]),
      });
      const headers = new Headers();
      if (given !== undefined) headers.set("X-Request-ID", given);
      const response = await app.handle(() => new Response("ok"))(
        new Request("http://localhost/", { headers }),
      );
      const id = response.headers.get("x-request-id")!;
      assert.match(
        id,
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    });
  }

  it("answers 500 with only a message and the request id when the handler throws, and logs the error", async () => {
    const lines: Line[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recordingLogging(lines),
    });
    lines.length = 0;
    const failure = new Error(
      "duplicate key value violates constraint users_pkey",
    );
    const response = await app.handle(() => {
      throw failure;
    })(
      new Request("http://localhost/users", {
        headers: { "x-request-id": "r-9" },
      }),
    );
    assert.equal(response.status, 500);
    assert.equal(response.headers.get("x-request-id"), "r-9");
    const body = await response.text();
    assert.deepEqual(JSON.parse(body), {
      message: "Internal Server Error",
      requestId: "r-9",
    });
    assert.doesNotMatch(body, /users_pkey/);
    const [error, access] = lines;
    assert.equal(error.level, "error");
    assert.equal(
      error.message,
      "GET /users failed: duplicate key value violates constraint users_pkey",
    );
    assert.equal(error.properties?.error, failure);
    assert.equal(error.properties?.requestId, "r-9");
    assert.equal(error.contextId, "r-9");
    assert.match(access.message, /^GET \/users 500 /);
  });

  it("answers 500 when the handler returns no Response", async () => {
    const lines: Line[] = [];
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recordingLogging(lines),
    });
    const response = await app.handle(
      (() => undefined) as unknown as () => Response,
    )(new Request("http://localhost/"));
    assert.equal(response.status, 500);
    assert.ok(
      lines.some((line) =>
        line.message ===
          "GET / failed: The handler returned undefined instead of a Response"
      ),
    );
  });

  it("sets the header on a response whose headers are immutable", async () => {
    await using app = await Application.start({
      configuration: () => ({}),
      logging: () => recordingLogging([]),
    });
    const response = await app.handle(() =>
      Response.redirect("http://localhost/elsewhere", 302)
    )(new Request("http://localhost/", { headers: { "x-request-id": "r-2" } }));
    assert.equal(response.status, 302);
    assert.equal(
      response.headers.get("location"),
      "http://localhost/elsewhere",
    );
    assert.equal(response.headers.get("x-request-id"), "r-2");
  });
});
