/**
 * Checks the project generator end to end, as a user runs it:
 *
 * - `deno`: `deno task create` from this checkout (Kit linked); the
 *   project's `deno task test`, then `deno run -A main.ts`;
 * - `node-esm`: `deno task create --runtime node` from this checkout (Kit's
 *   packages built and packed into the project's vendor/); `npm install`,
 *   `npm test` (tsc, then node --test), then `node dist/main.js`;
 * - `node-cjs (npm package)`: the generator's npm package, packed, run as
 *   `npm exec --package=<tgz> -- create-kit <folder> --module commonjs` (Kit
 *   at `^` its version, as from the registry); the registry's part is played
 *   by Kit's packed packages (`npm install --no-save <tarballs>`), then
 *   `npm test` and `node dist/main.js`.
 *
 * - `node-esm compose.yaml` and `node-esm image (podman)`: the node-esm
 *   project's compose.yaml read with a YAML parser and compared with its
 *   Dockerfile, settings and `.env.example` (scripts/_create_image.ts); then
 *   its image built by podman from its own Dockerfile (its folder, with
 *   Kit's tarballs in vendor/, is the whole build context), run with port
 *   3000 published on loopback and `logs/` mounted as compose.yaml mounts
 *   it, healthy by its own HEALTHCHECK (`podman healthcheck run`),
 *   `GET /health/ready` 200, then `podman stop -t 10`: exit code 0 from
 *   SIGTERM, a shutdown line last, a log file in `logs/`. No image registry
 *   is reachable on the CI machines, so the base image
 *   `node:20-bookworm-slim` is a local stand-in made from the machine's own
 *   Node.js 20 (scripts/_podman.ts); the check says so. Skipped, saying
 *   why, where podman cannot run.
 * - `deno --postgres (embedded)`: a project with a database, served with
 *   no connection string as on a machine with nothing installed: its
 *   development settings put PostgreSQL in the process (PGlite, in
 *   `.data/`); readiness 200, `POST` then `GET /notes`, SIGTERM exit 0.
 * - `deno --redis --postgres`: the same with a cache and a database, served
 *   against a real redis-server and PostgreSQL (Debian's packages, started
 *   here on free loopback ports; PostgreSQL by the test suite's fixture,
 *   tests/_support/postgres.ts): `deno task migrate` applies the
 *   migration, `GET /health` must report both checks healthy, and the
 *   service must survive a restart of PostgreSQL under requests
 *   (`pg_ctl -m fast stop`, then start: readiness 503 while it is down,
 *   every request answered, the process alive, readiness 200 again within
 *   5 s, no driver error reaching the runtime; the recovery time is
 *   printed), then SIGTERM exit 0. Skipped, saying why, when either is
 *   missing or the check does not run as root (PostgreSQL runs as its own
 *   user).
 * - `node --redis --postgres compose.yaml and image (podman)`: a Node.js
 *   project with both, its compose.yaml compared as above (services,
 *   health checks, named volumes, credentials from the environment), its
 *   image run on the host's network against that Redis and PostgreSQL,
 *   with the same probes, `GET /health` reporting both healthy (its
 *   migration applied at start-up from the image's `migrations/`) and the
 *   same restart of PostgreSQL under requests.
 *
 * The generator's own sources are type-checked first (`deno check create/`),
 * since no entry point of the test suite imports them.
 *
 * Each started service gets a free port through `PORT`; `GET /health/ready`
 * must answer 200, and SIGTERM must end it with exit code 0. One line per
 * case with the time to generate and run the project's tests, then
 * `create check: N passed, N failed, N skipped`. Every command has a time
 * limit, the whole check a deadline; whatever it started is killed on the
 * way out, and its scratch folder is removed.
 *
 * Kit's npm packages are built once for all the cases: the generator runs
 * with `KIT_NPM_REUSE=1`, so the first Node.js project builds them and the
 * others pack that build. They go into the scratch folder; with
 * `KIT_NPM_OUT` (as CI sets it, to the build `deno task test` made), the
 * build there is used when its stamp says it was made from the checkout as
 * it is now (scripts/_build_stamp.ts), and rebuilt there otherwise.
 *
 * Run: `deno run -A --config deno.dev.json scripts/create_check.ts`. `KIT_CREATE_CHECK` runs only
 * the cases whose name contains one of its comma-separated words
 * (`KIT_CREATE_CHECK=postgres` for the three above with a database); the
 * others are listed as not selected, and the type-check of the generator
 * always runs.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  expectBackendsHealthy,
  expectSurvivesRestart,
  type ServiceUnderTest,
  whyNoBackends,
  withBackends,
} from "./_create_backends.ts";
import { whyNotCurrent } from "./_build_stamp.ts";
import { checkCompose, checkImage } from "./_create_image.ts";
import { containerLogs, podman, whyNoPodman } from "./_podman.ts";
import {
  killAll,
  OUTPUT_LIMIT,
  run as runCommand,
  type RunResult,
  track,
} from "./_run.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The whole check's deadline. */
const DEADLINE = Date.now() + 15 * 60_000;

/** Runs a command to its end, failing it past `timeoutMs` (or the deadline). */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  timeoutMs = 180_000,
): Promise<RunResult> {
  return runCommand(command, args, {
    cwd,
    env: { ...process.env, NO_COLOR: "1", ...env },
    timeoutMs: Math.max(1_000, Math.min(timeoutMs, DEADLINE - Date.now())),
  });
}

/**
 * `count` ports free on loopback right now, all different: each is held
 * until all are found.
 */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      servers.map((server) =>
        new Promise<number>((resolvePromise, reject) => {
          server.unref();
          server.on("error", reject);
          server.listen(0, "127.0.0.1", () => {
            const address = server.address();
            if (typeof address === "object" && address !== null) {
              resolvePromise(address.port);
            } else reject(new Error("no port"));
          });
        })
      ),
    );
  } finally {
    await Promise.all(
      servers.map((server) =>
        new Promise((resolvePromise) => server.close(resolvePromise))
      ),
    );
  }
}

/** A port free on loopback right now. */
async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

/** Something that went wrong in a case, with what to look at. */
class CaseFailure extends Error {}

/** A case that cannot run here, with the reason. */
class CaseSkipped extends Error {}

function expectOk(what: string, result: RunResult): void {
  if (result.code !== 0) {
    throw new CaseFailure(
      `${what} exited with ${result.code}:\n${result.output.slice(-3000)}`,
    );
  }
}

/**
 * Starts the service, waits for `GET /health/ready` to answer 200 (60 s at
 * most: a new embedded database runs initdb first), runs `afterReady`,
 * sends SIGTERM and expects exit code 0 within 20 s.
 *
 * @returns The milliseconds from start to the first 200.
 */
async function serveAndStop(
  command: string,
  args: string[],
  cwd: string,
  // `undefined` removes a variable of this process's environment.
  env: Record<string, string | undefined> = {},
  afterReady: (service: ServiceUnderTest) => Promise<void> = () =>
    Promise.resolve(),
): Promise<number> {
  const port = await freePort();
  const begin = performance.now();
  const merged: Record<string, string> = {};
  for (
    const [key, value] of Object.entries({
      ...process.env,
      NO_COLOR: "1",
      ...env,
      PORT: String(port),
    })
  ) {
    if (value !== undefined) merged[key] = value;
  }
  const child = spawn(command, args, {
    cwd,
    env: merged,
    stdio: ["ignore", "pipe", "pipe"],
  });
  track(child);
  let output = "";
  let errors = "";
  const keep = (chunk: Uint8Array): void => {
    output = (output + new TextDecoder().decode(chunk)).slice(-OUTPUT_LIMIT);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  child.stderr!.on("data", (chunk: Uint8Array) => {
    errors = (errors + new TextDecoder().decode(chunk)).slice(-OUTPUT_LIMIT);
  });
  const exited = new Promise<number | null>((resolvePromise) =>
    child.on("close", (code) => resolvePromise(code))
  );
  try {
    let readyMs: number | undefined;
    let last = "no answer";
    while (readyMs === undefined && performance.now() - begin < 60_000) {
      if (child.exitCode !== null) break;
      try {
        const response = await fetch(`http://127.0.0.1:${port}/health/ready`, {
          signal: AbortSignal.timeout(2_000),
        });
        await response.body?.cancel();
        if (response.status === 200) readyMs = performance.now() - begin;
        else last = `status ${response.status}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      if (readyMs === undefined) {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    if (readyMs === undefined) {
      throw new CaseFailure(
        `GET /health/ready never answered 200 (last: ${last}):\n${
          output.slice(-3000)
        }`,
      );
    }
    await afterReady({
      url: `http://127.0.0.1:${port}`,
      alive: () => child.exitCode === null && child.signalCode === null,
      errors: () => errors,
    });
    // process.kill, not child.kill: Deno's child_process reports a child
    // it signalled itself as killed by the signal, whatever its exit code.
    process.kill(child.pid!, "SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const code = await Promise.race([
      exited,
      new Promise<"timeout">((r) => {
        timer = setTimeout(() => r("timeout"), 20_000);
      }),
    ]);
    clearTimeout(timer);
    if (code !== 0) {
      throw new CaseFailure(
        `after SIGTERM the service ${
          code === "timeout" ? "was still running 20 s later" : `exited ${code}`
        }, expected exit code 0:\n${output.slice(-3000)}`,
      );
    }
    return readyMs;
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
    }
  }
}

interface CaseReport {
  name: string;
  status: "ok" | "FAILED" | "SKIPPED";
  detail: string;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The words of KIT_CREATE_CHECK: a case runs when its name holds one. */
const SELECTED = (process.env.KIT_CREATE_CHECK ?? "").split(",")
  .map((word) => word.trim()).filter((word) => word !== "");

/** The first case, which always runs. */
const TYPE_CHECK = "the generator's sources type-check";

/**
 * Sends `init` to `url` and expects `status`.
 *
 * @returns The response's JSON body.
 * @throws {CaseFailure} With the status and body otherwise.
 */
async function expectJson(
  url: string,
  status: number,
  init: RequestInit = {},
): Promise<unknown> {
  const response = await fetch(url, {
    ...init,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== status) {
    throw new CaseFailure(
      `${
        init.method ?? "GET"
      } ${url}: ${response.status}, expected ${status}: ${text.slice(0, 500)}`,
    );
  }
  return JSON.parse(text);
}

/** `POST /notes` then `GET /notes` must find the note. */
async function expectNotes(url: string): Promise<void> {
  const note = await expectJson(`${url}/notes`, 201, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ text: "from the create check" }),
  }) as { id?: number };
  const listed = await expectJson(`${url}/notes`, 200) as {
    notes?: { id: number }[];
  };
  if (!listed.notes?.some((row) => row.id === note.id)) {
    throw new CaseFailure(
      `GET /notes does not list the note just created: ${
        JSON.stringify(listed)
      }`,
    );
  }
}

async function main(): Promise<number> {
  const scratch = await mkdtemp(join(tmpdir(), "kit-create-check-"));
  // Kit's npm packages: one build for every case (the generator is told to
  // reuse a build that is up to date, KIT_NPM_REUSE=1). By default built
  // into the scratch folder, not into the checkout's npm/; with KIT_NPM_OUT,
  // the build already there (CI's, which `deno task test` just made) when
  // it was made from the checkout as it is now, else a new one there.
  const npmOut = process.env.KIT_NPM_OUT === undefined
    ? join(scratch, "npm")
    : resolve(ROOT, process.env.KIT_NPM_OUT);
  const deno = process.execPath;
  const reports: CaseReport[] = [];
  const notSelected: string[] = [];
  const attempt = async (
    name: string,
    body: () => Promise<string>,
  ): Promise<void> => {
    if (
      name !== TYPE_CHECK && SELECTED.length > 0 &&
      !SELECTED.some((word) => name.includes(word))
    ) {
      notSelected.push(name);
      return;
    }
    if (Date.now() > DEADLINE) {
      reports.push({ name, status: "SKIPPED", detail: "past the deadline" });
      return;
    }
    try {
      reports.push({ name, status: "ok", detail: await body() });
    } catch (error) {
      if (error instanceof CaseSkipped) {
        reports.push({ name, status: "SKIPPED", detail: error.message });
      } else {reports.push({
          name,
          status: "FAILED",
          detail: error instanceof Error ? error.message : String(error),
        });}
    }
    const last = reports.at(-1)!;
    console.log(`${last.status}: ${last.name}: ${last.detail}`);
  };
  const create = (args: string[]): Promise<RunResult> =>
    run(deno, ["run", "-A", join(ROOT, "create", "main.ts"), ...args], ROOT, {
      INIT_CWD: scratch,
      KIT_NPM_OUT: npmOut,
      KIT_NPM_REUSE: "1",
    });

  // The node-esm project, once generated: its image is built afterwards.
  let nodeEsm: string | undefined;
  try {
    await attempt(TYPE_CHECK, async () => {
      expectOk(
        "deno check create/",
        await run(deno, ["check", "create/"], ROOT),
      );
      return "deno check create/";
    });

    await attempt("deno", async () => {
      const t0 = performance.now();
      expectOk("deno task create deno-app", await create(["deno-app"]));
      const dir = join(scratch, "deno-app");
      const generated = performance.now() - t0;
      expectOk("deno task test", await run(deno, ["task", "test"], dir));
      const tested = performance.now() - t0;
      const ready = await serveAndStop(deno, ["run", "-A", "main.ts"], dir);
      return `generate ${seconds(generated)}, generate + tests ${
        seconds(tested)
      }; ready in ${seconds(ready)}; SIGTERM exit 0`;
    });

    await attempt("node-esm", async () => {
      const t0 = performance.now();
      expectOk(
        "deno task create node-esm --runtime node",
        await create(["node-esm", "--runtime", "node"]),
      );
      const generated = performance.now() - t0;
      const dir = join(scratch, "node-esm");
      nodeEsm = dir;
      expectOk(
        "npm install",
        await run("npm", [
          "install",
          "--no-audit",
          "--no-fund",
          "--loglevel=error",
        ], dir),
      );
      expectOk("npm test", await run("npm", ["test"], dir));
      const tested = performance.now() - t0;
      const ready = await serveAndStop("node", ["dist/main.js"], dir);
      return `generate (Kit's packages built and packed) ${
        seconds(generated)
      }, generate + install + tests ${seconds(tested)}; ready in ${
        seconds(ready)
      }; SIGTERM exit 0`;
    });

    await attempt("node-esm compose.yaml", async () => {
      if (nodeEsm === undefined) {
        throw new CaseSkipped("the node-esm project was not generated");
      }
      return await checkCompose(nodeEsm, {
        name: "node-esm",
        redis: false,
        postgres: false,
      });
    });

    await attempt("node-esm image (podman)", async () => {
      if (nodeEsm === undefined) {
        throw new CaseSkipped("the node-esm project was not generated");
      }
      const why = whyNoPodman();
      if (why !== undefined) throw new CaseSkipped(why);
      return await checkImage({
        label: "node-esm",
        dir: nodeEsm,
        deadline: DEADLINE,
        port: await freePort(),
        network: "publish",
      });
    });

    await attempt("node-cjs (npm package)", async () => {
      // The build a previous case made or reused, or a build of our own
      // (the generator's package, create-kit, is part of every build).
      const packs = join(scratch, "packs");
      await mkdir(packs, { recursive: true });
      if (await whyNotCurrent(ROOT, npmOut) !== undefined) {
        expectOk(
          "scripts/build_npm.ts",
          await run(
            deno,
            [
              "run",
              "-A",
              "--config",
              "deno.dev.json",
              "scripts/build_npm.ts",
            ],
            ROOT,
            {
              KIT_NPM_OUT: npmOut,
            },
          ),
        );
      }
      for (
        const dir of [
          "create-kit",
          "kit-core",
          "kit-platform",
          "kit-platform-configuration",
          "kit-platform-logging",
        ]
      ) {
        expectOk(
          `npm pack ${dir}`,
          await run("npm", [
            "pack",
            "--silent",
            "--pack-destination",
            packs,
            join(npmOut, dir),
          ], scratch),
        );
      }
      const tarballs = (await readdir(packs)).sort();
      const generator = tarballs.find((name) => name.includes("create-kit"));
      if (generator === undefined) {
        throw new CaseFailure(`npm pack made no create-kit tarball`);
      }
      const t0 = performance.now();
      expectOk(
        "npm exec create-kit node-cjs --module commonjs",
        await run("npm", [
          "exec",
          "--yes",
          `--package=${join(packs, generator)}`,
          "--",
          "create-kit",
          "node-cjs",
          "--module",
          "commonjs",
        ], scratch),
      );
      const generated = performance.now() - t0;
      const dir = join(scratch, "node-cjs");
      expectOk(
        "npm install (Kit's tarballs in the registry's place)",
        await run("npm", [
          "install",
          "--no-save",
          "--no-audit",
          "--no-fund",
          "--loglevel=error",
          ...tarballs.filter((name) => name !== generator).map((name) =>
            join(packs, name)
          ),
        ], dir),
      );
      expectOk("npm test", await run("npm", ["test"], dir));
      const tested = performance.now() - t0;
      const ready = await serveAndStop("node", ["dist/main.js"], dir);
      return `generate ${seconds(generated)}, generate + install + tests ${
        seconds(tested)
      }; ready in ${seconds(ready)}; SIGTERM exit 0`;
    });
    await attempt("deno --postgres (embedded)", async () => {
      const t0 = performance.now();
      expectOk(
        "deno task create deno-embedded --postgres",
        await create(["deno-embedded", "--postgres"]),
      );
      const dir = join(scratch, "deno-embedded");
      expectOk("deno task test", await run(deno, ["task", "test"], dir));
      const tested = performance.now() - t0;
      // As on a machine with nothing installed: no connection string in
      // the environment, the development settings' embedded engine.
      const ready = await serveAndStop(
        deno,
        ["run", "-A", "main.ts"],
        dir,
        { DB_CONNECTION_STRING: undefined, RUNTIME_ENV: undefined },
        (service) => expectNotes(service.url),
      );
      return `generate + tests ${seconds(tested)}; ready in ${
        seconds(ready)
      } on PGlite in .data/ (no connection string); POST and GET /notes; SIGTERM exit 0`;
    });

    await attempt("deno --redis --postgres", async () => {
      const why = whyNoBackends();
      if (why !== undefined) throw new CaseSkipped(why);
      return await withBackends(await freePort(), async (backends) => {
        const t0 = performance.now();
        expectOk(
          "deno task create deno-backends --redis --postgres",
          await create(["deno-backends", "--redis", "--postgres"]),
        );
        const dir = join(scratch, "deno-backends");
        expectOk("deno task test", await run(deno, ["task", "test"], dir));
        const tested = performance.now() - t0;
        const migrated = await run(
          deno,
          ["task", "migrate"],
          dir,
          backends.env,
        );
        expectOk("deno task migrate", migrated);
        if (
          !/1 migration\(s\) applied \(001_create_notes\.sql\)/.test(
            migrated.output,
          )
        ) {
          throw new CaseFailure(
            `deno task migrate did not apply 001_create_notes.sql:\n${migrated.output}`,
          );
        }
        let restart = "";
        const ready = await serveAndStop(
          deno,
          ["run", "-A", "main.ts"],
          dir,
          backends.env,
          async (service) => {
            await expectBackendsHealthy(service.url);
            await expectNotes(service.url);
            restart = await expectSurvivesRestart(service, backends.postgres);
            console.log(`  deno --redis --postgres: restart: ${restart}`);
          },
        );
        return `generate + tests ${
          seconds(tested)
        }; deno task migrate applied 001_create_notes.sql; ready in ${
          seconds(ready)
        }; /health: cache (Redis) and database (PostgreSQL) healthy; PostgreSQL restart: ${restart}; SIGTERM exit 0`;
      });
    });

    await attempt(
      "node --redis --postgres compose.yaml and image (podman)",
      async () => {
        const why = whyNoBackends() ?? whyNoPodman();
        if (why !== undefined) throw new CaseSkipped(why);
        const t0 = performance.now();
        expectOk(
          "deno task create node-backends --runtime node --redis --postgres",
          await create([
            "node-backends",
            "--runtime",
            "node",
            "--redis",
            "--postgres",
          ]),
        );
        const generated = performance.now() - t0;
        const dir = join(scratch, "node-backends");
        const compose = await checkCompose(dir, {
          name: "node-backends",
          redis: true,
          postgres: true,
        });
        console.log(`  compose.yaml: ${compose}`);
        let restart = "";
        return `generate ${seconds(generated)}; ` + await withBackends(
          await freePort(),
          async (backends) =>
            await checkImage({
              label: "node-backends",
              dir,
              deadline: DEADLINE,
              port: await freePort(),
              // The container reaches Redis and PostgreSQL on the host's
              // loopback, so it shares the host's network.
              network: "host",
              env: backends.env,
              afterReady: async (url, container) => {
                await expectBackendsHealthy(url);
                await expectNotes(url);
                restart = await expectSurvivesRestart({
                  url,
                  alive: () =>
                    podman([
                      "inspect",
                      container,
                      "--format",
                      "{{.State.Running}}",
                    ]).stdout.trim() === "true",
                  errors: () => containerLogs(container).join("\n"),
                }, backends.postgres);
                console.log(`  node-backends image: restart: ${restart}`);
              },
            }),
        ) +
          `; /health: cache (Redis) and database (PostgreSQL) healthy; PostgreSQL restart: ${restart}`;
      },
    );
  } finally {
    killAll();
    await rm(scratch, { recursive: true, force: true });
  }

  const count = (status: CaseReport["status"]): number =>
    reports.filter((report) => report.status === status).length;
  console.log(
    `create check: ${count("ok")} passed, ${count("FAILED")} failed, ${
      count("SKIPPED")
    } skipped${
      notSelected.length > 0
        ? `; not selected by KIT_CREATE_CHECK=${SELECTED.join(",")}: ${
          notSelected.join(", ")
        }`
        : ""
    }`,
  );
  return count("FAILED") > 0 ? 1 : 0;
}

process.exitCode = await main();
