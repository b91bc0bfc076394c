// The cost of Application's `serve` under load: a trivial Fetch handler on a
// bare Deno.serve ("bare"), wrapped by app.handle() on Deno.serve
// ("handle", the control), and served by the host ("kit": probes, body
// limit, app.handle), the access line below the log level, each in its own
// process, loaded by autocannon with 50 connections on loopback. Rounds
// alternate so drift hits both sides.
//
// Run: deno run -A bench/serve_bench.ts [seconds per round, default 8]
import autocannon from "autocannon";
import { Application } from "../platform/mod.ts";
import { LoggerManager } from "../logging/mod.ts";

const CONNECTIONS = 50;
const ROUNDS = 3;

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

interface Result {
  requests: number;
  p50: number;
  p99: number;
}

async function measure(mode: string, seconds: number): Promise<Result> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "server", mode],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the ${mode} server ended before listening`);
    text += value;
  }
  const port = Number(text.trim());
  try {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/`,
      connections: CONNECTIONS,
      duration: seconds,
    });
    if (result.errors > 0 || result.non2xx > 0) {
      throw new Error(
        `${mode}: ${result.errors} errors, ${result.non2xx} non-2xx`,
      );
    }
    return {
      requests: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
    };
  } finally {
    child.kill("SIGTERM");
    await child.status;
    reader.releaseLock();
  }
}

async function main(seconds: number): Promise<void> {
  const modes = ["bare", "handle", "kit"] as const;
  const results = new Map<string, Result[]>(modes.map((mode) => [mode, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      results.get(mode)!.push(await measure(mode, seconds));
    }
  }
  const median = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const bare = median(results.get("bare")!.map((r) => r.requests));
  console.log(
    `${CONNECTIONS} connections, ${seconds} s x ${ROUNDS} rounds, median req/s`,
  );
  for (const mode of modes) {
    const rows = results.get(mode)!;
    const rps = median(rows.map((r) => r.requests));
    console.log(
      `${mode.padEnd(6)} ${rps.toFixed(0).padStart(7)} req/s  p50 ${
        median(rows.map((r) => r.p50))
      } ms  p99 ${median(rows.map((r) => r.p99))} ms  ${
        (rps / bare * 100).toFixed(1)
      } % of bare Deno.serve`,
    );
  }
}

if (Deno.args[0] === "server") await server(Deno.args[1] ?? "bare");
else await main(Number(Deno.args[0] ?? 8));
