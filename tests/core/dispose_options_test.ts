import { test } from "node:test";
import assert from "node:assert/strict";
import { DeadlineError, deadlineSignal } from "../../core/mod.ts";

// The deadline's timer is unref'd (it never keeps a process alive), so the
// wait holds a timer of its own.
function aborted(signal: AbortSignal): Promise<unknown> {
  const keepAlive = setTimeout(() => {}, 10_000);
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => {
      clearTimeout(keepAlive);
      resolve(signal.reason);
    }, { once: true })
  );
}

test("deadlineSignal() is undefined without limits and the caller's signal alone", () => {
  assert.equal(deadlineSignal(undefined), undefined);
  assert.equal(deadlineSignal({}), undefined);
  const controller = new AbortController();
  assert.equal(
    deadlineSignal({ signal: controller.signal }),
    controller.signal,
  );
});

test("deadlineSignal() fires at the timeout with a DeadlineError", async () => {
  const signal = deadlineSignal({ timeout: 20 })!;
  assert.equal(signal.aborted, false);
  const reason = await aborted(signal);
  assert.ok(reason instanceof DeadlineError);
  assert.equal((reason as DeadlineError).timeout, 20);
  assert.equal((reason as Error).message, "Timed out after 20 ms");
});

test("deadlineSignal() fires with the caller's reason when its signal aborts first", async () => {
  const controller = new AbortController();
  const signal = deadlineSignal({
    signal: controller.signal,
    timeout: 60_000,
  })!;
  const reason = new Error("shutting down");
  const seen = aborted(signal);
  controller.abort(reason);
  assert.equal(await seen, reason);
  const already = deadlineSignal({
    signal: AbortSignal.abort(reason),
    timeout: 60_000,
  })!;
  assert.equal(already.aborted, true);
  assert.equal(already.reason, reason);
});

test("deadlineSignal() refuses a negative or non-number timeout", () => {
  assert.throws(() => deadlineSignal({ timeout: -1 }), {
    name: "RangeError",
    message: "The timeout must be a number of milliseconds of 0 or more: -1",
  });
  assert.throws(() => deadlineSignal({ timeout: NaN }), RangeError);
});
