/**
 * Throughput of the example service beside a bare Hono app with the same
 * routes (tools/bare_hono.ts), in the same run, on Deno: `autocannon` with 50
 * connections over loopback, 2 s of warm-up then 10 s per route, two rounds
 * alternating between the two apps; the
 * resident memory (RSS) of each server after its runs. The service runs
 * twice: with `LOG_LEVEL=warning` (no access log line per request) and with
 * `LOG_LEVEL=info` (one access log line per request, written to a pipe that
 * is drained).
 *
 * Run: `deno run -A --config deno.dev.json examples/service/tools/bench.ts [--duration 10]`
 *
 * @module
 */
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const SERVICE = join(dirname(fileURLToPath(import.meta.url)), "..");
const at = process.argv.indexOf("--duration");
const DURATION = at === -1 ? 10 : Number(process.argv[at + 1]);

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

interface Result {
  requests: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function load(
  url: string,
  duration: number,
  headers: Record<string, string> = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, connections: 50, duration, headers },
      (error: Error | null, result: {
        requests: { average: number };
        latency: { p99: number };
        errors: number;
        non2xx: number;
      }) => {
        if (error) reject(error);
        else {
          resolve({
            requests: result.requests.average,
            p99: result.latency.p99,
            errors: result.errors,
            non2xx: result.non2xx,
          });
        }
      },
    );
  });
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

interface Row {
  app: string;
  route: string;
  requests: number;
  p99: number;
  rss: number;
}

async function measure(
  name: string,
  entry: string,
  env: Record<string, string>,
): Promise<Row[]> {
  const port = await freePort();
  const child = spawn(Deno.execPath(), ["run", "-A", entry], {
    cwd: SERVICE,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1", // the bare app
      APP_SERVER__HOST: "127.0.0.1", // the service
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  child.stdout!.resume(); // drained, as a log collector would
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (true) {
    try {
      const response = await fetch(`${url}/health`);
      await response.body?.cancel();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const rows: Row[] = [];
  const routes: [string, string, Record<string, string>][] = [
    ["/health", "/health", {}],
    ["/api/hello (cache hit)", "/api/hello?name=Ada", {
      "Accept-Language": "fr-FR,fr;q=0.9",
    }],
  ];
  for (const [route, path, headers] of routes) {
    await load(url + path, 2, headers);
    const result = await load(url + path, DURATION, headers);
    if (result.errors > 0 || result.non2xx > 0) {
      throw new Error(
        `${name} ${route}: ${result.errors} errors, ${result.non2xx} non-2xx`,
      );
    }
    rows.push({
      app: name,
      route,
      requests: Math.round(result.requests),
      p99: result.p99,
      rss: rssMiB(child.pid!),
    });
  }
  const exited = new Promise((resolve) => child.on("exit", resolve));
  process.kill(child.pid!, "SIGTERM");
  await exited;
  return rows;
}

// Two rounds, alternating, so a busy moment on a shared machine shows as a
// difference between rounds instead of skewing one side.
const rows: Row[] = [];
for (const round of [1, 2]) {
  rows.push(
    ...await measure(`bare Hono (round ${round})`, "tools/bare_hono.ts", {}),
    ...await measure(
      `Kit service, LOG_LEVEL=warning (round ${round})`,
      "main.ts",
      { LOG_LEVEL: "warning" },
    ),
  );
}
rows.push(
  ...await measure("Kit service, LOG_LEVEL=info", "main.ts", {
    LOG_LEVEL: "info",
  }),
);
// Each row against the bare app's figure for its route in the same round
// (round 2 for the info run, measured right after it).
const bare = new Map(
  rows.filter((row) => row.app.startsWith("bare Hono")).map((row) => [
    `${row.route}${/round (\d)/.exec(row.app)?.[1]}`,
    row.requests,
  ]),
);
console.log(
  `\n${Deno.version.deno === undefined ? "" : `Deno ${Deno.version.deno}`}, ` +
    `autocannon, 50 connections, ${DURATION} s per route after 2 s of warm-up\n`,
);
console.log(
  "| App | Route | Requests/s | vs bare Hono | p99 latency | RSS after |",
);
console.log("|---|---|---:|---:|---:|---:|");
for (const row of rows) {
  const round = /round (\d)/.exec(row.app)?.[1] ?? "2";
  const share = Math.round(
    (row.requests / bare.get(`${row.route}${round}`)!) * 100,
  );
  console.log(
    `| ${row.app} | ${row.route} | ${row.requests} | ${share} % | ${row.p99} ms | ${row.rss} MiB |`,
  );
}
