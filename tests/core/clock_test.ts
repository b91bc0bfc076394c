// systemClock, the default of every `clock` option: the real time, timers
// that fire and can be cleared, and that never keep a process alive.
import { test as nodeTest } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { execPath } from "node:process";
import { type Clock, systemClock } from "../../core/mod.ts";
import { moduleUrl } from "../_support/module_url.ts";
import { CHILD_PROCESS_LIMIT, limited } from "../_support/limits.ts";

// Tests here wait on child processes: each has an explicit limit, on every
// runner (tests/_support/limits.ts).
const test = limited(nodeTest, CHILD_PROCESS_LIMIT);

test("systemClock.now() is the time since the epoch", () => {
  const before = Date.now();
  const now = systemClock.now();
  assert.ok(now >= before && now <= Date.now());
});

test("systemClock timers fire, and clearTimeout cancels one", async () => {
  const clock: Clock = systemClock;
  const fired: string[] = [];
  const cancelled = clock.setTimeout(() => fired.push("cancelled"), 5);
  clock.clearTimeout(cancelled);
  clock.clearTimeout(undefined);
  // The clock's timers are unref'd: a ref'd one keeps the test running.
  const keepAlive = setTimeout(() => {}, 5_000);
  await new Promise<void>((resolve) =>
    clock.setTimeout(() => {
      fired.push("kept");
      resolve();
    }, 10)
  );
  clearTimeout(keepAlive);
  assert.deepEqual(fired, ["kept"]);
});

test("systemClock timers let the process exit while pending, even over 24.8 days", () => {
  const core = moduleUrl("core");
  const script = `
    import { systemClock } from ${JSON.stringify(core)};
    systemClock.setTimeout(() => console.log("timer fired"), 60000);
    systemClock.setTimeout(() => console.log("long timer fired"), 2 ** 40);
    console.log("done");
  `;
  const isDeno = "Deno" in globalThis;
  const args = isDeno
    ? ["eval", "--ext=ts", script]
    : ["--input-type=module", "-e", script];
  const result = spawnSync(execPath, args, {
    timeout: 20_000,
    encoding: "utf8",
  });
  assert.equal(result.error, undefined, String(result.error));
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), "done");
});
