// The test kit's app.request(), in memory through the server's handler
// (probes, body limit, request context), against the same request to the
// same application listening on loopback (`serve` on a port, then fetch),
// in the same run; and a Hono app with kit() both ways. The access line is
// below the log level on both sides, so what differs is the socket.
// Run: deno bench -A --config deno.dev.json bench/testing_bench.ts
import { Hono } from "hono";
import { kit } from "../platform/hono.ts";
import { createTestApplication } from "../platform/testing.ts";
import { LoggerManager } from "../logging/mod.ts";

// Enough iterations that a preempted one (a busy machine) weighs little.
const RUNS = { n: 20_000, warmup: 2_000 };

// Consume results so the JIT cannot drop the work.
let sink = 0;

const quiet = (): LoggerManager =>
  new LoggerManager().configure({ level: "warning", providers: [] });

const plain = await createTestApplication({
  configuration: () => ({}),
  logging: quiet,
  serve: () => () =>
    new Response('{"ok":true}', {
      headers: { "content-type": "application/json" },
    }),
  server: { port: 0, hostname: "127.0.0.1" },
  listen: true,
});

const hono = new Hono();
hono.use(kit());
hono.get("/orders/:id", (c) => c.json({ id: c.req.param("id") }));
const routed = await createTestApplication({
  configuration: () => ({}),
  logging: quiet,
  serve: () => hono.fetch,
  server: { port: 0, hostname: "127.0.0.1" },
  listen: true,
});

Deno.bench({
  name: "fetch over loopback (serve on a port)",
  group: "request",
  baseline: true,
  ...RUNS,
  async fn() {
    const response = await fetch(`${plain.url}/orders/1`);
    sink += (await response.text()).length;
  },
});

Deno.bench({
  name: "Kit app.request() in memory",
  group: "request",
  ...RUNS,
  async fn() {
    const response = await plain.request("/orders/1");
    sink += (await response.text()).length;
  },
});

Deno.bench({
  name: "Hono + kit(): fetch over loopback",
  group: "hono",
  baseline: true,
  ...RUNS,
  async fn() {
    const response = await fetch(`${routed.url}/orders/1`);
    sink += (await response.text()).length;
  },
});

Deno.bench({
  name: "Hono + kit(): app.request() in memory",
  group: "hono",
  ...RUNS,
  async fn() {
    const response = await routed.request("/orders/1");
    sink += (await response.text()).length;
  },
});

globalThis.addEventListener("unload", () => {
  if (sink < 0) console.log(sink);
  void plain.stop();
  void routed.stop();
});
