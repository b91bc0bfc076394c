// A real nginx (Debian's package) as a reverse proxy on loopback, run the way
// a deployment runs it in front of several instances of one service, but
// owned by the caller: in the foreground as a child process, with every path
// it writes (pid, lock, logs, temp files) in its own temp folder, and killed
// with its workers when closed.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import {
  chmod,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  writeFile,
} from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import process from "node:process";

/** Path of the nginx binary (often in /usr/sbin, off a user's PATH), if any. */
export function findNginx(): string | undefined {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((dir) =>
    dir !== ""
  );
  for (const dir of [...dirs, "/usr/sbin", "/usr/local/sbin", "/sbin"]) {
    const candidate = join(dir, "nginx");
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Options of {@linkcode startNginx}. */
export interface NginxOptions {
  /** The nginx binary (see {@linkcode findNginx}). */
  binary: string;
  /** The loopback port to listen on. */
  port: number;
  /** The instances behind it, as `host:port`. */
  upstreams: string[];
  /** How long to wait for it to accept connections, in ms. Default 10 s. */
  startTimeout?: number;
}

/** A running nginx. */
export interface RunningNginx {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** `nginx/1.22.1`, as `nginx -v` names itself. */
  readonly version: string;
  /** The access log so far: `<status> <upstream addresses> <upstream statuses>` per line. */
  accessLog(): Promise<string>;
  /** The error log so far (upstream failures and retries are logged there). */
  errorLog(): Promise<string>;
  /** Stops nginx (SIGTERM, then SIGKILL to its workers too), then removes its folder. */
  close(): Promise<void>;
  /** Kills nginx and its workers at once, synchronously (for an exit handler). */
  kill(): void;
}

/**
 * The configuration: what a deployment in front of several instances of one
 * HTTP service needs, nothing more. Paths are relative to the prefix (`-p`).
 */
export function nginxConfig(port: number, upstreams: string[]): string {
  const servers = upstreams.map((address) =>
    // An instance that fails a request (refused while it restarts) is left
    // out for fail_timeout, then tried again with one live request. The
    // default, 10 s, would keep a restarted instance idle long after it is
    // ready; 1 s brings it back in rotation soon after.
    `    server ${address} max_fails=1 fail_timeout=1s;`
  ).join("\n");
  return `# In the foreground, owned by the process that started it.
daemon off;
# One worker: a proxy on loopback for a bounded load needs no more, and the
# machine's cores stay with the instances.
worker_processes 1;
pid nginx.pid;
lock_file nginx.lock;
error_log error.log warn;

events {
  worker_connections 1024;
}

http {
  log_format upstreams '$status $upstream_addr $upstream_status';
  access_log access.log upstreams;
  client_body_temp_path temp/client_body;
  proxy_temp_path temp/proxy;
  fastcgi_temp_path temp/fastcgi;
  uwsgi_temp_path temp/uwsgi;
  scgi_temp_path temp/scgi;

  upstream service {
${servers}
    # Idle connections to the instances are kept and reused, as a deployment
    # does to spare a TCP handshake per request. When an instance stops, a
    # kept connection may already be closed on its side when nginx sends on
    # it: that is an "error", retried on another instance (below).
    keepalive 16;
    # Below the instances' own idle timeout (Node.js closes an idle
    # keep-alive connection after 5 s), so nginx drops an idle connection
    # before the instance does, not while it is reusing it.
    keepalive_timeout 4s;
  }

  server {
    listen 127.0.0.1:${port};

    location / {
      proxy_pass http://service;
      # Keep-alive to the instances needs HTTP/1.1 and no "Connection: close"
      # passed on from the client.
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      # A request that could not be sent (refused: the instance is down),
      # that timed out, or that a stopping instance answered with 502 or 503
      # (the service drains with 503 + "Connection: close") goes to the next
      # instance. nginx does this only for requests that are safe to send
      # twice (GET, HEAD…) unless told otherwise, which is what a rolling
      # restart wants.
      proxy_next_upstream error timeout http_502 http_503;
      # At most every instance once, and within a bound in time.
      proxy_next_upstream_tries 3;
      proxy_next_upstream_timeout 10s;
      # On loopback a connect either succeeds at once or is refused: a short
      # timeout only matters when an instance hangs, and then the next one
      # is tried soon.
      proxy_connect_timeout 2s;
      proxy_read_timeout 10s;
      proxy_send_timeout 10s;
    }
  }
}
`;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once("error", () => finish(false));
    socket.once("connect", () => finish(true));
  });
}

const delay = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts nginx in front of `upstreams` and waits until it accepts
 * connections.
 *
 * @throws {Error} when nginx rejects the configuration or does not listen in
 * time (with its error output).
 */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  const version = (spawnSync(options.binary, ["-v"], { encoding: "utf8" })
    .stderr ?? "").trim().replace(/^nginx version: /, "");
  const dir = await mkdtemp(join(tmpdir(), "kit-nginx-"));
  // Started as root, the workers run as an unprivileged user, which must
  // reach the temp paths inside.
  await chmod(dir, 0o755);
  // nginx makes the last level of each temp path, not the ones above.
  await mkdir(join(dir, "temp"), { mode: 0o755 });
  const conf = join(dir, "nginx.conf");
  await writeFile(conf, nginxConfig(options.port, options.upstreams));
  // Its own process group, so close() kills the master and its workers
  // together, whatever state they are in.
  const child: ChildProcess = spawn(options.binary, [
    "-p",
    dir + "/",
    "-c",
    conf,
    "-e",
    join(dir, "error.log"),
  ], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  child.stderr!.on("data", (chunk: Uint8Array) => {
    if (stderr.length < 16_384) stderr += new TextDecoder().decode(chunk);
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", (error) => {
      stderr += error.message;
      resolve();
    });
  });
  const running = (): boolean =>
    child.exitCode === null && child.signalCode === null;

  const close = async (): Promise<void> => {
    if (child.pid !== undefined && running()) {
      // SIGTERM is nginx's fast shutdown: the master stops its workers and
      // exits. Whatever is left after a bound is killed, group and all.
      process.kill(child.pid, "SIGTERM");
      await Promise.race([exited, delay(3_000)]);
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
      await Promise.race([exited, delay(2_000)]);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.startTimeout ?? 10_000);
  while (!(await accepts(options.port))) {
    if (!running() || Date.now() > deadline) {
      const log = await readFile(join(dir, "error.log"), "utf8").catch(() =>
        ""
      );
      await close();
      throw new Error(
        `nginx did not listen on 127.0.0.1:${options.port}: ${
          (stderr + log).trim().slice(-2000) || "no output"
        }`,
      );
    }
    await delay(25);
  }
  return {
    url: `http://127.0.0.1:${options.port}`,
    version,
    accessLog: () => readFile(join(dir, "access.log"), "utf8").catch(() => ""),
    errorLog: () => readFile(join(dir, "error.log"), "utf8").catch(() => ""),
    close,
    kill: () => {
      if (child.pid === undefined || !running()) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
    },
  };
}
