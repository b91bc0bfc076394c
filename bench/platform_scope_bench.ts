// Scoped services: resolving one already made in the current request's scope
// against two Map.get calls (the goal: at most that), through the locator
// (the scope found through the request context) and through a scope's own
// get; and app.handle() around a trivial handler that resolves no scoped
// service against one that makes and disposes one (the scope is made only
// then). The cost a request pays for scopes when it resolves none is
// measured against the earlier checkout with bench/app_handle_ab.ts.
// Run: deno bench -A --config deno.dev.json bench/platform_scope_bench.ts
import { Application, ServiceLocator } from "../platform/mod.ts";

let sink = 0;
const CALLS = 1000;

const first = new Map<string, { n: number }>();
const second = new Map<string, { n: number }>();
for (let i = 0; i < 50; i++) {
  first.set(`service${i}`, { n: i });
  second.set(`service${i}`, { n: i });
}
first.set("unit", { n: 1 });
second.set("unit", { n: 1 });

const locator = new ServiceLocator();
for (let i = 0; i < 50; i++) locator.register(`service${i}`, () => ({ n: i }));
locator.register("unit", () => ({ n: 1 }), { lifetime: "scoped" });
const scope = locator.createScope();
scope.get("unit");

Deno.bench({
  name: `2 × Map.get (goal), ×${CALLS}`,
  group: "scoped-get",
  baseline: true,
  fn() {
    for (let i = 0; i < CALLS; i++) {
      sink += first.get("unit")!.n;
      sink += second.get("unit")!.n;
    }
  },
});

Deno.bench({
  name: `Kit services.get(scoped) in a scope, after the first, ×${CALLS}`,
  group: "scoped-get",
  fn() {
    scope.run(() => {
      for (let i = 0; i < CALLS; i++) {
        sink += locator.get<{ n: number }>("unit").n;
      }
    });
  },
});

Deno.bench({
  name: `Kit scope.get(scoped), after the first, ×${CALLS}`,
  group: "scoped-get",
  fn() {
    for (let i = 0; i < CALLS; i++) sink += scope.get<{ n: number }>("unit").n;
  },
});

const logging = () => ({
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
  // The access line below the level, as in production at `warning`.
  isEnabled: () => false,
});
const app = await Application.start({
  configuration: () => ({}),
  logging,
  services: (services) => {
    services.register("unit", () => ({ n: 1, dispose() {} }), {
      lifetime: "scoped",
    });
  },
});
const request = new Request("http://localhost/orders/7");
const none = app.handle(() => new Response(null, { status: 204 }));
const one = app.handle(() => {
  sink += app.services.get<{ n: number }>("unit").n;
  return new Response(null, { status: 204 });
});

Deno.bench({
  name: "Kit app.handle(), no scoped service",
  group: "request-scope",
  baseline: true,
  async fn() {
    sink += (await none(request)).status;
  },
});

Deno.bench({
  name: "Kit app.handle(), one scoped service made and disposed",
  group: "request-scope",
  async fn() {
    sink += (await one(request)).status;
  },
});

globalThis.addEventListener("unload", () => {
  if (sink === 0.5) console.log(sink);
});
