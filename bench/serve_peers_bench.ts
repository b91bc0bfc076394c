// Kit's `serve` on Node.js beside what users pick instead, each with the
// request context the framework offers: one trivial JSON route
// (`GET /` → `{"ok":true}`, as bench/serve_bench.ts), no access line, each
// server in its own Node.js process, loaded by autocannon with 50
// connections on loopback; rounds alternate so drift hits every server.
//
//   node-server      bare @hono/node-server, a Fetch handler (the reference)
//   node-server-als  the same, each request run in an AsyncLocalStorage
//                    (the floor for any server that gives a request context)
//   fastify          Fastify 5, no logger
//   fastify-ctx      Fastify 5 with @fastify/request-context
//   nest             NestJS 11 on @nestjs/platform-fastify, no logger
//   nest-cls         the same with nestjs-cls (its middleware, an id per
//                    request)
//   hono-ctx         Hono with its contextStorage() on @hono/node-server
//   kit              Kit's `serve` with a plain handler
//   kit-hono         Kit's `serve` with a Hono app through kit(hono), as
//                    the generator writes it
// and, by name in KIT_BENCH_MODES only (for the cost of kit() itself):
//   hono             Hono on @hono/node-server, no middleware
//   kit-hono-bare    Kit's `serve` with the Hono app without kit()
//   kit-hono-mw      … with the older middleware form, hono.use(kit())
//   kit-hono-pass    … with a middleware that only awaits next() in its place
//
// The NestJS app is plain JavaScript calling the decorators as functions
// (`Reflect.decorate`, as compiled TypeScript does), so nothing is compiled.
//
// The peers are installed with npm at the versions of PEERS below into
// .bench-tmp/serve-peers/ (gitignored), together with Kit's packages built
// into KIT_NPM_OUT (default .bench-tmp/kit-npm):
//
//   KIT_NPM_OUT=.bench-tmp/kit-npm deno run -A --config deno.dev.json scripts/build_npm.ts
//   deno run -A --config deno.dev.json bench/serve_peers_bench.ts [seconds per round, default 8]
//
// Environment:
//   KIT_NPM_OUT=<dir>          where Kit's packages were built
//   KIT_BENCH_DIR=<dir>        another install folder (two runs at once)
//   KIT_BENCH_NODE=<node>      another Node.js than the one on PATH, e.g.
//                              npm install --prefix /tmp/node24 node@24, then
//                              KIT_BENCH_NODE=/tmp/node24/node_modules/.bin/node
//   KIT_BENCH_ROUNDS=5         more rounds on a busy machine (default 3)
//   KIT_BENCH_ACCESS=1         Kit's servers build their access line (level
//                              info, no provider): with kit(hono), the route
//                              is looked up for it
//   KIT_BENCH_MODES=kit,fastify-ctx   only these servers (the first is the
//                              one the others are compared with)
//   KIT_BENCH_VALGRIND=5000    instead of requests per second, the
//                              instructions the server executes per request
//                              (valgrind's cachegrind: serving 3N requests
//                              minus serving N, ÷ 2N, so start-up and most of
//                              the warm-up cancel out): slow, but much the
//                              same on a busy machine as on an idle one
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  benchRounds,
  CONNECTIONS,
  instructionRounds,
  median,
  NODE_CPU_ON_SIGTERM,
  rateRounds,
  type ServerCommand,
} from "./_serve_rounds.ts";

const ROUNDS = benchRounds();

/** The peers, at the versions measured (BENCHMARKS.md). */
const PEERS: Record<string, string> = {
  "@hono/node-server": "2.1.11",
  "hono": "4.13.23",
  "fastify": "5.12.8",
  "@fastify/request-context": "6.2.1",
  "@nestjs/core": "11.2.12",
  "@nestjs/common": "11.2.12",
  "@nestjs/platform-fastify": "11.2.8",
  "nestjs-cls": "6.3.1",
  "reflect-metadata": "0.2.2",
  "rxjs": "7.8.2",
};

/** Kit's packages the servers load, from KIT_NPM_OUT. */
const KIT_PACKAGES = [
  "kit-core",
  "kit-platform",
  "kit-platform-configuration",
  "kit-platform-logging",
];

const DEFAULT_MODES = [
  "node-server",
  "node-server-als",
  "fastify",
  "fastify-ctx",
  "nest",
  "nest-cls",
  "hono-ctx",
  "kit",
  "kit-hono",
];

// The server side, run by Node.js from the install folder: prints its port,
// and on SIGTERM the CPU time it used from listening on ("cpu <µs>").
const SERVER = `
import process from "node:process";
const mode = process.argv[2];
const BODY = '{"ok":true}';
const handler = () =>
  new Response(BODY, { headers: { "content-type": "application/json" } });
let port;
let stop;

async function honoApp(middleware) {
  const { Hono } = await import("hono");
  const hono = new Hono();
  if (middleware !== undefined) hono.use(middleware);
  hono.get("/", (c) => c.json({ ok: true }));
  return hono;
}

async function nodeServer(fetch) {
  const { serve } = await import("@hono/node-server");
  const server = await new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(server));
  });
  port = server.address().port;
  stop = () => new Promise((resolve) => server.close(resolve));
}

if (mode === "node-server") {
  await nodeServer(handler);
} else if (mode === "node-server-als") {
  const { AsyncLocalStorage } = await import("node:async_hooks");
  const storage = new AsyncLocalStorage();
  await nodeServer((request, env) => storage.run({ request }, handler, request, env));
} else if (mode === "hono" || mode === "hono-ctx") {
  const { contextStorage } = await import("hono/context-storage");
  const hono = await honoApp(mode === "hono-ctx" ? contextStorage() : undefined);
  await nodeServer(hono.fetch);
} else if (mode === "fastify" || mode === "fastify-ctx") {
  const { default: Fastify } = await import("fastify");
  const app = Fastify({ logger: false });
  if (mode === "fastify-ctx") {
    const { fastifyRequestContext } = await import("@fastify/request-context");
    await app.register(fastifyRequestContext);
  }
  app.get("/", async () => ({ ok: true }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  port = app.server.address().port;
  stop = () => app.close();
} else if (mode === "nest" || mode === "nest-cls") {
  await import("reflect-metadata");
  const { Controller, Get, Module } = await import("@nestjs/common");
  const { NestFactory } = await import("@nestjs/core");
  const { FastifyAdapter } = await import("@nestjs/platform-fastify");
  // What TypeScript's decorators compile to (its __decorate helper).
  const decorate = (decorators, target, key) => {
    if (key === undefined) return Reflect.decorate(decorators, target);
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    Object.defineProperty(target, key, Reflect.decorate(decorators, target, key, descriptor));
  };
  let AppController = class AppController {
    hello() { return { ok: true }; }
  };
  decorate([Get()], AppController.prototype, "hello");
  AppController = decorate([Controller()], AppController);
  const imports = [];
  if (mode === "nest-cls") {
    const { ClsModule } = await import("nestjs-cls");
    imports.push(ClsModule.forRoot({ global: true, middleware: { mount: true, generateId: true } }));
  }
  let AppModule = class AppModule {};
  AppModule = decorate([Module({ imports, controllers: [AppController] })], AppModule);
  const app = await NestFactory.create(AppModule, new FastifyAdapter(), { logger: false });
  await app.listen(0, "127.0.0.1");
  port = app.getHttpServer().address().port;
  stop = () => app.close();
} else if (mode.startsWith("kit")) {
  const { Application } = await import("@vendor/kit-platform");
  const { LoggerManager } = await import("@vendor/kit-platform-logging");
  let serve = handler;
  if (mode === "kit-hono") {
    const { kit } = await import("@vendor/kit-platform/hono");
    serve = kit(await honoApp());
  } else if (mode === "kit-hono-mw") {
    const { kit } = await import("@vendor/kit-platform/hono");
    serve = (await honoApp(kit())).fetch;
  } else if (mode === "kit-hono-bare") {
    serve = (await honoApp()).fetch;
  } else if (mode === "kit-hono-pass") {
    serve = (await honoApp(async (_c, next) => { await next(); })).fetch;
  } else if (mode !== "kit") throw new Error("no server " + mode);
  const app = await Application.start({
    configuration: () => ({}),
    // The access line is below the level (built, and sent nowhere, with
    // KIT_BENCH_ACCESS=1).
    logging: () => new LoggerManager().configure({
      level: process.env.KIT_BENCH_ACCESS === "1" ? "info" : "warning",
      providers: [],
    }),
    serve: () => serve,
    server: { port: 0, hostname: "127.0.0.1" },
  });
  port = new URL(app.url).port;
  stop = () => app.stop();
} else {
  throw new Error("no server " + mode);
}
console.log(port);
` + NODE_CPU_ON_SIGTERM;

const ROOT = resolve(new URL("..", import.meta.url).pathname);
const DIR = resolve(
  ROOT,
  Deno.env.get("KIT_BENCH_DIR") ?? join(".bench-tmp", "serve-peers"),
);
const node = Deno.env.get("KIT_BENCH_NODE") ?? "node";

// Installs the peers and Kit's built packages into DIR, once per run (Kit's
// packages are copied, so a rebuild is picked up).
async function install(): Promise<void> {
  const out = resolve(
    ROOT,
    Deno.env.get("KIT_NPM_OUT") ?? join(".bench-tmp", "kit-npm"),
  );
  for (const name of KIT_PACKAGES) {
    if (!existsSync(join(out, name, "package.json"))) {
      throw new Error(
        `no built package ${name} in ${out}: run KIT_NPM_OUT=${out} deno run -A --config deno.dev.json scripts/build_npm.ts first`,
      );
    }
  }
  await Deno.mkdir(DIR, { recursive: true });
  // Kit's packages keep their version from build to build, and the lock
  // file names the folder they came from: npm would keep the copies of an
  // earlier build, or of another KIT_NPM_OUT.
  for (const stale of ["package-lock.json", "node_modules/@vendor"]) {
    await Deno.remove(join(DIR, stale), { recursive: true }).catch(() => {});
  }
  const dependencies: Record<string, string> = { ...PEERS };
  for (const name of KIT_PACKAGES) {
    dependencies[`@vendor/${name}`] = `file:${join(out, name)}`;
  }
  await Deno.writeTextFile(
    join(DIR, "package.json"),
    JSON.stringify({ private: true, type: "module", dependencies }, null, 2),
  );
  await Deno.writeTextFile(join(DIR, "server.mjs"), SERVER);
  const result = await new Deno.Command("npm", {
    args: [
      "install",
      "--install-links",
      "--no-audit",
      "--no-fund",
      "--silent",
    ],
    cwd: DIR,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!result.success) throw new Error(`npm install in ${DIR} failed`);
}

const command: ServerCommand = (mode) => [
  node,
  join(DIR, "server.mjs"),
  mode,
];

const load = (): string => Deno.loadavg().map((v) => v.toFixed(2)).join(" ");

async function main(seconds: number): Promise<void> {
  const modes = Deno.env.get("KIT_BENCH_MODES")?.split(",") ?? DEFAULT_MODES;
  await install();
  const version = new TextDecoder().decode(
    (await new Deno.Command(node, { args: ["--version"] }).output()).stdout,
  ).trim();
  const loadBefore = load();
  const amount = Number(Deno.env.get("KIT_BENCH_VALGRIND") ?? 0);
  if (amount > 0) {
    const perRequest = await instructionRounds(
      modes,
      ROUNDS,
      amount,
      command,
      // Seconds: under valgrind on a loaded machine a request waits long.
      { timeoutSeconds: 600, onErrors: "report", progress: true },
    );
    console.log(
      `Node.js ${version}: instructions per request (${amount} and ${
        3 * amount
      } requests, ${CONNECTIONS} connections, ${ROUNDS} rounds; load ${loadBefore} → ${load()})`,
    );
    const peer = median(perRequest.get(modes[0])!);
    for (const mode of modes) {
      const rows = perRequest.get(mode)!;
      console.log(
        `${mode.padEnd(16)} ${
          Math.round(median(rows)).toLocaleString("en-US").padStart(9)
        } per request  ${modes[0]}'s / this ${
          (peer / median(rows) * 100).toFixed(1)
        } %  (rounds: ${rows.map((v) => Math.round(v)).join(", ")})`,
      );
    }
    return;
  }
  const results = await rateRounds(modes, ROUNDS, seconds, command);
  console.log(
    `Node.js ${version}: ${CONNECTIONS} connections, ${seconds} s x ${ROUNDS} rounds, median req/s (load ${loadBefore} → ${load()})`,
  );
  const peerRounds = results.get(modes[0])!;
  for (const mode of modes) {
    const rows = results.get(mode)!;
    const rps = median(rows.map((r) => r.requests));
    // Each round's ratio to the first server's run in the same round.
    const ratios = rows.map((r, i) => r.requests / peerRounds[i].requests);
    console.log(
      `${mode.padEnd(16)} ${rps.toFixed(0).padStart(7)} req/s  p99 ${
        median(rows.map((r) => r.p99))
      } ms  ${modes[0]} × ${(median(ratios) * 100).toFixed(1)} %  CPU ${
        median(rows.map((r) => r.cpu ?? NaN)).toFixed(1)
      } µs/req`,
    );
  }
}

await main(Number(Deno.args[0] ?? 8));
