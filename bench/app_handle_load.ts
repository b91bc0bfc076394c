// The cost of app.handle() under load: a trivial Fetch handler served by
// Deno.serve, bare and wrapped by app.handle() (request id, context, header,
// access line), each in its own process, loaded by autocannon with 50
// concurrent connections on loopback. Rounds alternate so drift hits both.
//
// Run: deno run -A --config deno.dev.json bench/app_handle_load.ts [seconds per round, default 8]
import autocannon from "autocannon";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServerProcess } from "./_server_process.ts";

const SECONDS = Number(Deno.args[0] ?? 8);
const ROUNDS = 3;
const CONNECTIONS = 50;
const here = new URL(".", import.meta.url).pathname;

interface Result {
  requests: number;
  p50: number;
  p99: number;
}

async function measure(mode: string, logFile: string): Promise<Result> {
  const { child, reader, port } = await startServerProcess(mode, [
    Deno.execPath(),
    "run",
    "-A",
    join(here, "_handle_server.ts"),
    mode,
    logFile,
  ]);
  try {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/`,
      connections: CONNECTIONS,
      duration: SECONDS,
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

const dir = await mkdtemp(join(tmpdir(), "kit-handle-bench-"));
const modes = ["bare", "kit", "kit-file"] as const;
const results = new Map<string, Result[]>(modes.map((mode) => [mode, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      results.get(mode)!.push(
        await measure(mode, join(dir, `access-${round}.log`)),
      );
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const bare = median(results.get("bare")!.map((r) => r.requests));
console.log(
  `${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds, median req/s`,
);
for (const mode of modes) {
  const rows = results.get(mode)!;
  const rps = median(rows.map((r) => r.requests));
  console.log(
    `${mode.padEnd(9)} ${rps.toFixed(0).padStart(7)} req/s  p50 ${
      median(rows.map((r) => r.p50))
    } ms  p99 ${median(rows.map((r) => r.p99))} ms  throughput ${
      (rps / bare * 100).toFixed(1)
    } % of bare (overhead ${((bare / rps - 1) * 100).toFixed(1)} %)`,
  );
}
