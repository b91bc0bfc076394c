// The rounds of the serving benches (serve_bench.ts, serve_peers_bench.ts):
// each server started in its own process (_server_process.ts), loaded by
// autocannon on loopback, the servers alternating within a round so that
// drift hits each of them alike. Either the rate under a timed load, or
// (KIT_BENCH_VALGRIND) the instructions the server executes per request,
// counted by valgrind's cachegrind.
import autocannon from "autocannon";
import { startServerProcess } from "./_server_process.ts";

/** The connections autocannon keeps open to the server. */
export const CONNECTIONS = 50;

/** The program and arguments that start the server named `mode`. */
export type ServerCommand = (mode: string) => [string, ...string[]];

/** One server's run under a timed load. */
export interface RateRun {
  /** Requests per second (autocannon's mean over the run). */
  readonly requests: number;
  /** The median latency in ms. */
  readonly p50: number;
  /** The 99th percentile latency in ms. */
  readonly p99: number;
  /**
   * The server's CPU time per request in µs, when it printed its CPU time
   * as it stopped (the Node.js servers do; undefined otherwise).
   */
  readonly cpu: number | undefined;
}

/**
 * The end of a Node.js server's script: from here on it counts its CPU time,
 * and on SIGTERM it prints that (`cpu <µs>`, which {@linkcode rateRounds}
 * reads), awaits the script's `stop()` and exits. The script before it
 * imports `process` from `node:process` and sets `stop`.
 *
 * @example
 * ```ts ignore
 * const SERVER = `import process from "node:process";
 * let stop = async () => {};
 * console.log(port);
 * ` + NODE_CPU_ON_SIGTERM;
 * ```
 */
export const NODE_CPU_ON_SIGTERM =
  `// The CPU time from listening to the end of the load.
const base = process.cpuUsage();
process.on("SIGTERM", async () => {
  const used = process.cpuUsage(base);
  console.log("cpu " + (used.user + used.system));
  await stop();
  process.exit(0);
});
`;

/** How the instructions are counted. */
export interface CountOptions {
  /** Seconds autocannon waits for one response under valgrind. */
  readonly timeoutSeconds: number;
  /**
   * What a request that failed (timed out, refused) does: "fail" ends the
   * bench; "report" says it on standard error and keeps the count, which
   * then includes whatever the server did for that request.
   */
  readonly onErrors: "fail" | "report";
  /** Whether each count is printed on standard error as it is made. */
  readonly progress: boolean;
}

/**
 * The rounds asked for in KIT_BENCH_ROUNDS (more on a busy machine).
 *
 * @returns The number of rounds; 3 when the variable is unset.
 * @throws {Error} When KIT_BENCH_ROUNDS is not a whole number of 1 or more.
 * @example
 * ```ts ignore
 * const rounds = benchRounds(); // 3, or KIT_BENCH_ROUNDS
 * ```
 */
export function benchRounds(): number {
  const text = Deno.env.get("KIT_BENCH_ROUNDS") ?? "3";
  const rounds = Number(text);
  if (!Number.isInteger(rounds) || rounds < 1) {
    throw new Error(
      `KIT_BENCH_ROUNDS=${text}: give a whole number of rounds, 1 or more`,
    );
  }
  return rounds;
}

/**
 * The median (the upper one of an even count).
 *
 * @param values The values, in any order (not changed).
 * @returns Their median.
 * @example
 * ```ts ignore
 * median([3, 1, 2]); // 2
 * ```
 */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/**
 * Loads each server for `seconds`, `rounds` times, the servers in the order
 * of `modes` within each round.
 *
 * @param modes The servers, by name.
 * @param rounds How many runs of each.
 * @param seconds The length of each run.
 * @param command How to start a server.
 * @returns Each server's runs, in round order, keyed as `modes`.
 * @throws {Error} When a server ends before listening, or a request fails
 * or gets a status other than 2xx.
 * @example
 * ```ts ignore
 * const runs = await rateRounds(["bare", "kit"], 3, 8, command);
 * median(runs.get("kit")!.map((run) => run.requests));
 * ```
 */
export async function rateRounds(
  modes: readonly string[],
  rounds: number,
  seconds: number,
  command: ServerCommand,
): Promise<Map<string, RateRun[]>> {
  const runs = new Map<string, RateRun[]>(modes.map((mode) => [mode, []]));
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) {
      runs.get(mode)!.push(await measureRate(mode, seconds, command(mode)));
    }
  }
  return runs;
}

/**
 * Counts the instructions each server executes per request, `rounds` times:
 * the count for 3 × `amount` requests less that for `amount`, ÷ 2 ×
 * `amount`, so that start-up, exit and most of the warm-up cancel out.
 *
 * @param modes The servers, by name.
 * @param rounds How many counts of each.
 * @param amount The smaller number of requests.
 * @param command How to start a server (run under valgrind here).
 * @param options The response timeout, what failed requests do, progress.
 * @returns Each server's instructions per request, in round order, keyed as
 * `modes`.
 * @throws {Error} When a server ends before listening, valgrind gives no
 * count, a response is not 2xx, or (with onErrors "fail") a request fails.
 * @example
 * ```ts ignore
 * const counts = await instructionRounds(["hono", "kit"], 1, 20000, command, {
 *   timeoutSeconds: 60,
 *   onErrors: "fail",
 *   progress: false,
 * });
 * ```
 */
export async function instructionRounds(
  modes: readonly string[],
  rounds: number,
  amount: number,
  command: ServerCommand,
  options: CountOptions,
): Promise<Map<string, number[]>> {
  const perRequest = new Map<string, number[]>(
    modes.map((mode) => [mode, []]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) {
      const once = await instructions(mode, amount, command(mode), options);
      const thrice = await instructions(
        mode,
        3 * amount,
        command(mode),
        options,
      );
      const value = (thrice - once) / (2 * amount);
      perRequest.get(mode)!.push(value);
      if (options.progress) {
        console.error(`${mode}: ${Math.round(value)} (round ${round + 1})`);
      }
    }
  }
  return perRequest;
}

// One server under a timed load.
async function measureRate(
  mode: string,
  seconds: number,
  command: [string, ...string[]],
): Promise<RateRun> {
  const { child, reader, port, rest } = await startServerProcess(
    mode,
    command,
  );
  let text = rest;
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
    child.kill("SIGTERM");
    // A Node.js server prints its CPU time under load as it stops: on a
    // busy machine the CPU per request is steadier than the rate.
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const cpu = /^cpu (\d+)$/m.exec(text);
    return {
      requests: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      cpu: cpu === null ? undefined : Number(cpu[1]) / result.requests.total,
    };
  } finally {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await child.status;
    reader.releaseLock();
  }
}

// The instructions a server process executes while serving `amount`
// requests, start-up and exit included.
async function instructions(
  mode: string,
  amount: number,
  command: [string, ...string[]],
  options: CountOptions,
): Promise<number> {
  const log = await Deno.makeTempFile({ prefix: "kit-serve-rounds-" });
  try {
    const { child, reader, port } = await startServerProcess(mode, [
      "valgrind",
      "--tool=cachegrind",
      "--cache-sim=no",
      "--cachegrind-out-file=/dev/null",
      `--log-file=${log}`,
      ...command,
    ]);
    try {
      const result = await autocannon({
        url: `http://127.0.0.1:${port}/`,
        connections: CONNECTIONS,
        amount,
        timeout: options.timeoutSeconds,
      });
      if (options.onErrors === "fail") {
        if (result.errors > 0 || result.non2xx > 0) {
          throw new Error(
            `${mode}: ${result.errors} errors, ${result.non2xx} non-2xx`,
          );
        }
      } else {
        if (result.non2xx > 0) {
          throw new Error(`${mode}: ${result.non2xx} non-2xx responses`);
        }
        // The count includes whatever the server did for the requests
        // that timed out: said, not hidden.
        if (result.errors > 0) {
          console.error(`${mode}, ${amount} requests: ${result.errors} errors`);
        }
      }
    } finally {
      child.kill("SIGTERM");
      await reader.cancel();
      await child.status;
    }
    const refs = /I\s+refs:\s+([\d,]+)/.exec(await Deno.readTextFile(log));
    if (refs === null) throw new Error(`${mode}: no count from valgrind`);
    return Number(refs[1].replaceAll(",", ""));
  } finally {
    await Deno.remove(log);
  }
}
