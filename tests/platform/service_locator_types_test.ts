// The typed service map of ServiceLocator: names and types are checked at
// compile time (`deno check` fails on a wrong line; the @ts-expect-error
// lines prove the errors exist), and the untyped locator keeps working the
// way existing code calls it (`get<T>(name)` with a string name).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Application,
  defineApplication,
  ServiceLocator,
} from "../../platform/mod.ts";
import { createTestApplication } from "@vendor/kit-platform/testing";

class HttpClientLike {
  get(path: string): string {
    return `GET ${path}`;
  }
}
interface Services {
  config: { port: number };
  http: HttpClientLike;
}

test("a typed locator gives each name its type without a type argument", () => {
  const locator = new ServiceLocator<Services>();
  locator.registerInstance("config", { port: 3000 });
  locator.register("http", () => new HttpClientLike());
  const http: HttpClientLike = locator.get("http");
  const port: number = locator.get("config").port;
  assert.equal(http.get("/a"), "GET /a");
  assert.equal(port, 3000);
  // @ts-expect-error an unknown name is a type error
  assert.throws(() => locator.get("nope"), /Service not found: nope/);
  // @ts-expect-error a factory must build the registered type
  locator.register("http", () => 42);
  // get<T>(name) still works with an explicit type.
  assert.equal(locator.get<{ port: number }>("config").port, 3000);
});

test("the untyped locator accepts any name and returns unknown without a type argument", () => {
  const locator = new ServiceLocator();
  locator.register("anything", () => ({ ok: true }));
  const value: unknown = locator.get("anything");
  // @ts-expect-error unknown has no properties until a type argument is given
  assert.equal(value.ok, true);
  assert.equal(locator.get<{ ok: boolean }>("anything").ok, true);
});

test("Application.start<TServices> types app.services", async () => {
  const app = await Application.start<Services, { port: number }>({
    configuration: () => ({ port: 8080 }),
    platform: (services) => {
      services.register("http", () => new HttpClientLike());
    },
  });
  const http: HttpClientLike = app.services.get("http");
  assert.equal(http.get("/b"), "GET /b");
  assert.equal(app.services.get("config").port, 8080);
  await app.stop();
});

test("a chain of registrations types each service, with no map written by hand", () => {
  const locator = new ServiceLocator()
    .register("http", () => new HttpClientLike())
    .registerInstance("port", 3000)
    .register("client", (l) => ({ path: l.get("http").get("/c") }));
  const client: { path: string } = locator.get("client");
  const port: number = locator.get("port");
  assert.equal(client.path, "GET /c");
  assert.equal(port, 3000);
  // @ts-expect-error a name never registered in the chain
  assert.throws(() => locator.get("clinet"), /Service not found: clinet/);
});

test("the steps' chains type the later steps, serve, factories and app.services, with config and logging", async () => {
  const app = await Application.start({
    configuration: () => ({ port: 8080 }),
    logging: () => ({
      debug() {},
      info() {},
      warning() {},
      error() {},
      getLogger: () => ({ debug() {}, info() {}, warning() {}, error() {} }),
    }),
    platform: (services) =>
      services.register("http", () => new HttpClientLike()),
    services: (services, config) =>
      services.register("users", (s) => ({
        list: (): string => `${s.get("http").get("/users")}:${config.port}`,
      })),
    serve: (services) => {
      const users: { list(): string } = services.get("users");
      // @ts-expect-error a name never registered
      assert.throws(() => services.get("user"), /Service not found: user/);
      return () => new Response(users.list());
    },
  });
  try {
    assert.equal(app.services.get("users").list(), "GET /users:8080");
    const port: number = app.services.get("config").port;
    assert.equal(port, 8080);
    assert.equal(typeof app.services.get("logging").getLogger, "function");
    // @ts-expect-error a name never registered
    assert.throws(() => app.services.get("usrs"), /Service not found: usrs/);
  } finally {
    await app.stop();
  }
});

test("a step that registers with statements keeps every name open, as before", async () => {
  const app = await Application.start({
    configuration: () => ({}),
    services: (services) => {
      services.register("http", () => new HttpClientLike());
      services.register("users", (l) => ({
        http: l.get<HttpClientLike>("http"),
      }));
    },
  });
  try {
    const value: unknown = app.services.get("users");
    assert.ok(value !== undefined);
    assert.equal(app.services.get<HttpClientLike>("http").get("/d"), "GET /d");
  } finally {
    await app.stop();
  }
});

test("options written apart with defineApplication stay typed in Application.start and the test kit", async () => {
  // As a generated app.ts writes them: one set for main and the tests.
  const options = defineApplication({
    configuration: () => ({ port: 8080 }),
    platform: (services) =>
      services.register("http", () => new HttpClientLike()),
    services: (services, config) =>
      services.register("users", (s) => ({
        list: (): string => `${s.get("http").get("/users")}:${config.port}`,
      })),
    serve: (services) => () => new Response(services.get("users").list()),
    exit: false,
  });
  assert.equal(options.exit, false, "returned as it was given");
  const app = await Application.start(options);
  try {
    const users: { list(): string } = app.services.get("users");
    assert.equal(users.list(), "GET /users:8080");
    // @ts-expect-error a name never registered
    assert.throws(() => app.services.get("usres"), /Service not found: usres/);
  } finally {
    await app.stop();
  }
  await using tested = await createTestApplication({
    ...options,
    config: { "greeting:text": "unused" },
  });
  const port: number = tested.services.get("config").port;
  assert.equal(port, 8080);
  assert.equal(await (await tested.request("/")).text(), "GET /users:8080");
  // @ts-expect-error a name never registered
  assert.throws(() => tested.services.get("htp"), /Service not found: htp/);
});
