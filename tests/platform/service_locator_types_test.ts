// The typed service map of ServiceLocator: names and types are checked at
// compile time (`deno check` fails on a wrong line; the @ts-expect-error
// lines prove the errors exist), and the untyped locator keeps working the
// way existing code calls it (`get<T>(name)` with a string name).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Application, ServiceLocator } from "../../platform/mod.ts";

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
