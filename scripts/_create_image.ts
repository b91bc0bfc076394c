/**
 * The container part of scripts/create_check.ts: a generated Node.js
 * project's image built with podman from its own Dockerfile, run, probed
 * and stopped; and its compose.yaml read and compared with the Dockerfile,
 * the settings and `.env.example`.
 *
 * The project must be one whose Kit packages are packed into `vendor/`
 * (generated from this checkout), so that its folder is the whole build
 * context. The base image is the local stand-in of `node:20-bookworm-slim`
 * (scripts/_podman.ts); everything above it is the generated Dockerfile.
 *
 * @module
 */
import { mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import {
  type ComposeFile,
  readCompose,
} from "../examples/service/tools/compose.ts";
import {
  containerLogs,
  ensureBaseImage,
  must,
  podman,
  ULIMITS,
} from "./_podman.ts";

/** How {@linkcode checkImage} runs the image. */
export interface ImageRun {
  /** A short name for the image and container tags. */
  label: string;
  /** The generated project's folder (the build context). */
  dir: string;
  /** The time by which everything must be done (epoch ms). */
  deadline: number;
  /** A free loopback port for the service. */
  port: number;
  /**
   * `publish`: the container's port 3000 published on 127.0.0.1:`port`;
   * `host`: the host's network (to reach a Redis or PostgreSQL on its
   * loopback), with `PORT` set to `port`.
   */
  network: "publish" | "host";
  /** More environment variables for the container. */
  env?: Record<string, string>;
  /**
   * Runs once `GET /health/ready` answered 200, with the base URL and the
   * container's name.
   */
  afterReady?: (url: string, container: string) => Promise<void>;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

interface ImageInspect {
  Healthcheck?: {
    Test?: string[];
    Interval?: number;
    Timeout?: number;
    StartPeriod?: number;
    Retries?: number;
  };
  Config: {
    User?: string;
    Env?: string[];
    Cmd?: string[];
    ExposedPorts?: Record<string, unknown>;
  };
}

/**
 * The image's settings that the deployment shape asks for, as problems.
 *
 * @returns One text per value that differs; empty when all match.
 */
function imageProblems(image: ImageInspect): string[] {
  const problems: string[] = [];
  const health = image.Healthcheck;
  const want = { Interval: 30e9, Timeout: 3e9, StartPeriod: 5e9, Retries: 3 };
  for (const [key, value] of Object.entries(want)) {
    const got = health?.[key as keyof typeof want];
    if (got !== value) problems.push(`HEALTHCHECK ${key} ${got}, not ${value}`);
  }
  if (!/\/health'/.test((health?.Test ?? []).join(" "))) {
    problems.push(`HEALTHCHECK does not probe GET /health: ${health?.Test}`);
  }
  const env = image.Config.Env ?? [];
  for (
    const pair of ["RUNTIME_ENV=production", "LOG_LEVEL=info", "PORT=3000"]
  ) {
    if (!env.includes(pair)) problems.push(`no ENV ${pair}`);
  }
  if (!("3000/tcp" in (image.Config.ExposedPorts ?? {}))) {
    problems.push("port 3000 not exposed");
  }
  if ((image.Config.Cmd ?? []).join(" ") !== "node dist/main.js") {
    problems.push(`CMD ${image.Config.Cmd?.join(" ")}, not node dist/main.js`);
  }
  if (
    image.Config.User === undefined || /^(root|0)?$/.test(image.Config.User)
  ) {
    problems.push(`runs as root (USER ${image.Config.User ?? "unset"})`);
  }
  return problems;
}

/**
 * Builds the project's image, runs it with the project's `logs/` folder
 * mounted as compose.yaml mounts it, waits for the image's own HEALTHCHECK
 * (`podman healthcheck run`, 60 s at most), requests `GET /health/ready`,
 * stops it with `podman stop -t 10` and expects exit code 0 from SIGTERM,
 * a shutdown line in its output and a log file in `logs/`. The container
 * and the image are removed on the way out.
 *
 * @param options The project, the port and how to run it.
 * @returns A line with the figures: build, healthy, stop, in all.
 * @throws {Error} Naming the step that failed, with the container's output.
 */
export async function checkImage(options: ImageRun): Promise<string> {
  const began = performance.now();
  const left = (): number => Math.max(1_000, options.deadline - Date.now());
  const base = await ensureBaseImage();
  console.log(
    `  base image node:20-bookworm-slim: ${base}; a local stand-in from this machine's Node.js 20 (no image registry is reachable here), the generated Dockerfile above it is built unchanged`,
  );
  const tag = `localhost/kit-create-check-${options.label}:${process.pid}`;
  const name = `kit-create-check-${options.label}-${process.pid}`;
  try {
    // --layers=false: no intermediate images are kept behind.
    const built = podman([
      "build",
      "--pull=never",
      "--format",
      "docker",
      "--layers=false",
      ...ULIMITS,
      "-t",
      tag,
      options.dir,
    ], Math.min(600_000, left()));
    must(built, "podman build");
    const buildMs = performance.now() - began;
    const image = JSON.parse(
      must(podman(["image", "inspect", tag]), "podman image inspect"),
    )[0] as ImageInspect;
    const problems = imageProblems(image);
    if (problems.length > 0) {
      throw new Error(`the image: ${problems.join("; ")}`);
    }

    const network = options.network === "host"
      ? ["--network", "host", "-e", `PORT=${options.port}`]
      : ["-p", `127.0.0.1:${options.port}:3000`];
    const env = Object.entries(options.env ?? {}).flatMap((
      [key, value],
    ) => ["-e", `${key}=${value}`]);
    const logs = join(options.dir, "logs");
    // What `docker compose up` does with a bind mount whose folder is
    // missing: it makes it, owned by the engine's user (root here).
    await mkdir(logs, { recursive: true });
    const runAt = performance.now();
    must(
      podman([
        "run",
        "-d",
        "--name",
        name,
        ...ULIMITS,
        ...network,
        ...env,
        "-v",
        `${logs}:/app/logs`,
        tag,
      ]),
      "podman run",
    );
    const output = (): string =>
      containerLogs(name).filter((line) => !line.startsWith("time=")).join(
        "\n",
      ).slice(-3000);
    let healthy = false;
    const until = Date.now() + Math.min(60_000, left());
    while (!healthy && Date.now() < until) {
      healthy = podman(["healthcheck", "run", name], 10_000).code === 0;
      if (!healthy) await sleep(250);
    }
    const status = podman([
      "inspect",
      name,
      "--format",
      "{{.State.Health.Status}}",
    ]).stdout.trim();
    if (!healthy || status !== "healthy") {
      throw new Error(
        `podman healthcheck run never passed within 60 s (status ${status}):\n${output()}`,
      );
    }
    const healthyMs = performance.now() - runAt;
    const url = `http://127.0.0.1:${options.port}`;
    const ready = await fetch(`${url}/health/ready`, {
      signal: AbortSignal.timeout(5_000),
    }).catch((error: Error) => error);
    if (ready instanceof Error || ready.status !== 200) {
      throw new Error(
        `GET /health/ready: ${
          ready instanceof Error ? ready.message : ready.status
        }, expected 200:\n${output()}`,
      );
    }
    await ready.body?.cancel();
    await options.afterReady?.(url, name);

    const stopAt = performance.now();
    const stopped = podman(["stop", "-t", "10", name], 30_000);
    const stopMs = performance.now() - stopAt;
    const exitCode = podman([
      "inspect",
      name,
      "--format",
      "{{.State.ExitCode}}",
    ]).stdout.trim();
    const lines = output().split("\n");
    const sigterm = lines.some((line) => /Received SIGTERM/.test(line));
    const last = lines.at(-1) ?? "";
    if (
      stopped.code !== 0 || exitCode !== "0" ||
      /SIGKILL/.test(stopped.stderr) ||
      !sigterm || !/Application stopped in [\d.]+ ms/.test(last)
    ) {
      throw new Error(
        `podman stop -t 10: exit code ${exitCode} after ${
          seconds(stopMs)
        }, expected 0 from SIGTERM and "Application stopped in … ms" last; ${stopped.stderr.trim()}\n${
          lines.join("\n")
        }`,
      );
    }
    const files = await readdir(logs).catch(() => [] as string[]);
    if (!files.includes("service.log")) {
      throw new Error(
        `no service.log in the logs/ folder mounted at /app/logs (it holds: ${
          files.join(", ") || "nothing"
        }):\n${lines.join("\n")}`,
      );
    }
    return `podman build ${seconds(buildMs)}; healthy ${
      seconds(healthyMs)
    } after podman run; GET /health/ready 200; podman stop ${
      seconds(stopMs)
    }, exit 0 ("${
      /"message":"([^"]*)"/.exec(last)?.[1] ?? last.slice(0, 60)
    }"); logs/service.log written; container part ${
      seconds(performance.now() - began)
    }`;
  } finally {
    podman(["rm", "-f", name], 30_000);
    podman(["rmi", "-f", tag], 60_000);
  }
}

/** What {@linkcode checkCompose} expects of a project. */
export interface ComposeExpectation {
  /** The project's name (the database name). */
  name: string;
  /** Whether it was generated with `--postgres`. */
  postgres: boolean;
  /** Whether it was generated with `--redis`. */
  redis: boolean;
}

/**
 * Reads the project's compose.yaml and compares it with its Dockerfile,
 * its production settings and `.env.example`: the app's port, the log
 * folder mount, the stop grace period, and with PostgreSQL and Redis their
 * services, health checks, named volumes, credentials from the
 * environment and the app's dependencies on them.
 *
 * @param dir The project's folder.
 * @param expect The options the project was generated with.
 * @returns A line naming what was compared.
 * @throws {Error} Listing every value that differs.
 */
export async function checkCompose(
  dir: string,
  expect: ComposeExpectation,
): Promise<string> {
  const compose: ComposeFile & {
    services: Record<string, { stop_grace_period?: string }>;
  } = await readCompose(join(dir, "compose.yaml"));
  const dockerfile = await readFile(join(dir, "Dockerfile"), "utf8");
  const envExample = await readFile(join(dir, ".env.example"), "utf8");
  const production = JSON.parse(
    await readFile(join(dir, "appsettings.production.json"), "utf8"),
  ) as {
    server?: { drainDelay?: number };
    host?: { shutdownTimeout?: number };
    logging?: {
      providers?: { type: string; options?: { filename?: string } }[];
    };
  };
  const problems: string[] = [];
  const want = (ok: boolean, problem: string): void => {
    if (!ok) problems.push(problem);
  };
  const services = Object.keys(compose.services).sort();
  const expected = [
    "app",
    ...(expect.redis ? ["cache"] : []),
    ...(expect.postgres ? ["db"] : []),
  ];
  want(
    services.join() === expected.join(),
    `services ${services.join(", ")}, not ${expected.join(", ")}`,
  );
  const app = compose.services.app ?? {};
  const env = app.environment ?? {};
  // The final stage of the Dockerfile: its working folder and port.
  const final = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  const workdir = /^WORKDIR (\S+)$/m.exec(final)?.[1];
  const exposed = /^EXPOSE (\d+)$/m.exec(final)?.[1];
  want(
    typeof app.build === "object" && app.build.context === ".",
    "app is not built from this folder",
  );
  want(
    (app.ports ?? []).some((port) => port.endsWith(`:${exposed}`)) &&
      env.PORT === exposed,
    `app ports ${app.ports} and PORT ${env.PORT} do not match EXPOSE ${exposed}`,
  );
  want(
    env.RUNTIME_ENV === "production" && env.LOG_LEVEL === "info",
    `app environment RUNTIME_ENV ${env.RUNTIME_ENV}, LOG_LEVEL ${env.LOG_LEVEL}`,
  );
  const logFile = production.logging?.providers?.find((provider) =>
    provider.type === "file"
  )?.options?.filename;
  const logFolder = logFile?.slice(0, logFile.lastIndexOf("/"));
  want(
    (app.volumes ?? []).includes(`./${logFolder}:${workdir}/${logFolder}`),
    `app volumes ${app.volumes}: no ./${logFolder}:${workdir}/${logFolder} for the log file ${logFile}`,
  );
  const grace = Number(/^(\d+)s$/.exec(app.stop_grace_period ?? "")?.[1]);
  const stopMs = (production.server?.drainDelay ?? 0) +
    (production.host?.shutdownTimeout ?? 0);
  want(
    grace * 1000 >= stopMs,
    `stop_grace_period ${app.stop_grace_period} is shorter than drainDelay + shutdownTimeout (${stopMs} ms)`,
  );
  // Every variable given to the app is one the service reads.
  for (const key of Object.keys(env)) {
    want(
      // Listed, or commented out to say it is left unset (the database's
      // connection string, which development leaves to the embedded engine).
      new RegExp(`^(# )?${key}=`, "m").test(envExample),
      `app environment ${key} is not in .env.example`,
    );
  }
  const dependsOn = (app.depends_on ?? {}) as Record<
    string,
    { condition?: string }
  >;
  const volumes = Object.keys(compose.volumes ?? {}).sort();
  const named: string[] = [];
  if (expect.postgres) {
    const db = compose.services.db ?? {};
    const dbEnv = db.environment ?? {};
    const credentials =
      `postgres://\${DB_USER:?set DB_USER}:\${DB_PASSWORD:?set DB_PASSWORD}@db:5432/${expect.name}`;
    want(
      env.DB_CONNECTION_STRING === credentials,
      `app DB_CONNECTION_STRING ${env.DB_CONNECTION_STRING}, not ${credentials}`,
    );
    want(
      dbEnv.POSTGRES_USER === "${DB_USER:?set DB_USER}" &&
        dbEnv.POSTGRES_PASSWORD === "${DB_PASSWORD:?set DB_PASSWORD}" &&
        dbEnv.POSTGRES_DB === expect.name,
      `db environment ${JSON.stringify(dbEnv)}`,
    );
    want(
      /^DB_USER=/m.test(envExample) && /^DB_PASSWORD=/m.test(envExample),
      ".env.example lacks DB_USER or DB_PASSWORD",
    );
    want(
      (db.volumes ?? []).includes("db-data:/var/lib/postgresql/data"),
      `db volumes ${db.volumes}`,
    );
    want(
      /pg_isready/.test(String(db.healthcheck?.test)),
      `db healthcheck ${JSON.stringify(db.healthcheck)}`,
    );
    want(
      dependsOn.db?.condition === "service_healthy",
      "app does not wait for db to be healthy",
    );
    named.push("db-data");
  }
  if (expect.redis) {
    const cache = compose.services.cache ?? {};
    want(
      env.REDIS_HOST === "cache" && env.REDIS_PORT === "6379",
      `app REDIS_HOST ${env.REDIS_HOST}, REDIS_PORT ${env.REDIS_PORT}`,
    );
    want(
      (cache.volumes ?? []).includes("cache-data:/data"),
      `cache volumes ${cache.volumes}`,
    );
    want(
      /redis-cli ping/.test(String(cache.healthcheck?.test)),
      `cache healthcheck ${JSON.stringify(cache.healthcheck)}`,
    );
    want(
      dependsOn.cache?.condition === "service_healthy",
      "app does not wait for cache to be healthy",
    );
    named.push("cache-data");
  }
  want(
    volumes.join() === named.sort().join(),
    `named volumes ${volumes.join(", ") || "none"}, not ${
      named.join(", ") || "none"
    }`,
  );
  if (problems.length > 0) {
    throw new Error(`compose.yaml: ${problems.join("; ")}`);
  }
  return `services ${
    services.join(", ")
  }; port ${exposed}; ./${logFolder} on ${workdir}/${logFolder}; stop_grace_period ${app.stop_grace_period}${
    named.length > 0 ? `; volumes ${named.join(", ")}` : ""
  }; environment names in .env.example`;
}
