// Platform benchmarks: ServiceLocator.get of a created service against a
// plain Map.get (the floor), and EventAggregator.publish to 1 and 10
// subscribers against mitt and Node's EventEmitter, and app.handle() around
// a trivial handler against the bare handler, in the same run.
// Run: deno bench -A --config deno.dev.json bench/platform_bench.ts
import { EventEmitter } from "node:events";
import mittImport from "mitt";
import {
  Application,
  EventAggregator,
  ServiceLocator,
} from "../platform/mod.ts";

// mitt ships CommonJS-flavoured typings: its default export is typed as the
// module namespace, while the ESM build Deno loads exports the function.
const mitt = mittImport as unknown as typeof mittImport.default;

// Consume results so the JIT cannot drop the work.
let sink = 0;

const map = new Map<string, { n: number }>();
map.set("config", { n: 1 });
for (let i = 0; i < 50; i++) map.set(`service${i}`, { n: i });
const locator = new ServiceLocator();
locator.register("config", () => ({ n: 1 }));
for (let i = 0; i < 50; i++) locator.register(`service${i}`, () => ({ n: i }));
locator.get("config");

Deno.bench({
  name: "Map.get (floor)",
  group: "locator-get",
  baseline: true,
  fn() {
    sink += map.get("config")!.n;
  },
});

Deno.bench({
  name: "Kit ServiceLocator.get (created service)",
  group: "locator-get",
  fn() {
    sink += locator.get<{ n: number }>("config").n;
  },
});

Deno.bench({
  name: "Kit ServiceLocator.get (static, default locator)",
  group: "locator-get",
  fn() {
    sink += ServiceLocator.get<{ n: number }>("config").n;
  },
});
ServiceLocator.register("config", () => ({ n: 1 }));

for (const count of [1, 10]) {
  const group = `publish-${count}`;
  const kit = new EventAggregator<{ tick: number }>();
  const emitter = mitt<{ tick: number }>();
  const node = new EventEmitter();
  node.setMaxListeners(20);
  for (let i = 0; i < count; i++) {
    kit.subscribe("tick", (n) => {
      sink += n;
    });
    emitter.on("tick", (n: number) => {
      sink += n;
    });
    node.on("tick", (n: number) => {
      sink += n;
    });
  }
  Deno.bench({
    name: `mitt emit, ${count} subscriber(s)`,
    group,
    baseline: true,
    fn() {
      emitter.emit("tick", 1);
    },
  });
  Deno.bench({
    name: `Kit EventAggregator.publish, ${count} subscriber(s)`,
    group,
    fn() {
      kit.publish("tick", 1);
    },
  });
  Deno.bench({
    name: `node:events EventEmitter.emit, ${count} subscriber(s)`,
    group,
    fn() {
      node.emit("tick", 1);
    },
  });
}

// app.handle() in process, no OpenTelemetry SDK registered (the no-op API):
// the cost of Kit's wrapper (request id, context, span and metric calls,
// access line below the level) around a trivial handler.
const bare = (_request: Request): Response => new Response("ok");
const app = await Application.start({
  configuration: () => ({}),
  logging: () => ({
    debug: () => {},
    info: () => {},
    warning: () => {},
    error: () => {},
    isEnabled: () => false,
  }),
});
const wrapped = app.handle(bare);
const request = new Request("http://localhost/orders/7", {
  headers: { "x-request-id": "bench-1" },
});

Deno.bench({
  name: "bare handler",
  group: "app-handle",
  baseline: true,
  async fn() {
    sink += (await bare(request)).status;
  },
});

Deno.bench({
  name: "Kit app.handle(handler), no OpenTelemetry SDK",
  group: "app-handle",
  async fn() {
    sink += (await wrapped(request)).status;
  },
});

globalThis.addEventListener("unload", () => {
  if (sink === -1) console.log(sink);
});
