// scripts/_run.ts, the runner the release, create and podman checks start
// their commands with, against real child processes: a command past its
// deadline is killed with everything it started, the end of its output is
// kept, and a grandchild that still holds the output pipe does not keep the
// run from settling. The scripts run from a checkout under Deno; under
// Node.js and Bun (the npm passes) there is nothing to run.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;
const skip = isDeno ? false : "the scripts run from a checkout under Deno";

// What the test uses of scripts/_run.ts. Written out rather than taken with
// `typeof import(…)`: the npm passes transpile every test file and accept
// no import of a checkout file outside a module's mod.ts, even a type-only
// one; the module is loaded only under Deno.
interface RunModule {
  run(command: string, args: readonly string[], options: {
    cwd: string;
    env: Record<string, string | undefined>;
    timeoutMs: number;
    secrets?: readonly string[];
    outputLimit?: number;
    settleMs?: number;
  }): Promise<{ code: number | null; output: string }>;
  killAll(): void;
}

/** The module under test, loaded only where it runs. */
function load(): Promise<RunModule> {
  return import(new URL("../../scripts/_run.ts", import.meta.url).href);
}

/** `true` while a process with this id exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

describe("scripts/_run.ts", { skip }, () => {
  it("answers the exit code and the output of a command", async () => {
    const { run } = await load();
    const result = await run(
      "sh",
      ["-c", "echo out; echo err >&2; exit 3"],
      { cwd: process.cwd(), env, timeoutMs: 10_000 },
    );
    assert.equal(result.code, 3);
    assert.match(result.output, /out/);
    assert.match(result.output, /err/);
  });

  it("keeps the end of a long output, within the limit", async () => {
    const { run } = await load();
    const result = await run(
      "sh",
      ["-c", "i=0; while [ $i -lt 3000 ]; do echo line-$i; i=$((i+1)); done"],
      { cwd: process.cwd(), env, timeoutMs: 10_000, outputLimit: 1_000 },
    );
    assert.equal(result.code, 0);
    assert.ok(result.output.length <= 1_000, `${result.output.length} chars`);
    assert.match(result.output, /line-2999\n$/);
    assert.doesNotMatch(result.output, /line-0\n/);
  });

  it("masks the secrets in the output", async () => {
    const { run } = await load();
    const result = await run("sh", ["-c", "echo token=s3cr3t-value"], {
      cwd: process.cwd(),
      env,
      timeoutMs: 10_000,
      secrets: ["s3cr3t-value"],
    });
    assert.equal(result.output, "token=***\n");
  });

  it("masks a secret the end of the output would cut through", async () => {
    const { run } = await load();
    // The secret comes out in two writes, and the kept end starts inside it
    // (10 characters of padding after it, a limit of 16).
    const result = await run(
      "sh",
      [
        "-c",
        "printf 'tok=s3cr3t'; sleep 0.1; printf -- '-value'; printf '%010d' 0",
      ],
      {
        cwd: process.cwd(),
        env,
        timeoutMs: 10_000,
        secrets: ["s3cr3t-value"],
        outputLimit: 16,
      },
    );
    assert.doesNotMatch(result.output, /value|s3cr3t/);
    assert.equal(result.output, "tok=***0000000000".slice(-16));
  });

  it("kills a command past its deadline with the children it started", async () => {
    const { run } = await load();
    const started = performance.now();
    // The child starts a grandchild that would outlive it, and says its id.
    const result = await run(
      "sh",
      ["-c", "sleep 60 & echo grandchild=$!; wait"],
      { cwd: process.cwd(), env, timeoutMs: 500 },
    );
    const elapsed = performance.now() - started;
    assert.equal(result.code, null);
    assert.match(result.output, /\(killed after 1 s\)$/);
    assert.ok(elapsed < 5_000, `settled after ${Math.round(elapsed)} ms`);
    const pid = Number(/grandchild=(\d+)/.exec(result.output)?.[1]);
    assert.ok(pid > 0, result.output);
    const until = Date.now() + 2_000;
    while (alive(pid) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(alive(pid), false, "the grandchild is killed too");
  });

  it("settles after the kill though a grandchild outside the group still holds the output", async () => {
    const { run } = await load();
    const started = performance.now();
    // The grandchild leaves the command's group and keeps stdout open for
    // 60 s: the group kill does not reach it, so only the bounded settle
    // after the kill ends the wait.
    const result = await run(
      "sh",
      ["-c", "setsid sleep 60 & echo grandchild=$!; sleep 60"],
      { cwd: process.cwd(), env, timeoutMs: 300, settleMs: 300 },
    );
    const elapsed = performance.now() - started;
    assert.equal(result.code, null);
    assert.ok(elapsed < 5_000, `settled after ${Math.round(elapsed)} ms`);
    const pid = Number(/grandchild=(\d+)/.exec(result.output)?.[1]);
    if (pid > 0 && alive(pid)) process.kill(pid, "SIGKILL");
  });

  it("killAll ends every command still running, with its group", async () => {
    const { killAll, run } = await load();
    const started = performance.now();
    const pending = run("sh", ["-c", "sleep 60 & wait"], {
      cwd: process.cwd(),
      env,
      timeoutMs: 60_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    killAll();
    const result = await pending;
    assert.equal(result.code, null);
    assert.ok(performance.now() - started < 5_000);
  });
});
