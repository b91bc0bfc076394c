// Helpers of the page test: the example service in a child process (Deno,
// from the sources) whose log is kept, a collector standing for the analytics
// endpoint the service forwards to, Chromium's place and flags, and waits.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { startTestServer, type TestServer } from "../_support/http_server.ts";
import { untilListening } from "../_support/listening.ts";

/** The repository's root folder. */
export const ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/** Chromium as .ci/run finds it (on PATH), else Debian's place. */
export const CHROMIUM: string = spawnSync("sh", ["-c", "command -v chromium"], {
  encoding: "utf8",
}).stdout?.trim() || "/usr/bin/chromium";

/** The flags of the other real-Chromium tests. */
export const CHROMIUM_ARGS: string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Whether Chromium is installed. */
export const hasChromium: boolean = existsSync(CHROMIUM);

/** The example service, running. */
export interface RunningService {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `deno run -A examples/service/main.ts` on a free loopback port, in
 * the development environment (debug logging), with `env` added.
 *
 * @param env Extra variables.
 * @returns The running service, once it listens.
 */
export async function startService(
  env: Record<string, string>,
): Promise<RunningService> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) base[key] = value;
  }
  for (
    const name of [
      "RUNTIME_ENV",
      "DB_CONNECTION_STRING",
      "REDIS_HOST",
      "LOG_REMOTE_ENDPOINT",
      "KIT_CONFIG_PATH",
      "JWT_SECRET",
      "AUTH_TOKEN_EXPIRY",
    ]
  ) delete base[name];
  const child: ChildProcess = spawn(
    process.execPath,
    ["run", "-A", "examples/service/main.ts"],
    {
      cwd: ROOT,
      env: {
        ...base,
        PORT: "0",
        APP_SERVER__HOST: "127.0.0.1",
        NO_COLOR: "1",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const { url, output, exited } = await untilListening(child);
  return {
    url,
    output,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      process.kill(child.pid!, "SIGTERM");
      return await exited;
    },
  };
}

/** An analytics event as the collector received it. */
export interface CollectedEvent {
  type: string;
  name: string;
  properties: Record<string, unknown>;
  anonymousId?: string;
  timestamp: number;
}

/** The analytics endpoint the service forwards the page's events to. */
export interface Collector {
  server: TestServer;
  /** Every event received, in arrival order. */
  events(): CollectedEvent[];
}

/**
 * Starts a collector answering 200 to `POST /collect`.
 *
 * @returns The collector.
 */
export async function startCollector(): Promise<Collector> {
  const server = await startTestServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end('{"ok":true}');
  });
  return {
    server,
    events: () =>
      server.requests.flatMap((request) =>
        (JSON.parse(request.body) as { events?: CollectedEvent[] }).events ??
          []
      ),
  };
}
