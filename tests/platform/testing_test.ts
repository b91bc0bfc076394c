// The test kit: a real Hono app (with kit()) started by
// createTestApplication and asked in memory through app.request(), with the
// same request context, scopes, body limit and health routes as over the
// network; services replaced after step 4; configuration values above the
// application's own; every log entry recorded.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import {
  Application,
  ApplicationStartError,
  RequestContext,
} from "../../platform/mod.ts";
import { kit } from "@vendor/kit-platform/hono";
import { createTestApplication } from "@vendor/kit-platform/testing";
import { ConfigurationManager, MemoryProvider } from "../../config/mod.ts";
import { LoggerManager } from "../../logging/mod.ts";
import { installOtelSdk } from "../_support/otel_sdk.ts";

interface Greeter {
  greet(name: string): string;
}

type Services = { greeter: Greeter; unitOfWork: { id: number } };

function orders(
  services: { get(name: "greeter"): Greeter },
): (request: Request) => Response | Promise<Response> {
  const hono = new Hono();
  hono.use(kit());
  hono.get(
    "/hello/:name",
    (c) => c.text(services.get("greeter").greet(c.req.param("name"))),
  );
  hono.get(
    "/context",
    (c) => c.json({ requestId: RequestContext.current()?.requestId ?? null }),
  );
  hono.post("/echo", async (c) => c.text(await c.req.text()));
  hono.get("/boom", () => {
    throw new Error("database password rejected");
  });
  return hono.fetch;
}

const greeterStep = (services: {
  register(name: "greeter", factory: () => Greeter): unknown;
}): void => {
  services.register("greeter", () => ({ greet: (name) => `hello ${name}` }));
};

describe("createTestApplication", () => {
  it("serves a Hono route in memory, on no port", async () => {
    await using app = await createTestApplication<Services>({
      configuration: () => ({}),
      services: greeterStep,
      serve: (services) => orders(services),
    });
    assert.equal(app.url, undefined);
    assert.ok(app instanceof Application);
    const response = await app.request("/hello/ada");
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "hello ada");
    assert.match(response.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  });

  it("gives the request a context with its X-Request-ID", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      services: greeterStep,
      serve: (services) => orders(services as never),
    });
    const response = await app.request(
      new Request("http://example.test/context", {
        headers: { "X-Request-ID": "req-42" },
      }),
    );
    assert.deepEqual(await response.json(), { requestId: "req-42" });
    assert.equal(response.headers.get("x-request-id"), "req-42");
  });

  it("answers the health routes as the server does", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      serve: () => () => new Response("app"),
    });
    app.addHealthCheck("db", () => ({ status: "unhealthy" }), {
      tags: ["no-readiness"],
    });
    const live = await app.request("/health/live");
    assert.equal(live.status, 200);
    assert.deepEqual(await live.json(), { status: "alive" });
    const ready = await app.request("/health/ready");
    assert.equal(ready.status, 200);
    await ready.body?.cancel();
    const health = await app.request("/health");
    assert.equal(health.status, 503);
    assert.equal((await health.json()).checks.db.status, "unhealthy");
    assert.equal(await (await app.request("/other")).text(), "app");
    // Probes write no access line; the request to /other does.
    assert.equal(app.logs.find("GET /health"), undefined);
    assert.ok(app.logs.find("GET /other 200"));
  });

  it("applies the body limit of the server", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      services: greeterStep,
      serve: (services) => orders(services as never),
      server: { maxBodySize: 16 },
    });
    const small = await app.request("/echo", { method: "POST", body: "hi" });
    assert.equal(await small.text(), "hi");
    const large = await app.request("/echo", {
      method: "POST",
      body: "x".repeat(100),
    });
    assert.equal(large.status, 413);
    assert.match(await large.text(), /limit of 16 bytes/);
    assert.ok(large.headers.get("x-request-id"));
  });

  it("takes the same maxBodySize from the config values", async () => {
    await using app = await createTestApplication({
      configuration: () => ({ server: { maxBodySize: 1_000_000 } }),
      config: { "server:maxBodySize": 8 },
      serve: () => async (request) => new Response(await request.text()),
    });
    const large = await app.request("/", { method: "POST", body: "123456789" });
    assert.equal(large.status, 413);
  });

  it("answers a thrown error with Kit's 500 and records it", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      services: greeterStep,
      serve: (services) => orders(services as never),
    });
    const response = await app.request("/boom", {
      headers: { "X-Request-ID": "boom-1" },
    });
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), {
      message: "Internal Server Error",
      requestId: "boom-1",
    });
    const [error] = app.logs.filter({ level: "error" });
    assert.equal(error.requestId, "boom-1");
    assert.equal(error.error?.message, "database password rejected");
    assert.equal(error.category, "kit.application");
  });

  it("resolves a relative path against http://localhost", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      serve: () => (request) => new Response(request.url),
    });
    assert.equal(
      await (await app.request("/a/b?c=1")).text(),
      "http://localhost/a/b?c=1",
    );
    assert.equal(
      await (await app.request("http://api.test/x")).text(),
      "http://api.test/x",
    );
  });

  it("rejects a request after stop and without serve", async () => {
    const app = await createTestApplication({
      configuration: () => ({}),
      serve: () => () => new Response("ok"),
    });
    await app.stop();
    await assert.rejects(app.request("/"), /the application has stopped/);
    await using bare = await createTestApplication({
      configuration: () => ({}),
    });
    await assert.rejects(bare.request("/"), /has no serve option/);
  });

  it("listens on a port only when asked", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      serve: () => () => new Response("both"),
      server: { port: 0, hostname: "127.0.0.1" },
      listen: true,
    });
    assert.match(app.url ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(app.url!, {
      signal: AbortSignal.timeout(5_000),
    });
    assert.equal(await response.text(), "both");
    assert.equal(await (await app.request("/")).text(), "both");
  });
});

describe("createTestApplication overrides", () => {
  it("replaces a registered service after step 4", async () => {
    await using app = await createTestApplication<Services>({
      configuration: () => ({}),
      services: greeterStep,
      serve: (services) => orders(services),
      overrides: { greeter: () => ({ greet: (name) => `fake ${name}` }) },
    });
    assert.equal(await (await app.request("/hello/bo")).text(), "fake bo");
    assert.equal(app.services.get("greeter").greet("x"), "fake x");
  });

  it("keeps the lifetime of the service it replaces", async () => {
    let made = 0;
    await using app = await createTestApplication<Services>({
      configuration: () => ({}),
      services: (services) => {
        services.register("unitOfWork", () => ({ id: -1 }), {
          lifetime: "scoped",
        });
      },
      serve: (services) => () =>
        Response.json([
          services.get("unitOfWork").id,
          services.get("unitOfWork").id,
        ]),
      overrides: { unitOfWork: () => ({ id: ++made }) },
    });
    assert.deepEqual(await (await app.request("/")).json(), [1, 1]);
    assert.deepEqual(await (await app.request("/")).json(), [2, 2]);
  });

  it("fails start-up naming an override that was never registered", async () => {
    const error = await createTestApplication<Services>({
      configuration: () => ({}),
      services: greeterStep,
      overrides: { greeterr: () => ({}) } as never,
    }).then(() => undefined, (error: unknown) => error);
    assert.ok(error instanceof ApplicationStartError);
    assert.equal(error.step, 4);
    assert.match(
      error.message,
      /cannot override 'greeterr': no service of that name is registered \(did you mean 'greeter'\?\)/,
    );
  });
});

// Never run: the type checker's part of the overrides.
export function overridesAreTyped(): void {
  void createTestApplication<Services>({
    configuration: () => ({}),
    overrides: {
      // @ts-expect-error: a greeter has greet(name), not a number
      greeter: () => 42,
    },
  });
  void createTestApplication<Services>({
    configuration: () => ({}),
    // @ts-expect-error: no service of that name in the map
    overrides: { greeterr: () => ({ greet: () => "" }) },
  });
}

describe("createTestApplication config", () => {
  it("layers values above a ConfigurationManager's own sources", async () => {
    const manager = new ConfigurationManager();
    await manager.addProvider(
      new MemoryProvider({
        "api:baseUrl": "http://production.example",
        "api:timeout": "5000",
      }),
    );
    await manager.loadConfiguration();
    await using app = await createTestApplication({
      configuration: () => manager,
      config: { "api:baseUrl": "http://127.0.0.1:9" },
    });
    const config = app.services.get<ConfigurationManager>("config");
    assert.equal(config.getValue("api:baseUrl"), "http://127.0.0.1:9");
    assert.equal(config.getValue("api:timeout"), "5000");
  });

  it("sets values on a copy of a plain configuration object", async () => {
    const shared = {
      api: { baseUrl: "http://production.example", retries: 2 },
    };
    await using app = await createTestApplication({
      configuration: () => shared,
      config: { "api:baseUrl": "http://127.0.0.1:9", "feature:beta": true },
    });
    assert.deepEqual(app.services.get("config"), {
      api: { baseUrl: "http://127.0.0.1:9", retries: 2 },
      feature: { beta: true },
    });
    assert.equal(shared.api.baseUrl, "http://production.example");
  });

  it("fails step 1 when the configuration is neither", async () => {
    class Settings {}
    await assert.rejects(
      createTestApplication({
        configuration: () => new Settings(),
        config: { "a:b": "c" },
      }),
      (error: unknown) =>
        error instanceof ApplicationStartError && error.step === 1 &&
        /an instance of Settings/.test(error.message),
    );
  });
});

describe("createTestApplication logs", () => {
  it("records the entries of the logging step's LoggerManager", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      // A manager with no provider of its own: the test writes nothing out.
      logging: () => new LoggerManager().configure({ providers: [] }),
      serve: (services) => () => {
        services.get<LoggerManager>("logging").getLogger("orders").info(
          "Order placed",
          { orderId: 42 },
        );
        return new Response("ok");
      },
    });
    await app.request("/orders", { headers: { "X-Request-ID": "o-1" } });
    const placed = app.logs.find("Order placed");
    assert.equal(placed?.requestId, "o-1");
    assert.deepEqual(placed?.properties, { orderId: 42 });
    assert.equal(placed?.level, "info");
    assert.equal(app.logs.find(/^GET \/orders 200/)?.requestId, "o-1");
    assert.equal(app.logs.filter({ category: "orders" }).length, 1);
    assert.ok(app.logs.find("Application started"));
    assert.equal(app.logs.filter({ level: "error" }).length, 0);
  });

  it("records the trace and span ids of the request's span", async () => {
    const sdk = installOtelSdk();
    try {
      await using app = await createTestApplication({
        configuration: () => ({}),
        logging: () => new LoggerManager().configure({ providers: [] }),
        serve: (services) => () => {
          services.get<LoggerManager>("logging").getLogger("orders").warning(
            "Slow order",
          );
          return new Response("ok");
        },
      });
      await app.request("/slow");
      const [span] = sdk.spansNamed("GET");
      const record = app.logs.filter({ level: "warning" })[0];
      assert.equal(record?.message, "Slow order");
      assert.equal(record?.traceId, span.spanContext().traceId);
      assert.equal(record?.spanId, span.spanContext().spanId);
    } finally {
      await sdk.uninstall();
    }
  });

  it("records the host's own lines without a logging step", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      serve: () => () => new Response("ok"),
    });
    await app.request("/x", { headers: { "X-Request-ID": "x-1" } });
    const line = app.logs.find("GET /x 200");
    assert.equal(line?.requestId, "x-1");
    assert.equal(line?.category, "kit.application");
    assert.equal(line?.properties.status, 200);
    assert.equal("requestId" in (line?.properties ?? {}), false);
  });
});

describe("createTestApplication typed by the steps' registrations", () => {
  it("types app.services and the overrides with no map written by hand", async () => {
    await using app = await createTestApplication({
      configuration: () => ({}),
      services: (services) =>
        services.register("clock", () => ({ now: (): number => Date.now() })),
      serve: (services) => () =>
        Response.json({ now: services.get("clock").now() }),
      overrides: {
        clock: () => ({ now: () => 7 }),
        // @ts-expect-error a name never registered
        clok: () => ({ now: () => 7 }),
      },
    }).catch((error: Error) => {
      // The misspelt override also fails at run time, naming it.
      assert.match(error.message, /clok/);
      return undefined;
    });
    assert.equal(app, undefined);
    await using typed = await createTestApplication({
      configuration: () => ({}),
      services: (services) =>
        services.register("clock", () => ({ now: (): number => Date.now() })),
      serve: (services) => () =>
        Response.json({ now: services.get("clock").now() }),
      overrides: { clock: () => ({ now: () => 7 }) },
    });
    const now: number = typed.services.get("clock").now();
    assert.equal(now, 7);
    assert.deepEqual(await (await typed.request("/")).json(), { now: 7 });
  });
});
