// The cost of Application's `serve` under load: a trivial Fetch handler on a
// bare Deno.serve ("bare"), wrapped by app.handle() on Deno.serve
// ("handle", the control), and served by the host ("kit": probes, body
// limit, app.handle), the access line below the log level, each in its own
// process, loaded by autocannon with 50 connections on loopback. Rounds
// alternate so drift hits both sides.
//
// Run: deno run -A --config deno.dev.json bench/serve_bench.ts [seconds per round, default 8]
//      deno run -A --config deno.dev.json bench/serve_bench.ts node [seconds]   (Node.js, below)
//      KIT_BENCH_ROUNDS=5 … for more rounds on a busy machine
//      KIT_BENCH_NODE=/path/to/node … another Node.js than the one on PATH
//      KIT_BENCH_NODE_FLAGS="--experimental-async-context-frame" … flags for
//        the servers only (NODE_OPTIONS would reach the npm install too)
//      KIT_BENCH_MODES=hono,kit … only these servers (the first is the peer;
//        Node.js: hono, hono-std, hono-als, hono-als-id, handle, kit)
//      KIT_BENCH_BEFORE=npm-before … adds "kit-before": Kit built in that
//        folder (an earlier checkout's scripts/test_npm.ts), for before/after
//      KIT_BENCH_VALGRIND=20000 … instead of requests per second, the
//        instructions the server executes per request (valgrind's
//        cachegrind; the difference between serving 20000 and 60000
//        requests, so start-up and most of the warm-up cancel out): slow,
//        but much the same on a busy machine as on an idle one, where the
//        rate is not (runs still differ by a few per cent: the JIT)
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { Application } from "../platform/mod.ts";
import { LoggerManager } from "../logging/mod.ts";
import {
  benchRounds,
  CONNECTIONS,
  instructionRounds,
  median,
  NODE_CPU_ON_SIGTERM,
  rateRounds,
  type RateRun,
  type ServerCommand,
} from "./_serve_rounds.ts";

// KIT_BENCH_ROUNDS: more rounds on a busy machine.
const ROUNDS = benchRounds();

const handler = (_request: Request): Response =>
  new Response('{"ok":true}', {
    headers: { "content-type": "application/json" },
  });

// The server side: `serve_bench.ts server <bare|kit>` prints its port.
async function server(mode: string): Promise<void> {
  let stop: () => Promise<unknown>;
  if (mode === "bare") {
    const server = Deno.serve({
      port: 0,
      hostname: "127.0.0.1",
      onListen: ({ port }) => console.log(port),
    }, handler);
    stop = () => server.shutdown();
  } else if (mode === "handle") {
    // The control: app.handle() on a bare Deno.serve, as before `serve`.
    const app = await Application.start({
      configuration: () => ({}),
      logging: () =>
        new LoggerManager().configure({ level: "warning", providers: [] }),
    });
    const server = Deno.serve({
      port: 0,
      hostname: "127.0.0.1",
      onListen: ({ port }) => console.log(port),
    }, app.handle(handler));
    stop = async () => {
      await server.shutdown();
      await app.stop();
    };
  } else {
    const app = await Application.start({
      configuration: () => ({}),
      // The access line is below the level: the cost measured is the
      // host's (probe routing, body limit, request id, context, header).
      logging: () =>
        new LoggerManager().configure({ level: "warning", providers: [] }),
      serve: () => handler,
      server: { port: 0, hostname: "127.0.0.1" },
    });
    console.log(new URL(app.url!).port);
    stop = () => app.stop();
  }
  Deno.addSignalListener("SIGTERM", async () => {
    await stop();
    Deno.exit(0);
  });
}

// Node.js: Kit's built npm package (scripts/test_npm.ts builds it and
// installs its workspace in npm/, or KIT_NPM_OUT; it serves through
// @hono/node-server's request listener, which replaces the global Request
// and Response with lighter ones) against a bare @hono/node-server app,
// installed with npm into a temporary folder at the version deno.dev.json
// names: as it comes ("hono", the peer of the goal) and with the standard
// objects ("hono-std", for what the replacement is worth).
const NODE_SERVER = `
import process from "node:process";
const [mode, out] = process.argv.slice(2);
const handler = () =>
  new Response('{"ok":true}', { headers: { "content-type": "application/json" } });
const kit = async () => ({
  ...(await import(out + "/node_modules/@vendor/kit-platform/esm/mod.js")),
  ...(await import(out + "/node_modules/@vendor/kit-platform-logging/esm/mod.js")),
});
const quiet = (LoggerManager) => () =>
  new LoggerManager().configure({ level: "warning", providers: [] });
let stop;
if (mode === "kit") {
  const { Application, LoggerManager } = await kit();
  const app = await Application.start({
    configuration: () => ({}),
    logging: quiet(LoggerManager),
    serve: () => handler,
    server: { port: 0, hostname: "127.0.0.1" },
  });
  console.log(new URL(app.url).port);
  stop = () => app.stop();
} else {
  // By default @hono/node-server replaces the global Request and Response
  // with lighter ones of its own, as Kit's server does; "hono-std" keeps the
  // standard ones. "handle" (the control) is app.handle() around the
  // handler on a bare @hono/node-server: what the request id, context and
  // access line cost, apart from the server. "hono-als": the bare app with
  // each request run in an AsyncLocalStorage, as any handler that carries
  // a context must: the floor for Kit, whose request context is one.
  // "hono-als-id": that floor with what Kit's behaviour adds to every
  // request at the least: a request id (crypto.randomUUID) in the context
  // and on the response as X-Request-ID.
  let fetch = handler;
  let app;
  if (mode === "hono-als") {
    const { AsyncLocalStorage } = await import("node:async_hooks");
    const storage = new AsyncLocalStorage();
    fetch = (request, env) => storage.run({ request }, handler, request, env);
  } else if (mode === "hono-als-id") {
    const { AsyncLocalStorage } = await import("node:async_hooks");
    const storage = new AsyncLocalStorage();
    const withId = (request, requestId) =>
      new Response('{"ok":true}', {
        headers: { "content-type": "application/json", "X-Request-ID": requestId },
      });
    fetch = (request) => {
      const requestId = crypto.randomUUID();
      return storage.run({ requestId }, withId, request, requestId);
    };
  } else if (mode === "handle") {
    const { Application, LoggerManager } = await kit();
    app = await Application.start({
      configuration: () => ({}),
      logging: quiet(LoggerManager),
    });
    fetch = app.handle(handler);
  }
  const { serve } = await import("@hono/node-server");
  const server = serve({
    fetch, port: 0, hostname: "127.0.0.1",
    overrideGlobalObjects: mode !== "hono-std",
  }, (info) => console.log(info.port));
  stop = async () => {
    await new Promise((resolve) => server.close(resolve));
    await app?.stop();
  };
}
` + NODE_CPU_ON_SIGTERM;

async function nodeCommand(): Promise<ServerCommand> {
  const root = new URL("..", import.meta.url).pathname;
  const out = resolve(root, Deno.env.get("KIT_NPM_OUT") ?? "npm");
  if (!existsSync(join(out, "node_modules/@vendor/kit-platform"))) {
    throw new Error(
      `no built packages in ${out}: run scripts/test_npm.ts first (KIT_NPM_TESTS=platform is enough)`,
    );
  }
  const imports = JSON.parse(
    await Deno.readTextFile(new URL("../deno.dev.json", import.meta.url)),
  ).imports as Record<string, string>;
  const spec = imports["@hono/node-server"].slice("npm:".length);
  const dir = await Deno.makeTempDir({ prefix: "kit-serve-bench-" });
  await Deno.writeTextFile(join(dir, "package.json"), '{"type":"module"}');
  await Deno.writeTextFile(join(dir, "server.mjs"), NODE_SERVER);
  const install = await new Deno.Command("npm", {
    args: ["install", spec, "--no-audit", "--no-fund", "--silent"],
    cwd: dir,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!install.success) throw new Error(`npm install ${spec} failed`);
  temporary = dir;
  const before = Deno.env.get("KIT_BENCH_BEFORE");
  // Flags for the servers alone: NODE_OPTIONS would also reach the `npm install`
  // above, whose Node.js (20) refuses --experimental-async-context-frame.
  const flags = Deno.env.get("KIT_BENCH_NODE_FLAGS")?.split(" ").filter((
    flag,
  ) => flag !== "") ?? [];
  return (mode) =>
    mode === "kit-before"
      ? [node, ...flags, join(dir, "server.mjs"), "kit", resolve(root, before!)]
      : [node, ...flags, join(dir, "server.mjs"), mode, out];
}

// The Node.js that runs the servers, and its folder of @hono/node-server.
const node = Deno.env.get("KIT_BENCH_NODE") ?? "node";
let temporary: string | undefined;

async function main(seconds: number, runtime: string): Promise<void> {
  const deno = runtime !== "node";
  const modes = Deno.env.get("KIT_BENCH_MODES")?.split(",") ??
    (deno ? ["bare", "handle", "kit"] : [
      "hono",
      "hono-als",
      "kit",
      ...(Deno.env.has("KIT_BENCH_BEFORE") ? ["kit-before"] : []),
      "handle",
      "hono-std",
    ]);
  const command = deno
    ? (mode: string): ReturnType<ServerCommand> => [
      Deno.execPath(),
      "run",
      "-A",
      // The server imports what this file imports (autocannon), which only
      // deno.dev.json maps.
      "--config",
      new URL("../deno.dev.json", import.meta.url).pathname,
      new URL(import.meta.url).pathname,
      "server",
      mode,
    ]
    : await nodeCommand();
  const amount = Number(Deno.env.get("KIT_BENCH_VALGRIND") ?? 0);
  if (amount > 0) {
    try {
      await countInstructions(modes, amount, command, runtime);
    } finally {
      if (temporary !== undefined) rmSync(temporary, { recursive: true });
    }
    return;
  }
  let results: Map<string, RateRun[]>;
  try {
    results = await rateRounds(modes, ROUNDS, seconds, command);
  } finally {
    if (temporary !== undefined) rmSync(temporary, { recursive: true });
  }
  const peer = median(results.get(modes[0])!.map((r) => r.requests));
  const peerName = deno ? "bare Deno.serve" : "bare @hono/node-server";
  const version = deno ? Deno.version.deno : new TextDecoder().decode(
    (await new Deno.Command(node, { args: ["--version"] }).output()).stdout,
  ).trim();
  console.log(
    `${runtime} ${version}: ${CONNECTIONS} connections, ${seconds} s x ${ROUNDS} rounds, median req/s`,
  );
  const peerRounds = results.get(modes[0])!;
  for (const mode of modes) {
    const rows = results.get(mode)!;
    const rps = median(rows.map((r) => r.requests));
    // Each round's ratio to the peer's run just before it, whose load was
    // nearly the same: steadier than the ratio of medians on a busy machine.
    const ratios = rows.map((r, i) => r.requests / peerRounds[i].requests);
    const paired = median(ratios);
    const cpu = rows[0].cpu === undefined
      ? ""
      : `  CPU ${
        median(rows.map((r) => r.cpu!)).toFixed(1)
      } µs/req (peer's / this, median of rounds ${
        (median(rows.map((r, i) => peerRounds[i].cpu! / r.cpu!)) * 100)
          .toFixed(1)
      } %)`;
    console.log(
      `${mode.padEnd(8)} ${rps.toFixed(0).padStart(7)} req/s  p50 ${
        median(rows.map((r) => r.p50))
      } ms  p99 ${median(rows.map((r) => r.p99))} ms  ${
        (rps / peer * 100).toFixed(1)
      } % of ${peerName} (round ratios median ${
        (paired * 100).toFixed(1)
      } %, min ${(Math.min(...ratios) * 100).toFixed(1)} %)${cpu}`,
    );
  }
}

// KIT_BENCH_VALGRIND: instructions per request, each mode against the first.
async function countInstructions(
  modes: string[],
  amount: number,
  command: ServerCommand,
  runtime: string,
): Promise<void> {
  const perRequest = await instructionRounds(modes, ROUNDS, amount, command, {
    timeoutSeconds: 60,
    onErrors: "fail",
    progress: false,
  });
  const peer = perRequest.get(modes[0])!;
  console.log(
    `${runtime}: instructions per request (${amount} and ${
      3 * amount
    } requests, ${CONNECTIONS} connections, ${ROUNDS} rounds)`,
  );
  for (const mode of modes) {
    const rows = perRequest.get(mode)!;
    // The share of the peer's work: what this server's rate would be, as a
    // part of the peer's, were instructions all that counted.
    const shares = rows.map((value, i) => peer[i] / value);
    console.log(
      `${mode.padEnd(10)} ${
        Math.round(median(rows)).toLocaleString("en-US").padStart(7)
      } per request  ${modes[0]}'s / this: median ${
        (median(shares) * 100).toFixed(1)
      } %, min ${(Math.min(...shares) * 100).toFixed(1)} % (rounds: ${
        rows.map((value) => Math.round(value)).join(", ")
      })`,
    );
  }
}

if (Deno.args[0] === "server") await server(Deno.args[1] ?? "bare");
else if (Deno.args[0] === "node") await main(Number(Deno.args[1] ?? 8), "node");
else await main(Number(Deno.args[0] ?? 8), "deno");
