// Application.run() in real child processes: SIGTERM and SIGINT stop the
// application and exit 0; a second signal during shutdown exits at once with
// 143/130; a failed start exits 1; the listeners are removed afterwards so
// run() can be called again. Deno runs the sources in the Deno pass; Node.js
// and Bun run the built package in the npm passes (the sources' Deno flavour
// uses Deno's signal API).
import { describe, it as nodeIt, test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { isNpmPass, moduleUrl } from "../_support/module_url.ts";
import {
  bunExecutable,
  denoExecutable,
  nodeExecutable,
} from "../_support/runtimes.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const it = limited(nodeIt, CHILD_PROCESS_LIMIT);
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

const PROGRAM = `
import process from "node:process";
const { Application } = await import(process.env.KIT_PLATFORM_URL);
const mode = process.argv[2];
const hosted = (stop) => ({
  start: () => console.log("READY"),
  stop,
});
if (mode === "once") {
  await Application.run({
    configuration: () => ({}),
    services: (_s, _c, app) => {
      app.addHostedService("server", hosted(() => console.log("STOPPED")));
    },
  });
} else if (mode === "hang") {
  await Application.run({
    configuration: () => ({}),
    shutdownTimeout: 60000,
    services: (_s, _c, app) => {
      app.addHostedService("server", hosted(() => {
        console.log("STOPPING");
        return new Promise(() => {});
      }));
    },
  });
} else if (mode === "slowstart") {
  await Application.run({
    configuration: () => ({}),
    services: (_s, _c, app) => {
      app.addHostedService("server", {
        start: async () => {
          console.log("STARTING");
          await new Promise((resolve) => setTimeout(resolve, 1500));
          console.log("READY");
        },
        stop: () => console.log("STOPPED"),
      });
    },
  });
} else if (mode === "fail") {
  await Application.run({
    configuration: () => {
      throw new Error("Missing required configuration: api:baseUrl");
    },
  });
} else if (mode === "twice") {
  for (let i = 0; i < 2; i++) {
    const code = await Application.run({
      exit: false,
      configuration: () => ({}),
      services: (_s, _c, app) => {
        app.addHostedService("server", hosted(() => {}));
      },
    });
    console.log("CODE " + code);
  }
  console.log("LISTENERS " + process.listenerCount("SIGTERM"));
}
`;

interface Child {
  /** Resolves when stdout has printed `count` lines equal to `line`. */
  waitFor(line: string, count?: number): Promise<void>;
  kill(signal: "SIGTERM" | "SIGINT"): void;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function start(
  command: string,
  args: string[],
  env: Record<string, string>,
): Child {
  const child = spawn(command, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env, NO_COLOR: "1" },
  });
  let stdout = "";
  let stderr = "";
  const waiters: { line: string; count: number; resolve: () => void }[] = [];
  const seen = (line: string): number =>
    stdout.split("\n").filter((printed) => printed === line).length;
  child.stdout!.on("data", (chunk) => {
    stdout += String(chunk);
    for (const waiter of [...waiters]) {
      if (seen(waiter.line) >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  child.stderr!.on("data", (chunk) => (stderr += String(chunk)));
  // A hard limit so a broken build can never hang the suite.
  const limit = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const exited = new Promise<
    { code: number | null; stdout: string; stderr: string }
  >(
    (resolve) =>
      child.on("close", (code) => {
        clearTimeout(limit);
        resolve({ code, stdout, stderr });
      }),
  );
  return {
    waitFor: (line, count = 1) =>
      seen(line) >= count ? Promise.resolve() : Promise.race([
        new Promise<void>((resolve) => waiters.push({ line, count, resolve })),
        exited.then(({ stdout, stderr }) => {
          throw new Error(
            `the child ended before printing ${line}:\n${stdout}\n${stderr}`,
          );
        }),
      ]),
    // process.kill rather than child.kill: Deno's child_process records a
    // signal sent through child.kill as the cause of exit even when the
    // child handled it and exited with its own code.
    kill: (signal) => void process.kill(child.pid!, signal),
    exited,
  };
}

interface Runtime {
  name: string;
  command: string | undefined;
  args: (script: string, mode: string) => string[];
  skip: string | false;
}

const npm = isNpmPass();
const runtimes: Runtime[] = [
  {
    name: "Deno",
    command: denoExecutable,
    // The repository's deno.dev.json: the sources import npm packages by their
    // bare names (@opentelemetry/api), which the script in a temporary
    // directory would not resolve on its own.
    args: (script, mode) => [
      "run",
      "-A",
      "--quiet",
      "--config",
      fileURLToPath(new URL("../../deno.dev.json", import.meta.url)),
      script,
      mode,
    ],
    skip: npm
      ? "the npm passes run Node.js and Bun; Deno runs the sources in the Deno pass"
      : denoExecutable === undefined && "deno is not installed",
  },
  {
    name: "Node.js",
    command: nodeExecutable,
    args: (script, mode) => [script, mode],
    skip: !npm
      ? "Node.js runs the built package in the npm passes (deno task test)"
      : nodeExecutable === undefined && "node is not installed",
  },
  {
    name: "Bun",
    command: bunExecutable,
    args: (script, mode) => [script, mode],
    skip: !npm
      ? "Bun runs the built package in the npm passes (deno task test)"
      : bunExecutable === undefined && "bun is not installed",
  },
];

for (const runtime of runtimes) {
  // A runtime that cannot run here is one skipped test with its reason (a
  // skipped describe() would not be counted by Node's test runner).
  if (runtime.skip) {
    test(
      `Application.run in ${runtime.name}`,
      { skip: runtime.skip },
      () => {},
    );
    continue;
  }
  describe(`Application.run in ${runtime.name}`, () => {
    const run = async (
      mode: string,
      steps: (child: Child) => Promise<void>,
    ): Promise<{ code: number | null; stdout: string; stderr: string }> => {
      const dir = await mkdtemp(join(tmpdir(), "kit-run-"));
      try {
        const script = join(dir, "app.mjs");
        await writeFile(script, PROGRAM);
        const child = start(runtime.command!, runtime.args(script, mode), {
          KIT_PLATFORM_URL: moduleUrl("platform"),
        });
        await steps(child);
        return await child.exited;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    };

    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      it(`stops on ${signal} and exits 0`, async () => {
        const result = await run("once", async (child) => {
          await child.waitFor("READY");
          child.kill(signal);
        });
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, new RegExp(`Received ${signal}: stopping`));
        assert.match(result.stdout, /^STOPPED$/m);
        assert.match(result.stdout, /Application stopped in/);
      });
    }

    for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
      it(`exits at once with ${code} on a second ${signal} during shutdown`, async () => {
        const result = await run("hang", async (child) => {
          await child.waitFor("READY");
          child.kill(signal);
          await child.waitFor("STOPPING");
          child.kill(signal);
        });
        assert.equal(result.code, code, result.stderr);
        assert.match(
          result.stderr,
          new RegExp(
            `Received ${signal} again during shutdown: exiting now with ${code} without waiting\\.`,
          ),
        );
      });
    }

    it("stops once start-up ends when the signal came during start-up", async () => {
      const result = await run("slowstart", async (child) => {
        await child.waitFor("STARTING");
        child.kill("SIGTERM");
      });
      assert.equal(result.code, 0, result.stderr);
      assert.match(
        result.stderr,
        /Received SIGTERM during start-up: stopping once it ends \(send it again to exit now\)\./,
      );
      assert.match(result.stdout, /^READY$/m);
      assert.match(result.stdout, /^STOPPED$/m);
    });

    it("exits at once on a second signal during start-up", async () => {
      const result = await run("slowstart", async (child) => {
        await child.waitFor("STARTING");
        child.kill("SIGINT");
        await new Promise((resolve) => setTimeout(resolve, 100));
        child.kill("SIGINT");
      });
      assert.equal(result.code, 130, result.stderr);
      assert.match(
        result.stderr,
        /Received SIGINT again during start-up: exiting now with 130 without waiting\./,
      );
      assert.doesNotMatch(result.stdout, /^READY$/m);
    });

    it(
      "exits 1 with the reason when start-up fails",
      async () => {
        const result = await run("fail", () => Promise.resolve());
        assert.equal(result.code, 1);
        assert.match(
          result.stderr,
          /Start-up step 1 \(configuration\) failed: Missing required configuration: api:baseUrl/,
        );
      },
    );

    it("removes its listeners, so run({ exit: false }) can be called again", async () => {
      const result = await run("twice", async (child) => {
        await child.waitFor("READY");
        child.kill("SIGTERM");
        await child.waitFor("CODE 0");
        await child.waitFor("READY", 2);
        child.kill("SIGTERM");
      });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(
        result.stdout.split("\n").filter((line) =>
          /^(CODE|LISTENERS)/.test(line)
        ),
        ["CODE 0", "CODE 0", "LISTENERS 0"],
      );
    });
  });
}
