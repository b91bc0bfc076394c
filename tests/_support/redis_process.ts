// What every Redis fixture shares (the single server of the caching tests,
// the Cluster and the Sentinel set): finding the Debian binaries, free
// loopback ports, starting one redis process with its own directory and log
// and waiting until it answers PING, and asking it something through
// redis-cli.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { delimiter, join } from "node:path";
import process from "node:process";
import { delay, waitFor } from "./wait_for.ts";

export { delay };

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

/**
 * `true` when a Redis process answers on 127.0.0.1:`port`: `+PONG`, or
 * `-NOAUTH` when it wants a password (it is up either way). A raw socket,
 * so that a fixture needs no redis-cli to start a server.
 */
export function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once("error", () => finish(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data: Uint8Array) => {
      const text = new TextDecoder().decode(data);
      finish(text.startsWith("+PONG") || text.startsWith("-NOAUTH"));
    });
  });
}

/**
 * The arguments every fixture's redis-server gets: its port on loopback, its
 * own directory and log file, no RDB snapshots and (unless `appendOnly`) no
 * append-only file.
 */
export function serverArgs(
  port: number,
  dir: string,
  logFile: string,
  appendOnly = false,
): string[] {
  return [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    appendOnly ? "yes" : "no",
    "--logfile",
    logFile,
  ];
}

/**
 * Starts a redis process on a free port, trying another port when the one it
 * got was taken in between (up to five times). `launch` starts the given
 * process (`node.start(…)` with `node.port` in its arguments).
 *
 * @throws Error `<what> did not start`, with the end of the last log.
 */
export async function startOnFreePort(
  what: string,
  logFile: string,
  launch: (node: RedisProcess) => Promise<boolean>,
): Promise<RedisProcess> {
  let last: RedisProcess | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const node = new RedisProcess(await freePort(), logFile);
    last = node;
    if (await launch(node)) return node;
    await node.kill();
  }
  throw new Error(`${what} did not start:\n${await last?.log()}`);
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

  /**
   * Starts `binary args…` (again, after `kill()`, on the same port); `true`
   * once the port answers PING, `false` when the process died first or did
   * not answer within 15 s.
   */
  async start(binary: string, args: string[]): Promise<boolean> {
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
    const port = this.port;
    return await waitFor(
      async () => dead || await ping(port),
      `redis on port ${port}`,
      15_000,
      25,
    ).then(() => !dead, () => false);
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

  /** Freezes the process (SIGSTOP): connections stay open, nothing answers. */
  pause(): void {
    this.#signal("SIGSTOP");
  }

  /** Thaws it (SIGCONT). */
  resume(): void {
    this.#signal("SIGCONT");
  }

  // process.kill, not child.kill: Deno's ChildProcess ignores any kill()
  // after the first one, so SIGCONT and the final SIGKILL would be lost.
  #signal(signal: "SIGSTOP" | "SIGCONT"): void {
    const pid = this.#child?.pid;
    if (pid !== undefined) process.kill(pid, signal);
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
