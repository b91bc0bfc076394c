// app.handle() with the OpenTelemetry SDK registered and sampling on, next
// to a trivial handler instrumented by hand with @opentelemetry/api the way
// an application would (bench/_hand_traced.ts), in the same run. Kit's row
// also pays for what app.handle() does without telemetry (request id, a
// request context, X-Request-ID); Kit's telemetry against the same calls
// instrumented by hand is `deno run -A --config deno.dev.json bench/app_handle_ab.ts <earlier
// checkout> --sdk` (the earlier app.handle(), which has no telemetry, wrapped
// by hand).
// Run: deno bench -A --config deno.dev.json bench/telemetry_bench.ts
import { Application } from "../platform/mod.ts";
import { handTraced, registerSdk } from "./_hand_traced.ts";

registerSdk();

let sink = 0;
const bare = (_request: Request): Response => new Response("ok");
const request = new Request("http://localhost:8080/orders/7", {
  headers: {
    "x-request-id": "bench-1",
    "user-agent": "bench/1.0",
    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
  },
});
const byHand = handTraced(bare);
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

Deno.bench({
  name: "trivial handler instrumented by hand (@opentelemetry/api), SDK on",
  group: "app-handle-sdk",
  baseline: true,
  async fn() {
    sink += (await byHand(request)).status;
  },
});

Deno.bench({
  name: "Kit app.handle(handler), SDK on",
  group: "app-handle-sdk",
  async fn() {
    sink += (await wrapped(request)).status;
  },
});

globalThis.addEventListener("unload", () => {
  if (sink === -1) console.log(sink);
});
