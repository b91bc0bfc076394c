// What the Redis Cluster and Sentinel fixtures share: finding the Debian
// binaries, free loopback ports, starting one redis process with its own
// directory and log, asking it something through redis-cli, and waiting.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import process from "node:process";

/** Path of a Redis binary (`redis-server`, `redis-cli`…), when installed. */
export function findBinary(name: string): string | undefined {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) =>
    dir !== ""
  );
  for (const dir of [...dirs, "/usr/bin", "/usr/sbin", "/usr/local/bin"]) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * `false` when every binary is installed, else the reason a test gives to
 * node:test's `skip` option (printed once, loudly).
 */
export function skipUnless(what: string, names: string[]): string | false {
  const missing = names.filter((name) => findBinary(name) === undefined);
  if (missing.length === 0) return false;
  const reason = `${
    missing.join(", ")
  } not installed (apt-get install redis-server redis-tools redis-sentinel; .ci/run does it): ${what} tests SKIPPED`;
  console.warn(`\n!!!!! ${reason} !!!!!\n`);
  return reason;
}

/** A free TCP port on 127.0.0.1 (free when asked). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null
    ? address.port
    : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits `ms` milliseconds. */
export const delay = (ms: number): Promise<void> =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until `condition()` holds, polling; fails after `timeout` ms. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeout = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeout}ms waiting for ${what}`);
    }
    await delay(50);
  }
}

/**
 * Runs redis-cli against 127.0.0.1:`port` and answers its output (empty
 * when it fails or takes more than 5 s).
 */
export function cli(
  port: number,
  args: string[],
  password?: string,
): Promise<string> {
  const binary = findBinary("redis-cli") ?? "redis-cli";
  const auth = password === undefined
    ? []
    : ["--no-auth-warning", "-a", password];
  return new Promise((resolve) => {
    execFile(
      binary,
      ["-h", "127.0.0.1", "-p", String(port), ...auth, ...args],
      { timeout: 5000 },
      (error, stdout) => resolve(error === null ? String(stdout) : ""),
    );
  });
}

/** One running redis-server or redis-sentinel process. */
export class RedisProcess {
  readonly port: number;
  readonly logFile: string;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();

  constructor(port: number, logFile: string) {
    this.port = port;
    this.logFile = logFile;
  }

  /** Starts `binary args…`; `true` once the port answers PING. */
  async start(
    binary: string,
    args: string[],
    password?: string,
  ): Promise<boolean> {
    const child = spawn(binary, args, { stdio: "ignore" });
    this.#child = child;
    let dead = false;
    this.#exited = new Promise<void>((resolve) => {
      child.once("exit", () => {
        dead = true;
        resolve();
      });
      child.once("error", () => {
        dead = true;
        resolve();
      });
    });
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (dead) return false;
      if ((await cli(this.port, ["PING"], password)).includes("PONG")) {
        return true;
      }
      await delay(25);
    }
    return false;
  }

  get running(): boolean {
    const child = this.#child;
    return child !== undefined && child.exitCode === null &&
      child.signalCode === null;
  }

  /** SIGKILL, as a crash. */
  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined) return;
    // process.kill, not child.kill: Deno's ChildProcess ignores a kill()
    // after the first one.
    if (child.exitCode === null && child.signalCode === null) {
      try {
        if (child.pid !== undefined) process.kill(child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await this.#exited;
  }

  /** SIGKILL without waiting for the exit. */
  killNow(): void {
    const pid = this.#child?.pid;
    this.#child = undefined;
    try {
      if (pid !== undefined) process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  /** The end of its log, for a failure message. */
  async log(): Promise<string> {
    const text = await readFile(this.logFile, "utf8").catch(() => "(no log)");
    return text.split("\n").slice(-30).join("\n");
  }
}
