// app.handle() in this checkout against app.handle() of an earlier one, in
// the same process, with no OpenTelemetry SDK registered: the cost the
// telemetry adds when nothing is listening. Batches of calls alternate
// between the two (so a busy machine slows both alike) and the median of the
// paired ratios is printed.
//
// With `--sdk`, the OpenTelemetry SDK is registered (sampling on, spans
// exported to nowhere) and the earlier app.handle() is instrumented by hand
// with @opentelemetry/api as an application would (bench/_hand_traced.ts):
// Kit's own telemetry against the same calls instrumented by hand.
//
// Run: git archive <commit> | tar -x -C /tmp/kit-before
//      deno run -A --config deno.dev.json bench/app_handle_ab.ts /tmp/kit-before [--sdk]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Application as Current } from "../platform/mod.ts";
import { handTraced, registerSdk } from "./_hand_traced.ts";

const before = Deno.args.find((arg) => !arg.startsWith("--"));
const sdk = Deno.args.includes("--sdk");
if (sdk) registerSdk();
if (before === undefined) {
  console.error(
    "usage: deno run -A --config deno.dev.json bench/app_handle_ab.ts <earlier checkout>",
  );
  Deno.exit(2);
}
const { Application: Earlier } = await import(
  pathToFileURL(resolve(before, "platform/mod.ts")).href
) as { Application: typeof Current };

type Handler = (request: Request) => Promise<Response>;
const logging = () => ({
  debug: () => {},
  info: () => {},
  warning: () => {},
  error: () => {},
  // The access line below the level, as in production at `warning`.
  isEnabled: () => false,
});
const bare = (_request: Request): Response => new Response("ok");
const current: Handler = (await Current.start({
  configuration: () => ({}),
  logging,
})).handle(bare);
const earlierHandle: Handler = (await Earlier.start({
  configuration: () => ({}),
  logging,
})).handle(bare);
const earlier: Handler = sdk ? handTraced(earlierHandle) : earlierHandle;
const request = new Request("http://localhost/orders/7", {
  headers: { "x-request-id": "bench-1" },
});

let sink = 0;
async function batch(handler: Handler, calls: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) sink += (await handler(request)).status;
  return (performance.now() - started) / calls * 1000;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[values.length >> 1];

for (let i = 0; i < 20; i++) {
  await batch(current, 500);
  await batch(earlier, 500);
}
const now: number[] = [];
const then: number[] = [];
for (let i = 0; i < 300; i++) {
  if (i % 2 === 0) {
    then.push(await batch(earlier, 1000));
    now.push(await batch(current, 1000));
  } else {
    now.push(await batch(current, 1000));
    then.push(await batch(earlier, 1000));
  }
}
const ratio = median(now.map((value, i) => value / then[i]));
console.log(
  `app.handle(), ${
    sdk ? "SDK on, earlier instrumented by hand" : "no SDK"
  }: earlier ${median(then).toFixed(2)} µs, this ${
    median(now).toFixed(2)
  } µs per call; median paired ratio ${ratio.toFixed(3)}${
    sink === -1 ? "" : ""
  }`,
);
