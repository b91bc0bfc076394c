// scripts/test_deno.ts, the Deno pass of `deno task test`, which gives each
// test a limit deno test has no option for: against real child processes
// that print what deno test prints of a slow test, a run whose test reached
// the limit is stopped with everything it started and names the test; a run
// that prints nothing for too long is stopped too; otherwise the exit code
// and the output pass through. The scripts run from a checkout under Deno;
// under Node.js and Bun (the npm passes) there is nothing to run.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";

const isDeno =
  (process.versions as Record<string, string | undefined>).deno !== undefined;
const skip = isDeno ? false : "the scripts run from a checkout under Deno";

// What the test uses of scripts/test_deno.ts, written out (see run_test.ts:
// the npm passes accept no import of a checkout file outside a mod.ts).
interface WatchModule {
  slowTest(line: string): { name: string; minutes: number } | undefined;
  endsTest(line: string, name: string): boolean;
  watchTests(command: string, args: readonly string[], options: {
    testMinutes: number;
    checkMs?: number;
    silenceMs: number;
    locate?: (why: string) => Promise<string>;
    write?: (chunk: Uint8Array, stream: "stdout" | "stderr") => void;
  }): Promise<{ code: number; stopped?: string }>;
}

function load(): Promise<WatchModule> {
  return import(new URL("../../scripts/test_deno.ts", import.meta.url).href);
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

/** Collects a watched run's output. */
function collect(): {
  text: () => string;
  write: (chunk: Uint8Array) => void;
} {
  let text = "";
  const decoder = new TextDecoder();
  return {
    text: () => text,
    write: (chunk) => {
      text += decoder.decode(chunk, { stream: true });
    },
  };
}

// What deno test prints of a test running for over `time`, coloured.
const slowLine = (name: string, time: string): string =>
  `\u001b[0m\u001b[38;5;245m'${name}' has been running for over (${time})\u001b[0m`;

describe("scripts/test_deno.ts", { skip }, () => {
  it("reads deno test's report of a slow test, colours and all", async () => {
    const { slowTest } = await load();
    assert.deepEqual(slowTest(slowLine("a 'quoted' test", "5m0s")), {
      name: "a 'quoted' test",
      minutes: 5,
    });
    assert.deepEqual(slowTest("'x' has been running for over (1h2m0s)"), {
      name: "x",
      minutes: 62,
    });
    assert.equal(slowTest("./tests/a_test.ts => x ... ok (5s)"), undefined);
  });

  it("reads the end of a top-level test, alone or among files in parallel, and not of its steps", async () => {
    const { endsTest } = await load();
    const colour = (text: string) => `\u001b[0m${text}\u001b[0m`;
    assert.equal(endsTest(colour("suite ... ok (2m1s)"), "suite"), true);
    assert.equal(
      endsTest(
        "./tests/a_test.ts => suite ... FAILED (due to 1 failed step) (3s)",
        "suite",
      ),
      true,
    );
    assert.equal(
      endsTest("./tests/a_test.ts => suite ... ignored (0ms)", "suite"),
      true,
    );
    assert.equal(endsTest("suite ...", "suite"), false);
    assert.equal(
      endsTest("./tests/a_test.ts => suite ... a step ... ok (1s)", "suite"),
      false,
    );
    assert.equal(endsTest("  suite ... ok (1s)", "other"), false);
  });

  it("stops a run whose test reached the limit, with what it started, naming the test", async () => {
    const { watchTests } = await load();
    const output = collect();
    const started = performance.now();
    // The run starts a grandchild that would outlive it, says its id, then
    // reports its test slow at 1 and 2 minutes and waits for ever.
    const script = [
      "sleep 60 & echo grandchild=$!",
      `printf '%s\\n' "${slowLine("hangs", "1m0s")}"`,
      `printf '%s\\n' "${slowLine("hangs", "2m0s")}"`,
      "wait",
    ].join("; ");
    const result = await watchTests("sh", ["-c", script], {
      testMinutes: 2,
      silenceMs: 60_000,
      locate: () => Promise.resolve(" (declared in tests/x_test.ts)"),
      write: output.write,
    });
    assert.equal(result.code, 1);
    assert.equal(
      result.stopped,
      "test_deno: 'hangs' has been running for over 2 minutes, the limit of a test: stopped the run",
    );
    assert.match(
      output.text(),
      /stopped the run \(declared in tests\/x_test\.ts\)\n$/,
    );
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 10_000, `stopped after ${Math.round(elapsed)} ms`);
    const pid = Number(/grandchild=(\d+)/.exec(output.text())?.[1]);
    assert.ok(pid > 0, output.text());
    const until = Date.now() + 2_000;
    while (alive(pid) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(alive(pid), false, "the grandchild is killed too");
  });

  it("stops a run at the limit between two of deno test's reports, counting from the start the first one implies", async () => {
    const { watchTests } = await load();
    const output = collect();
    // Reported slow at 1 minute, then silent (deno test's next report would
    // come at 2): a limit of 1.01 minutes is reached 0.6 s later.
    const script = `printf '%s\\n' "${slowLine("hangs", "1m0s")}"; sleep 60`;
    const started = performance.now();
    const result = await watchTests("sh", ["-c", script], {
      testMinutes: 1.01,
      checkMs: 50,
      silenceMs: 60_000,
      write: output.write,
    });
    const elapsed = performance.now() - started;
    assert.equal(result.code, 1);
    assert.equal(
      result.stopped,
      "test_deno: 'hangs' has been running for over 1.01 minutes, the limit of a test: stopped the run",
    );
    assert.ok(
      elapsed >= 500 && elapsed < 10_000,
      `after ${Math.round(elapsed)} ms`,
    );
  });

  it("forgets a slow test once deno test reports its end", async () => {
    const { watchTests } = await load();
    const output = collect();
    const script = [
      `printf '%s\\n' "${slowLine("slow but done", "1m0s")}"`,
      `echo './tests/a_test.ts => slow but done ... ok (1m0s)'`,
      "sleep 1",
      "exit 0",
    ].join("; ");
    const result = await watchTests("sh", ["-c", script], {
      testMinutes: 1.01,
      checkMs: 50,
      silenceMs: 60_000,
      write: output.write,
    });
    assert.deepEqual(result, { code: 0 });
  });

  it("stops a run that prints nothing for too long", async () => {
    const { watchTests } = await load();
    const output = collect();
    const started = performance.now();
    const result = await watchTests("sh", ["-c", "echo started; sleep 60"], {
      testMinutes: 5,
      silenceMs: 300,
      write: output.write,
    });
    assert.equal(result.code, 1);
    assert.match(
      result.stopped ?? "",
      /^test_deno: deno test printed nothing for 0 s: stopped the run/,
    );
    assert.match(output.text(), /^started\n/);
    assert.ok(performance.now() - started < 10_000);
  });

  it("passes the exit code and the output through when no test reaches the limit", async () => {
    const { watchTests } = await load();
    const output = collect();
    const result = await watchTests(
      "sh",
      ["-c", `printf '%s\\n' "${slowLine("slow", "1m0s")}"; echo done; exit 3`],
      { testMinutes: 5, silenceMs: 60_000, write: output.write },
    );
    assert.deepEqual(result, { code: 3 });
    assert.match(output.text(), /'slow' has been running for over \(1m0s\)/);
    assert.match(output.text(), /done\n$/);
  });
});
